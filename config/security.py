"""Security plumbing shared by every app: the client's address, API throttles, login lock-out."""

from axes.helpers import get_cool_off, get_failure_limit
from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render
from rest_framework import throttling
from rest_framework.permissions import SAFE_METHODS
from rest_framework.settings import api_settings


def client_ip(request) -> str:
    """The address that sent the request, trusting exactly TRUSTED_PROXY_COUNT proxies in front.

    Each trusted proxy appends the address it received the request from to X-Forwarded-For, so the
    client is the Nth entry from the right; anything further left was written by the client and
    is ignored. With no proxy configured the header is ignored entirely (it is free to forge).
    """
    count = settings.TRUSTED_PROXY_COUNT
    if count:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        hops = [h for h in hops if h]
        if len(hops) >= count:
            return hops[-count]
    return request.META.get("REMOTE_ADDR", "")


class _RatesAtCallTime:
    """DRF binds DEFAULT_THROTTLE_RATES at import; read them per request so settings apply live."""

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]

    def get_ident(self, request):
        return client_ip(request)


class AnonThrottle(_RatesAtCallTime, throttling.AnonRateThrottle):
    """Anonymous API calls, per client address (THROTTLE_ANON)."""


class UserThrottle(_RatesAtCallTime, throttling.UserRateThrottle):
    """Every API call of a signed-in user (THROTTLE_USER)."""


class WriteThrottle(_RatesAtCallTime, throttling.SimpleRateThrottle):
    """Writes that cost real work (a review, a quiz submit, a demo run, an import) (THROTTLE_WRITE).

    A view opts in with `throttle_scope = "write"` or by being listed in THROTTLED_WRITE_VIEWS
    (dotted class paths), so the list lives in one place beside the rates.
    """

    scope = "write"

    def allow_request(self, request, view):
        if request.method in SAFE_METHODS:
            return True
        cls = type(view)
        listed = f"{cls.__module__}.{cls.__qualname__}" in settings.THROTTLED_WRITE_VIEWS
        if not listed and getattr(view, "throttle_scope", None) != self.scope:
            return True
        return super().allow_request(request, view)

    def get_cache_key(self, request, view):
        if request.user and request.user.is_authenticated:
            ident = request.user.pk
        else:
            ident = self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def lockout_message(request) -> str:
    minutes = max(1, round(get_cool_off(request).total_seconds() / 60))
    return (
        f"Log-in is locked for {minutes} minute{'s' if minutes != 1 else ''} after "
        f"{get_failure_limit(request, None)} failed attempts for this username from this "
        "address. Wait, then try again with the right password."
    )


def lockout_response(request, original_response=None, credentials=None):
    """django-axes' refusal: the lock-out page (429), or a JSON sentence for API clients."""
    message = lockout_message(request)
    if request.path.startswith("/api/") or "json" in request.headers.get("Accept", ""):
        response = JsonResponse({"error": message}, status=429)
    else:
        response = render(request, "accounts/locked_out.html", {"message": message}, status=429)
    response["Retry-After"] = str(int(get_cool_off(request).total_seconds()))
    return response
