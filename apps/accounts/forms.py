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

    target_recall = forms.IntegerField(
        required=False,
        min_value=50,
        max_value=99,
        help_text="Share of cards to recall on the day, in percent (50 to 99; default 90).",
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

    def clean_target_recall(self) -> int:
        value = self.cleaned_data.get("target_recall")
        return value if value is not None else self.instance.target_recall
