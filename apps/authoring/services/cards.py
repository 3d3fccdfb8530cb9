"""Cards. A card keeps its row (and so every learner's CardState and ReviewLog) through any edit.
Only an edit marked "changes the answer" touches schedules: it makes the card due now for every
learner who has studied it, through apps.study.services.card_learners_requeue.

A reversed or cloze note is several cards (one per scheduled item): an edit of any of them is an
edit of the note, applied to every sibling; a cloze edit that adds a deletion index adds its
card, one that removes an index retires that card (its learners' history is kept)."""

from typing import Any

from django.db import transaction
from django.db.models import Max

from apps.authoring.models import Revision
from apps.authoring.selectors import learners_with_progress
from apps.authoring.services.fields import (
    order_close_gap,
    order_swap,
    slug_check,
    tags_clean,
    text_clean,
)
from apps.authoring.services.links import card_demos_link, card_questions_link
from apps.authoring.services.revisions import (
    Source,
    card_data,
    original_keep,
    revision_add,
)
from apps.decks.content import KINDS, CardDoc, cards_retire, note_check
from apps.decks.markdown import ClozeError
from apps.decks.models import Card, Deck, Section
from apps.study.services import card_learners_requeue
from config.errors import ServiceError

# The card's own source (paper or docs page) is `card_source` here: `source` says where an
# edit came from (editor, API, import...), as it does on a Revision.
CARD_FIELDS = (
    "section", "slug", "kind", "front", "back", "why", "card_source", "tags", "type_answer",
)  # fmt: skip


def _card_clean(deck: Deck, fields: dict[str, Any], card: Card | None) -> dict[str, Any]:
    """Normalised card fields (text stripped, like the file loader), or a ServiceError naming
    every field at fault."""
    clean: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key in ("front", "back", "why", "card_source"):
        if key in fields:
            clean[key.removeprefix("card_")] = text_clean(fields[key])
            if key == "front" and not clean[key]:
                errors[key] = f"{key} must not be empty"
    if len(clean.get("source", "")) > 500:
        errors["card_source"] = "source is longer than 500 characters"
    if "kind" in fields:
        clean["kind"] = (fields["kind"] or Card.Kind.BASIC).strip()
        if clean["kind"] not in KINDS:
            errors["kind"] = f"kind {clean['kind']!r} must be one of {', '.join(KINDS)}"
    if "type_answer" in fields:
        if not isinstance(fields["type_answer"], bool):
            errors["type_answer"] = (
                f"type_answer must be true or false, got {fields['type_answer']!r}"
            )
        clean["type_answer"] = fields["type_answer"] is True
    if "tags" in fields:
        try:
            clean["tags"] = tags_clean(fields["tags"])
        except ServiceError as exc:
            errors.update(exc.fields)
    if "slug" in fields:
        try:
            clean["slug"] = slug_check("slug", fields["slug"])
        except ServiceError as exc:
            errors.update(exc.fields)
        else:
            taken = Card.all_objects.filter(deck=deck, slug=clean["slug"])
            if card is not None:
                taken = taken.exclude(note_slug=card.note_slug)
            if taken.exists():
                errors["slug"] = f"deck {deck.slug!r} already has a card {clean['slug']!r}"
    if "section" in fields:
        section = fields["section"]
        if not isinstance(section, Section):
            section = deck.sections.filter(slug=section).first()
        if section is None or section.deck_id != deck.pk:
            errors["section"] = f"section {fields['section']!r} is not in deck {deck.slug!r}"
        clean["section"] = section
    if errors:
        raise ServiceError(fields=errors)
    return clean


def _section_gap_close(section_id: int, order: int) -> None:
    """A card left the section from place `order`: the cards after it move up one place."""
    order_close_gap(Card.objects.filter(section_id=section_id), order)


def _next_order(section: Section) -> int:
    top = section.cards.aggregate(n=Max("order"))["n"]
    return 0 if top is None else top + 1


def _note_cards(deck: Deck, clean: dict[str, Any], siblings: list[Card]) -> list[tuple[str, int]]:
    """The (slug, ordinal) of each card the note makes, or a ServiceError: bad cloze markup,
    a missing back, or a made slug another note's card already has."""
    doc = CardDoc(slug=clean["slug"], kind=clean["kind"], front=clean["front"],
                  back=clean["back"])  # fmt: skip
    try:
        made = note_check(doc)
    except ClozeError as exc:
        raise ServiceError(f"card {doc.slug!r}: {exc}", field="front") from None
    except ValueError as exc:
        raise ServiceError(f"card {doc.slug!r}: back must not be empty", field="back") from exc
    if doc.kind == Card.Kind.BASIC:
        return made  # _card_clean checked the slug
    taken = (
        Card.all_objects.filter(deck=deck, slug__in=[slug for slug, _ in made])
        .exclude(pk__in=[c.pk for c in siblings])
        .values_list("slug", flat=True)
        .first()
    )
    if taken is not None:
        raise ServiceError(f"deck {deck.slug!r} already has a card {taken!r}", field="slug")
    return made


@transaction.atomic
def card_create(
    *, deck: Deck, author, note: str = "", source: str = Source.EDITOR, demos=None, **fields
) -> Card:
    """Create a note: one card, or a reversed pair, or one card per cloze deletion index; returns
    the first. `demos` (catalogue slugs), when given, are linked to that card."""
    missing = [k for k in ("section", "slug", "front") if not fields.get(k)]
    if fields.get("kind", "basic") != Card.Kind.CLOZE and not fields.get("back"):
        missing.append("back")
    if missing:
        raise ServiceError(fields={k: f"{k} is required" for k in missing})
    defaults = {"why": "", "tags": [], "kind": Card.Kind.BASIC, "card_source": "", "back": "",
                "type_answer": False}  # fmt: skip
    clean = _card_clean(deck, {**defaults, **fields}, None)
    made = _note_cards(deck, clean, [])
    cards = []
    for slug, ordinal in made:
        row = {**clean, "slug": slug, "note_slug": clean["slug"], "ordinal": ordinal}
        card = Card(deck=deck, order=_next_order(clean["section"]), **row)
        card.save()
        revision_add(card=card, data=card_data(card), author=author, note=note or "created",
                      source=source)  # fmt: skip
        cards.append(card)
    if demos is not None:
        card_demos_link(card=cards[0], demos=demos)
    return cards[0]


