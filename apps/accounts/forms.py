import zoneinfo

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

from apps.accounts.models import Profile, UsernameSkeleton
from apps.accounts.usernames import username_skeleton
from config.names import name_problem

User = get_user_model()
ISO_DATE = "%Y-%m-%d"  # what <input type="date"> reads and sends


class SignUpForm(UserCreationForm):
    """A username, an e-mail address (for password resets) and a password; the browser's time
    zone comes in a hidden field (static/js/time-zone.js fills it) and becomes the profile's."""

    email = forms.EmailField(
        label="E-mail", help_text="Only to send you a link if you forget your password."
    )
    time_zone = forms.CharField(widget=forms.HiddenInput, required=False, max_length=64)

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    field_order = ("username", "email", "password1", "password2", "time_zone")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].widget.attrs["data-browser-time-zone"] = ""

    def clean_username(self) -> str:
        username = super().clean_username()
        if not username:  # Django's own check refused it (taken, in any case)
            return username
        problem = name_problem(username, "A username")
        if problem:
            raise forms.ValidationError(problem)
        if UsernameSkeleton.objects.filter(skeleton=username_skeleton(username)).exists():
            raise forms.ValidationError(
                "This username reads the same as one already taken (letters from another "
                "alphabet that look alike count as the same): choose another."
            )
        return username

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(
                "An account already uses this e-mail address: log in, or reset its password."
            )
        return email

    def clean_time_zone(self) -> str:
        # Nobody can correct a hidden field: a name zoneinfo does not know (an old browser, a
        # hand-made request) falls back to UTC, which the profile page can change.
        name = self.cleaned_data.get("time_zone") or ""
        return name if name in zoneinfo.available_timezones() else "UTC"


class ProfileForm(forms.ModelForm):
    time_zone = forms.ChoiceField(
        choices=[(name, name) for name in sorted(zoneinfo.available_timezones())],
        help_text='"Today" in your review queue starts at midnight here.',
    )

    target_recall = forms.IntegerField(
        required=False,
        min_value=50,
        max_value=99,
        help_text="Share of cards to recall on the day, in percent (50 to 99; default 90).",
    )
    # Optional in a post: a form that leaves it out keeps the learner's threshold.
    leech_threshold = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=99,
        help_text="A card failed this many times is a leech and you are asked to suspend it"
        " (Anki's default, 8; 0 turns this off).",
    )

    class Meta:
        model = Profile
        fields = (
            "time_zone",
            "new_cards_per_day",
            "reviews_per_day",
            "interview_date",
            "interview_mode",
            "daily_budget_minutes",
            "target_recall",
            "leech_threshold",
        )
        # <input type="date"> takes and gives ISO dates only ("2026-12-11"): a value in the
        # site's en-gb format ("11/12/2026") shows as an empty field, and saving the form then
        # deletes the date. The value is rendered as ISO whatever the locale.
        widgets = {"interview_date": forms.DateInput(attrs={"type": "date"}, format=ISO_DATE)}
        help_texts = {
            "new_cards_per_day": "New cards introduced per day (0 to 500).",
            "reviews_per_day": "Most reviews shown per day (1 to 5000).",
        }

    def clean_target_recall(self) -> int:
        value = self.cleaned_data.get("target_recall")
        return value if value is not None else self.instance.target_recall

    def clean_leech_threshold(self):
        value = self.cleaned_data.get("leech_threshold")
        return self.instance.leech_threshold if value is None else value
