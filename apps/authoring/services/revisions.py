"""Revisions: every change to a card or question writes one with the full editable fields. The
first recorded edit of something that has no history (seeded content) first writes an "original"
revision, so the text before any edit can always be restored."""

from typing import Any

from django.db.models import Max

from apps.authoring.models import Revision
from apps.decks.models import Card
from apps.quizzes.models import Question

Source = Revision.Source


def card_data(card: Card) -> dict[str, Any]:
    """The card's editable fields as stored in a revision: its note's (the slug is the note's,
    the same as the card's for a basic card)."""
    return {
        "section": card.section.slug,
        "slug": card.note_slug or card.slug,
        "kind": card.kind,
        "front": card.front,
        "back": card.back,
        "why": card.why,
        "source": card.source,
        "tags": list(card.tags),
        "type_answer": card.type_answer,
    }


def question_data(question: Question) -> dict[str, Any]:
    """The question in the quiz file format (fixtures/quizzes), choices in the author's order."""
    doc: dict[str, Any] = {
        "slug": question.slug,
        "kind": question.kind,
        "prompt": question.prompt,
        "explanation": question.explanation,
        "points": question.points,
        "cards": sorted(c.slug for c in question.cards.all()),
    }
    by_order = lambda rows: sorted(rows, key=lambda row: (row.order, row.pk))  # noqa: E731
    if question.kind in (Question.Kind.SINGLE, Question.Kind.MULTI):
        doc["choices"] = [
            {"text": c.text, "correct": c.correct} for c in by_order(question.choices.all())
        ]
    elif question.kind == Question.Kind.TRUE_FALSE:
        doc["statements"] = [
            {"text": s.text, "answer": s.answer} for s in by_order(question.statements.all())
        ]
    elif question.kind == Question.Kind.MATCH:
        doc["pairs"] = [{"left": p.left, "right": p.right} for p in by_order(question.pairs.all())]
    else:  # a sizing drill: its numbers and formula as the quiz file has them
        doc |= {k: v for k, v in question.sizing.items() if k != "derived" or v}
        doc["solution"] = question.solution
    if question.evidence:
        doc["evidence"] = dict(question.evidence)
    return doc


def revision_add(
    *,
    card: Card | None = None,
    question: Question | None = None,
    data: dict[str, Any],
    author=None,
    note: str = "",
    changes_answer: bool = False,
    source: str = Source.EDITOR,
    restored_from: Revision | None = None,
) -> Revision:
    row = card if card is not None else question
    if row is None:
        raise TypeError("revision_add needs a card or a question")
    target = {"card": card} if card is not None else {"question": question}
    # Lock the card or question row so two concurrent edits number their revisions in turn.
    model = Card if card is not None else Question
    list(model.objects.select_for_update().filter(pk=row.pk).values_list("pk"))
    last = Revision.objects.filter(**target).aggregate(n=Max("number"))["n"] or 0
    return Revision.objects.create(
        **target,
        number=last + 1,
        data=data,
        author=author if author is not None and author.is_authenticated else None,
        note=note[:200],
        changes_answer=changes_answer,
        source=source,
        restored_from=restored_from,
    )


def original_keep(*, card: Card | None = None, question: Question | None = None, data) -> None:
    """Record the pre-edit text of something with no history yet (seeded or imported before
    revisions existed), so the first edit can be undone by a restore."""
    target = {"card": card} if card is not None else {"question": question}
    if not Revision.objects.filter(**target).exists():
        revision_add(**target, data=data, source=Source.ORIGINAL, note="before the first edit")


def revisions_add_many(*, cards, before: dict[int, dict], author, note: str) -> None:
    """A revision for each of `cards` (edited, saved, and locked by the caller), with an
    "original" one first for a card with no history (`before`: its data before the edit): two
    queries however many cards (a bulk edit of the card browser)."""
    if not cards:
        return
    last = dict(
        Revision.objects.filter(card__in=cards)
        .values("card")
        .annotate(n=Max("number"))
        .values_list("card", "n")
    )
    who = author if author is not None and author.is_authenticated else None
    rows = []
    for card in cards:
        number = last.get(card.pk, 0)
        if card.pk not in last:
            number += 1
            rows.append(Revision(card=card, number=number, data=before[card.pk],
                                 source=Source.ORIGINAL, note="before the first edit"))  # fmt: skip
        rows.append(Revision(card=card, number=number + 1, data=card_data(card), author=who,
                             note=note[:200], source=Source.EDITOR))  # fmt: skip
    Revision.objects.bulk_create(rows, batch_size=500)
