"""The study app's forms: the card browser's query (page and API alike: every parameter
checked, none required) and "learn N more new cards today"."""

from django import forms

from apps.study.browse import SORTS, STATES
from apps.study.services import MORE_NEW_CARDS_MAX

SORT_LABELS = {
    "": "deck order",
    "due": "due date, soonest first",
    "-due": "due date, latest first",
    "ease": "easiness, hardest first",
    "-ease": "easiness, easiest first",
    "lapses": "lapses, fewest first",
    "-lapses": "lapses, most first",
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
        return "; ".join(f"{name}: {' '.join(errors)}" for name, errors in self.errors.items())


class MoreNewCardsForm(forms.Form):
    """ "Learn N more new cards today" on the review page's end-of-session summary."""

    count = forms.IntegerField(min_value=1, max_value=MORE_NEW_CARDS_MAX)
    deck = forms.SlugField(required=False)
