import zoneinfo

from django import forms
from django.contrib.auth.forms import UserCreationForm

from apps.accounts.models import Profile


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        fields = ("username",)


class ProfileForm(forms.ModelForm):
    time_zone = forms.ChoiceField(
        choices=[(name, name) for name in sorted(zoneinfo.available_timezones())],
        help_text='"Today" in your review queue starts at midnight here.',
    )

    class Meta:
        model = Profile
        fields = (
            "time_zone",
            "new_cards_per_day",
            "reviews_per_day",
            "interview_date",
            "daily_budget_minutes",
            "target_recall",
        )
        widgets = {"interview_date": forms.DateInput(attrs={"type": "date"})}
        help_texts = {
            "new_cards_per_day": "New cards introduced per day (0 to 500).",
            "reviews_per_day": "Most reviews shown per day (1 to 5000).",
        }