def note_siblings(card: Card) -> list[Card]:
    """The cards of the card's note still in use (the card itself among them), by ordinal."""
    if card.kind == Card.Kind.BASIC:
        return [card]
    rows = Card.objects.filter(deck_id=card.deck_id, note_slug=card.note_slug or card.slug)
    return list(rows.select_related("section").order_by("ordinal", "id")) or [card]


@transaction.atomic
def card_update(
    *,
    card: Card,
    author,
    note: str = "",
    changes_answer: bool = False,
    source: str = Source.EDITOR,
    restored_from: Revision | None = None,
    **fields,
) -> Revision | None:
    """Edit a card's note in place (every sibling card of a reversed or cloze note); returns
    the edited card's new revision (with ``requeued``: how many learners now have the note's
    cards due, and ``card``: the edited card, or the note's first when its deletion was
    removed), or None when nothing changed."""
    unknown = set(fields) - set(CARD_FIELDS)
    if unknown:
        raise ServiceError("not a card field", field=sorted(unknown)[0])
    if fields.get("slug") == card.slug:
        fields["slug"] = card.note_slug or card.slug  # the card's own slug: the note keeps its
    clean = _card_clean(card.deck, fields, card)
    if clean.get("kind", card.kind) != card.kind:
        raise ServiceError(
            f"card {card.slug!r} is a {card.kind} card; its kind is set when it is created"
            " (create a new card of the other kind)", field="kind",
        )  # fmt: skip
    if card.kind != Card.Kind.CLOZE and "back" in clean and not clean["back"]:
        raise ServiceError("back must not be empty", field="back")
    siblings = note_siblings(card)
    before = card_data(card)
    after = {**before, **{k: v for k, v in clean.items() if k != "section"}}
    if "section" in clean:
        after["section"] = clean["section"].slug
    if after == before and not changes_answer:
        return None
    made = _note_cards(card.deck, {**after, "kind": card.kind}, siblings)
    by_ordinal = {c.ordinal: c for c in siblings}
    section = clean.get("section") or card.section
    text = {k: after[k] for k in ("front", "back", "why", "source", "tags", "type_answer")}
    revisions, requeued, kept = {}, 0, set()
    for slug, ordinal in made:
        row = by_ordinal.get(ordinal)
        if row is None:
            row = Card(deck=card.deck, section=section, order=_next_order(section), kind=card.kind,
                       slug=slug, note_slug=after["slug"], ordinal=ordinal, **text)  # fmt: skip
            row.save()
            revisions[row.pk] = revision_add(
                card=row, data=card_data(row), author=author, note=note or "added by an edit",
                source=source,
            )  # fmt: skip
            kept.add(row.pk)
            continue
        kept.add(row.pk)
        old = card_data(row)
        left = None
        if section.pk != row.section_id:
            left = (row.section_id, row.order)
            row.order = _next_order(section)
        row.section, row.slug, row.note_slug = section, slug, after["slug"]
        for key, value in text.items():
            setattr(row, key, value)
        if card_data(row) == old and not changes_answer:
            continue
        original_keep(card=row, data=old)
        row.save()
        if left is not None:
            _section_gap_close(*left)
        revisions[row.pk] = revision_add(
            card=row,
            data=card_data(row),
            author=author,
            note=note,
            changes_answer=changes_answer,
            source=source,
            restored_from=restored_from,
        )
        if changes_answer:
            requeued += card_learners_requeue(card=row)
    cards_retire([c for c in siblings if c.pk not in kept], learners_of=learners_with_progress)
    if not revisions:
        return None
    shown = card.pk if card.pk in revisions else next(iter(revisions))
    revision = revisions[shown]
    revision.requeued = requeued
    if not any(row is card for row in siblings):
        card.refresh_from_db()
    return revision


@transaction.atomic
def card_edit(
    *,
    card: Card,
    author,
    note: str = "",
    changes_answer: bool = False,
    source: str = Source.EDITOR,
    questions=None,
    demos=None,
    **fields,
) -> Revision | None:
    """One edit of a card as the editor and the API make it: its note's fields (card_update),
    and, when given, exactly which quiz questions it teaches and which demos illustrate it,
    all or nothing. Returns card_update's revision (None when the fields did not change)."""
    revision = card_update(
        card=card, author=author, note=note, changes_answer=changes_answer, source=source,
        **fields,
    )  # fmt: skip
    if questions is not None:
        card_questions_link(card=card, questions=questions, author=author)
    if demos is not None:
        card_demos_link(card=card, demos=demos)
    return revision


@transaction.atomic
def card_delete(*, card: Card) -> None:
    """Delete a card's note (every sibling of a reversed or cloze note); its learners' states
    and review logs go with it (the admin confirms)."""
    for row in note_siblings(card):
        section_id, order = row.section_id, row.order
        row.delete()
        _section_gap_close(section_id, order)


@transaction.atomic
def card_move(*, card: Card, direction: str) -> bool:
    """Move a card one place up or down in its section; False at either end."""
    return order_swap(card.section.cards.all(), card, direction, parent=card.section)
