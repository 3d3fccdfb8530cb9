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
            "daily_budget_minutes",
            "target_recall",
            "leech_threshold",
        )
        widgets = {"interview_date": forms.DateInput(attrs={"type": "date"})}
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
