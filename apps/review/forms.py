"""The review pages' forms: a grade (and the posts beside it), "learn N more new cards today"
and a typed answer."""

import time
import uuid

from django import forms

from apps.review.typed import MAX_TYPED
from apps.study.services import MORE_NEW_CARDS_MAX


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
