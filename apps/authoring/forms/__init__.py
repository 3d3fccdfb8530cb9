"""The author pages' forms. Each reads one page's post: the fields a person types are taken as
typed (the services clean and check them, with the messages the API gives too); what only a page
sends (a checkbox, whole minutes, a percentage, the editor's option lines) is turned into what the
service takes here. `AuthorForm.refused(exc)` (forms.base) puts a service's ServiceError on the
fields it names, so the page shows it in place. The quiz and question editors' forms are in
forms.questions.
"""

import re

from django import forms
from django.core.exceptions import ValidationError

from apps.authoring.forms.base import AuthorForm, Text, Texts, Ticked
from apps.authoring.services.own import BULK_MAX
from apps.quizzes.models import Question


class DeckCreateForm(AuthorForm):
    slug = Text()
    title = Text()


class DeckForm(AuthorForm):
    title = Text()
    description = Text()
    objectives = Text()


class DeckPublishForm(AuthorForm):
    publish = Text()
    next = Text()

    def clean_publish(self) -> bool:
        return self.cleaned_data["publish"] == "1"


class DeckAuthorsForm(AuthorForm):
    """Grant (username) or, when `revoke` names a user id, revoke one author."""

    username = Text()
    revoke = Text()

    def clean_revoke(self) -> int | None:
        user_id = self.cleaned_data["revoke"]
        if not user_id:
            return None
        if not user_id.isdigit():
            raise ValidationError(f"No author to remove: {user_id!r} is no user id.")
        return int(user_id)


class SectionForm(AuthorForm):
    slug = Text()
    title = Text()
    summary = Text()
    delete = Ticked()

    def section_fields(self) -> dict:
        return {name: self.cleaned_data[name] for name in ("slug", "title", "summary")}


class CardForm(AuthorForm):
    """A card's fields (an existing card's form sends no kind: it is set at creation), why it
    was edited, and the quiz questions and demos it links to when the page showed them."""

    section = Text()
    slug = Text()
    kind = Text()
    front = Text()
    back = Text()
    why = Text()
    card_source = Text()
    tags = Text()
    note = Text()
    changes_answer = Ticked()
    type_answer = Ticked()
    type_answer_shown = Text()
    questions = Texts()
    questions_shown = Text()
    demos = Texts()
    demos_shown = Text()
    back_url = Text()  # a card edited from the review page: where the page returns

    def clean_questions(self) -> list[int]:
        picked = self.cleaned_data["questions"]
        if not all(pk.isdigit() for pk in picked):
            raise ValidationError("not a quiz question of this deck")
        return [int(pk) for pk in picked]

    def card_fields(self) -> dict:
        names = ("section", "slug", "front", "back", "why", "card_source", "tags")
        fields = {**{name: self.cleaned_data[name] for name in names}, **self.posted("kind")}
        if "type_answer_shown" in self.data:  # a page that showed the box sent it, ticked or not
            fields["type_answer"] = self.cleaned_data["type_answer"]
        return fields

    def links(self, deck) -> dict:
        """questions= and demos= for card_edit, for the lists the page showed."""
        links = {}
        if "questions_shown" in self.data:
            wanted = self.cleaned_data["questions"]
            links["questions"] = Question.objects.filter(quiz__deck=deck, pk__in=wanted)
        if "demos_shown" in self.data:
            links["demos"] = self.cleaned_data["demos"]
        return links


class RestoreForm(AuthorForm):
    changes_answer = Ticked()


PREVIEW_FIELDS = ("front", "back", "why", "prompt", "explanation", "summary", "description")


class PreviewForm(AuthorForm):
    """One Markdown field of any author form (whichever was sent), a card's kind, and the deck
    whose images the text may show."""

    kind = Text()
    preview_deck = Text()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in PREVIEW_FIELDS:
            self.fields[name] = Text()

    def field(self) -> str:
        return next((name for name in PREVIEW_FIELDS if name in self.data), "")


