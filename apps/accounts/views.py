import hashlib

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from apps.accounts.forms import ProfileForm, SignUpForm
from apps.accounts.models import profile_for
from config.security import client_ip, rate_spent


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        profile = profile_for(user)
        profile.time_zone = form.cleaned_data["time_zone"]
        profile.save(update_fields=["time_zone"])
        # Two backends (django-axes first), so name the one that knows this password.
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Pick a deck to start.")
        next_url = request.POST.get("next", "")
        if url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
            return redirect(next_url)
        return redirect("home")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    form = ProfileForm(request.POST or None, instance=profile_for(request.user))
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Profile saved.")
        return redirect("accounts:profile")
    return render(request, "accounts/profile.html", {"form": form})


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset by e-mail, throttled: at most THROTTLE_PASSWORD_RESET_EMAIL e-mails for
    one address asked for (counted whether it has an account or not, so a refusal tells
    nothing) and THROTTLE_PASSWORD_RESET_IP asked from one client; past either, 429 and a
    sentence, and no e-mail."""

    def form_valid(self, form):
        address = form.cleaned_data["email"].strip().lower()
        digest = hashlib.sha256(address.encode()).hexdigest()[:32]
        for scope, ident, whose in (
            ("password_reset_ip", client_ip(self.request), "from your address"),
            ("password_reset_email", digest, "this e-mail address"),
        ):
            wait = rate_spent(self.request, scope, ident)
            if wait is not None:
                minutes = max(1, round(wait / 60))
                message = (
                    f"Too many password-reset e-mails were asked for {whose} lately, so none was "
                    f"sent this time. Look for the ones already sent, or ask again in {minutes} "
                    f"minute{'s' if minutes != 1 else ''}."
                )
                context = {"title": "Too many requests", "message": message}
                response = render(self.request, "error.html", context, status=429)
                response["Retry-After"] = str(wait)
                return response
        return super().form_valid(form)


class LogoutView(auth_views.LogoutView):
    """Log out, and tell the browser to drop this site's caches and storage: the service
    worker's cached review pages and the cards and states the review page kept in IndexedDB
    (issue 32), so the next person on this browser sees none of them."""

    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        response["Clear-Site-Data"] = '"cache", "storage"'
        return response
