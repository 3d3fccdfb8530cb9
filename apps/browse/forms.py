"""The card browser's forms: its query (page and API alike: every parameter checked, none
required) and its bulk action."""

from django import forms

from apps.browse.selectors import SORTS, STATES
from apps.browse.services import ACTIONS, BULK_MAX, RESCHEDULE_MAX_DAYS

SORT_LABELS = {
    "": "deck order",
    "due": "due date, soonest first",
    "-due": "due date, latest first",
    "interval": "interval, shortest first",
    "-interval": "interval, longest first",
    "ease": "easiness, hardest first",
    "-ease": "easiness, easiest first",
    "lapses": "lapses, fewest first",
    "-lapses": "lapses, most first",
    "reviewed": "last review, longest ago first",
    "-reviewed": "last review, most recent first",
    "deck": "deck, A to Z",
    "-deck": "deck, Z to A",
    "tags": "tags, A to Z",
    "-tags": "tags, Z to A",
}


class BrowseForm(forms.Form):
    q = forms.CharField(required=False, max_length=200, strip=True, label="Search")
    deck = forms.SlugField(required=False, max_length=80)
    section = forms.SlugField(required=False, max_length=80)
    tag = forms.CharField(required=False, max_length=100)
    state = forms.ChoiceField(
        required=False,
        choices=[("", "any state")] + [(s, s) for s in STATES],
        error_messages={
            "invalid_choice": f"state must be one of {', '.join(STATES)}, got %(value)s"
        },
    )
    sort = forms.ChoiceField(
        required=False,
        choices=[(s, SORT_LABELS[s]) for s in ("", *SORTS)],
        error_messages={"invalid_choice": f"sort must be one of {', '.join(SORTS)}, got %(value)s"},
    )
    page = forms.IntegerField(required=False, min_value=1, max_value=10**6)

    def query(self) -> dict:
        """The cleaned values as browse.cards_search() takes them."""
        data = dict(self.cleaned_data)
        data["page"] = data.get("page") or 1
        return data

    def error_text(self) -> str:
        """One sentence naming each refused parameter, e.g. "state: Select a valid choice."."""
        return "; ".join(
            f"{name}: {' '.join(map(str, errors))}" for name, errors in self.errors.items()
        )


class CardIds(forms.Field):
    """The chosen cards' ids (checkboxes named `cards`), at most BULK_MAX."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value) -> list[int]:
        values = [str(v) for v in value or []]
        if not values:
            raise forms.ValidationError("choose at least one card")
        if len(values) > BULK_MAX:
            raise forms.ValidationError(f"choose at most {BULK_MAX} cards at once")
        if not all(v.isascii() and v.isdigit() and len(v) < 12 for v in values):
            raise forms.ValidationError("a chosen card is not a card id")
        return list(dict.fromkeys(int(v) for v in values))


class BulkForm(forms.Form):
    """The card browser's bulk action on the learner's own schedule."""

    cards = CardIds()
    action = forms.ChoiceField(
        choices=[(a, a) for a in ACTIONS],
        error_messages={"invalid_choice": f"action must be one of {', '.join(ACTIONS)}"},
    )
    days = forms.IntegerField(required=False, min_value=0, max_value=RESCHEDULE_MAX_DAYS)
    next = forms.CharField(required=False, max_length=2000)

    def clean(self):
        super().clean()
        data = self.cleaned_data
        if data.get("action") == "reschedule" and data.get("days") is None:
            self.add_error("days", "say in how many days the cards are due (0: today)")
        return data

    def error_text(self) -> str:
        return "; ".join(
            f"{name}: {' '.join(map(str, errors))}" for name, errors in self.errors.items()
        )
