from datetime import timedelta

from django import forms

from apps.decks.models import Deck
from apps.teams.services import INVITE_MAX_USES, NAME_MAX


class TeamForm(forms.Form):
    name = forms.CharField(
        max_length=NAME_MAX, help_text="e.g. 'Ray interview cohort, spring'. You can be in several."
    )
    deck = forms.ModelChoiceField(
        queryset=Deck.objects.filter(is_published=True).order_by("title"),
        required=False,
        empty_label="The first published deck",
        help_text="The deck the team's dashboard measures.",
    )


class InviteForm(forms.Form):
    EXPIRY_CHOICES = [("1", "1 day"), ("7", "7 days"), ("30", "30 days")]

    uses = forms.ChoiceField(
        choices=[("single", "Single use: one person"), ("multi", "Multi use: anyone with it")],
        initial="single",
        widget=forms.RadioSelect,
    )
    max_uses = forms.IntegerField(
        min_value=2,
        max_value=INVITE_MAX_USES,
        required=False,
        help_text="Multi use only: leave empty for no limit.",
    )
    expires_in_days = forms.ChoiceField(choices=EXPIRY_CHOICES, initial="7", label="Expires in")

    def invite_arguments(self) -> dict:
        data = self.cleaned_data
        max_uses = 1 if data["uses"] == "single" else data.get("max_uses")
        return {"max_uses": max_uses, "expires_in": timedelta(days=int(data["expires_in_days"]))}


class TeamDeleteForm(forms.Form):
    """Deleting a team asks for its address typed out, so a stray click deletes nothing."""

    confirm = forms.CharField(required=False)

    def __init__(self, *args, team, **kwargs):
        super().__init__(*args, **kwargs)
        self.team = team

    def clean_confirm(self) -> str:
        if self.cleaned_data["confirm"] != self.team.slug:
            raise forms.ValidationError(f"Type the team's address {self.team.slug!r} to delete it.")
        return self.cleaned_data["confirm"]