class ImportForm(AuthorForm):
    """The import page: an upload with its options, or the confirmation of a preview."""

    file = forms.FileField(required=False, allow_empty_file=True)
    format = Text()
    deck = Text()
    title = Text()
    section = Text()
    commit = Text()
    preview = Text()  # the token of the preview a commit confirms

    def confirmed(self) -> str | None:
        return self.cleaned_data["preview"] if "preview" in self.data else None

    def options(self) -> dict:
        data = self.cleaned_data
        return {
            "fmt": data["format"] or None,
            "deck_slug": data["deck"].strip(),
            "deck_title": data["title"].strip(),
            "section": data["section"].strip(),
        }


WRONG_SLOTS = 3  # wrong solutions the exercise editor shows (the API and files take any number)


# The exercise fields the form edits as they are: the file format's names (apps.exercises.content).
EXERCISE_FIELDS = (
    "slug",
    "title",
    "section",
    "source",
    "prompt",
    "starter",
    "examples",
    "tests",
    "reference",
)


class ExerciseForm(AuthorForm):
    """The exercise editor: the file format's fields, the cards as slugs (spaces or commas) and
    up to WRONG_SLOTS wrong solutions, each with the mistake it makes."""

    slug = Text()
    title = Text()
    section = Text()
    cards = Text()
    source = Text()
    prompt = Text()
    starter = Text()
    examples = Text()
    tests = Text()
    reference = Text()
    note = Text()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for i in range(1, WRONG_SLOTS + 1):
            self.fields[f"wrong_{i}_mistake"] = Text()
            self.fields[f"wrong_{i}_code"] = Text()

    def document(self) -> dict:
        """What was typed, as an exercise entry of the file format (apps.exercises.content)."""
        data = self.cleaned_data
        doc = {name: data[name] for name in EXERCISE_FIELDS}
        doc["cards"] = [c for c in re.split(r"[\s,]+", data["cards"]) if c]
        doc["wrong"] = [
            {"mistake": data[f"wrong_{i}_mistake"], "code": data[f"wrong_{i}_code"]}
            for i in range(1, WRONG_SLOTS + 1)
            if data[f"wrong_{i}_mistake"].strip() or data[f"wrong_{i}_code"].strip()
        ]
        return doc

    @staticmethod
    def initial_from(doc) -> dict:
        values = {name: getattr(doc, name) for name in EXERCISE_FIELDS}
        values["cards"] = " ".join(doc.cards)
        for i, wrong in enumerate(doc.wrong[:WRONG_SLOTS], 1):
            values[f"wrong_{i}_mistake"] = wrong["mistake"]
            values[f"wrong_{i}_code"] = wrong["code"]
        return values


class SuggestionForm(AuthorForm):
    """A learner's suggested edit of a shipped card, from the review page."""

    front = Text()
    back = Text()
    why = Text()
    note = Text()


class SuggestionDecisionForm(AuthorForm):
    """An author's decision on a suggestion: accept (optionally as changing the answer) or
    reject, with an optional reply the learner reads."""

    decision = Text()
    reply = Text()
    changes_answer = Ticked()

    def clean_decision(self) -> str:
        decision = self.cleaned_data["decision"]
        if decision not in ("accept", "reject"):
            raise ValidationError("choose accept or reject")
        return decision


class OwnDeckForm(AuthorForm):
    title = Text()
    description = Text()


class OwnDeckDeleteForm(AuthorForm):
    confirm = Ticked()


class OwnBulkForm(AuthorForm):
    """The card browser's bulk edits of one's own cards: tag (add and/or remove) or move."""

    action = Text()
    cards = Texts()
    tag = Text()
    untag = Text()
    deck = Text()
    next = Text()

    def clean_action(self) -> str:
        action = self.cleaned_data["action"]
        if action not in ("tag", "move"):
            raise ValidationError("choose tag or move")
        return action

    def clean_cards(self) -> list[int]:
        picked = self.cleaned_data["cards"]
        if not picked:
            raise ValidationError("choose at least one card")
        if len(picked) > BULK_MAX:
            raise ValidationError(f"choose at most {BULK_MAX} cards at once")
        if not all(pk.isdigit() and len(pk) < 12 for pk in picked):
            raise ValidationError("not a card id")
        return [int(pk) for pk in picked]


class MediaForm(forms.Form):
    """An image uploaded in the card editor (its bytes are checked by the media service)."""

    image = forms.FileField(required=False, allow_empty_file=True)
