"""Restoring an old revision of a card or a question: a new revision with its fields."""

from django.db import transaction

from apps.authoring.models import Revision
from apps.authoring.services.cards import card_update
from apps.authoring.services.questions import question_save
from apps.authoring.services.revisions import Source
from apps.decks.models import Card


@transaction.atomic
def revision_restore(
    *, revision: Revision, author, changes_answer: bool = False
) -> Revision | None:
    """Write a new revision with an old one's fields; the old one stays in the history."""
    note = f"restored revision {revision.number}"
    if revision.card_id:
        card = Card.objects.select_related("deck", "section").get(pk=revision.card_id)
        data = dict(revision.data)
        if "source" in data:
            data["card_source"] = data.pop("source")
        if not card.deck.sections.filter(slug=data.get("section")).exists():
            data.pop("section", None)  # the section is gone: keep the card where it is
        return card_update(
            card=card, author=author, note=note, changes_answer=changes_answer,
            source=Source.RESTORE, restored_from=revision, **data,
        )  # fmt: skip
    question = revision.question
    assert question is not None, "a revision is of a card or of a question"
    data = dict(revision.data)
    existing = set(question.quiz.deck.cards.values_list("slug", flat=True))
    data["cards"] = [slug for slug in data.get("cards", []) if slug in existing]
    _, new = question_save(
        quiz=question.quiz, question=question, data=data, author=author, note=note,
        source=Source.RESTORE, restored_from=revision,
    )  # fmt: skip
    return new
