"""The study app's forms: the card browser's query (page and API alike: every parameter
checked, none required) and "learn N more new cards today"."""

import time
import uuid

from django import forms

from apps.study.browse import SORTS, STATES
from apps.study.bulk import ACTIONS, BULK_MAX, RESCHEDULE_MAX_DAYS
from apps.study.services import MORE_NEW_CARDS_MAX
from apps.study.typed import MAX_TYPED

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


class ReviewForm(forms.Form):
    """A grade posted from the review page (its htmx fragment and the plain form alike), and
    the posts beside it (undo, suspend) that keep the session's count. It never refuses: what
    is malformed becomes None (a grade stays as typed, so `grading.review_submit` refuses it
    with the scheduler's own sentence), as the API's ReviewCreateSerializer hands over its
    validated data."""

    card = forms.Field(required=False)
    deck = forms.Field(required=False)
    grade = forms.Field(required=False)
    client_id = forms.Field(required=False)
    shown_at = forms.Field(required=False)
    done = forms.Field(required=False)
    for_interview = forms.Field(required=False)

    def clean_grade(self) -> int | str | None:
        grade = self.cleaned_data["grade"]
        try:
            return int(grade)
        except (TypeError, ValueError):
            return grade

    def clean_client_id(self) -> uuid.UUID | None:
        text = self.cleaned_data["client_id"]
        try:
            return uuid.UUID(text) if text else None
        except ValueError:
            return None

    def clean_shown_at(self) -> int | None:
        """The time the card was shown (ms since the epoch) as the review's duration_ms."""
        shown_at = self.cleaned_data["shown_at"]
        if not shown_at or not shown_at.isdigit():
            return None
        elapsed = int(time.time() * 1000) - int(shown_at)
        return elapsed if 0 <= elapsed < 24 * 3600 * 1000 else None

    def clean_done(self) -> int | None:
        """How many cards the page counts as done this session; None if it counts none."""
        text = self.cleaned_data["done"]
        return int(text) if text and text.isdigit() and len(text) < 7 else None

    def clean_for_interview(self) -> bool:
        return self.cleaned_data["for_interview"] == "1"

    @classmethod
    def posted(cls, data) -> dict:
        """The cleaned values of a post (the form never refuses)."""
        form = cls(data)
        form.is_valid()
        return form.cleaned_data


class MoreNewCardsForm(forms.Form):
    """ "Learn N more new cards today" on the review page's end-of-session summary."""

    count = forms.IntegerField(min_value=1, max_value=MORE_NEW_CARDS_MAX)
    deck = forms.SlugField(required=False)


class TypedAnswerForm(forms.Form):
    """What the learner typed before revealing a "type the answer" card."""

    typed = forms.CharField(required=False, max_length=MAX_TYPED * 4, strip=False)


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
