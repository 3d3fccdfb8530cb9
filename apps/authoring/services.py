"""Writes made by authors: decks, sections, cards, quiz questions, revisions and imports.

Every function validates what it is given and raises django's ValidationError with a message per
field that a person can act on; pages show it next to the field and the API returns it as a 400.

Two rules hold everywhere:
- A card keeps its row (and so every learner's CardState and ReviewLog) through any edit.
  Only an edit marked "changes the answer" touches schedules: it makes the card due now for
  every learner who has studied it, through apps.study.services.card_learners_requeue.
- A reversed or cloze note is several cards (one per scheduled item): an edit of any of them is
  an edit of the note, applied to every sibling; a cloze edit that adds a deletion index adds
  its card, one that removes an index retires that card (its learners' history is kept).
- Every change to a card or question writes a Revision with the full editable fields. The first
  recorded edit of something that has no history (seeded content) first writes an "original"
  revision, so the text before any edit can always be restored.
"""

import dataclasses
import logging
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from apps.authoring.apkg import ApkgError, apkg_precheck
from apps.authoring.models import DeckAuthor, ImportJob, Revision
from apps.authoring.selectors import can_author
from apps.decks.content import (
    KINDS,
    PROGRESS_EVERY,
    SLUG_RE,
    CardDoc,
    ContentError,
    DeckDoc,
    LoadResult,
    cards_retire,
    deck_apply,
    note_check,
)
from apps.decks.markdown import ClozeError
from apps.decks.models import Card, Deck, Section
from apps.decks.selectors import card_names
from apps.demos.models import DemoCardLink
from apps.demos.ray_demos.catalogue import get_demo
from apps.quizzes.content import _apply_question, _parse_question
from apps.quizzes.lint import lint_documents
from apps.quizzes.models import Question, Quiz
from apps.study.services import card_learners_requeue

log = logging.getLogger(__name__)
# The card's own source (paper or docs page) is `card_source` here: `source` says where an
# edit came from (editor, API, import...), as it does on a Revision.
CARD_FIELDS = ("section", "slug", "kind", "front", "back", "why", "card_source", "tags")
Source = Revision.Source


# Revisions ---------------------------------------------------------------------------------


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
    else:
        doc["pairs"] = [{"left": p.left, "right": p.right} for p in by_order(question.pairs.all())]
    return doc


def _revision_add(
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
    target = {"card": card} if card is not None else {"question": question}
    # Lock the card or question row so two concurrent edits number their revisions in turn.
    model = Card if card is not None else Question
    list(model.objects.select_for_update().filter(pk=(card or question).pk).values_list("pk"))
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


def _original_keep(*, card: Card | None = None, question: Question | None = None, data) -> None:
    """Record the pre-edit text of something with no history yet (seeded or imported before
    revisions existed), so the first edit can be undone by a restore."""
    target = {"card": card} if card is not None else {"question": question}
    if not Revision.objects.filter(**target).exists():
        _revision_add(**target, data=data, source=Source.ORIGINAL, note="before the first edit")


# Cards -------------------------------------------------------------------------------------


def _text(value) -> str:
    """Author text as stored: ends stripped, and line breaks as plain \\n. Browsers send a
    textarea's line breaks as \\r\\n, which made an untouched save look like an edit."""
    return (value or "").replace("\r\n", "\n").replace("\r", "\n").strip()


def _tags(value) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) for t in value):
        raise ValidationError({"tags": "tags must be a list of words, or words separated by ,"})
    comma = next((t for t in value if "," in t), None)
    if comma is not None:
        raise ValidationError({"tags": f"a tag cannot contain a comma: {comma!r}"})
    return list(dict.fromkeys(t.strip() for t in value if t.strip()))


def _slug_check(field: str, value: str) -> str:
    value = (value or "").strip()
    if not value:
        raise ValidationError({field: f"{field} is required"})
    if len(value) > 80 or not SLUG_RE.match(value):
        raise ValidationError(
            {field: f"{value!r} must be lowercase words joined by hyphens, e.g. ray-task"}
        )
    return value


def _card_clean(deck: Deck, fields: dict[str, Any], card: Card | None) -> dict[str, Any]:
    """Normalised card fields (text stripped, like the file loader) or a ValidationError."""
    clean: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key in ("front", "back", "why", "card_source"):
        if key in fields:
            clean[key.removeprefix("card_")] = _text(fields[key])
            if key == "front" and not clean[key]:
                errors[key] = f"{key} must not be empty"
    if len(clean.get("source", "")) > 500:
        errors["card_source"] = "source is longer than 500 characters"
    if "kind" in fields:
        clean["kind"] = (fields["kind"] or Card.Kind.BASIC).strip()
        if clean["kind"] not in KINDS:
            errors["kind"] = f"kind {clean['kind']!r} must be one of {', '.join(KINDS)}"
    if "tags" in fields:
        try:
            clean["tags"] = _tags(fields["tags"])
        except ValidationError as exc:
            errors.update(exc.message_dict)
    if "slug" in fields:
        try:
            clean["slug"] = _slug_check("slug", fields["slug"])
        except ValidationError as exc:
            errors.update({k: v[0] for k, v in exc.message_dict.items()})
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
        raise ValidationError(errors)
    return clean


def _section_renumber(section_id: int) -> None:
    """Cards of a section ordered 0, 1, 2... again after one left it, as the deck file loader
    numbers them; a gap made an import of the deck's own export report those cards changed."""
    rows = list(Card.objects.filter(section_id=section_id).order_by("order", "id"))
    moved = [row for position, row in enumerate(rows) if row.order != position]
    for position, row in enumerate(rows):
        row.order = position
    Card.objects.bulk_update(moved, ["order"])


def _next_order(section: Section) -> int:
    top = section.cards.aggregate(n=Max("order"))["n"]
    return 0 if top is None else top + 1


def _note_cards(deck: Deck, clean: dict[str, Any], siblings: list[Card]) -> list[tuple[str, int]]:
    """The (slug, ordinal) of each card the note makes, or a ValidationError: bad cloze markup,
    a missing back, or a made slug another note's card already has."""
    doc = CardDoc(slug=clean["slug"], kind=clean["kind"], front=clean["front"],
                  back=clean["back"])  # fmt: skip
    try:
        made = note_check(doc)
    except ClozeError as exc:
        raise ValidationError({"front": f"card {doc.slug!r}: {exc}"}) from None
    except ValueError as exc:
        raise ValidationError({"back": f"card {doc.slug!r}: back must not be empty"}) from exc
    if doc.kind == Card.Kind.BASIC:
        return made  # _card_clean checked the slug
    taken = (
        Card.all_objects.filter(deck=deck, slug__in=[slug for slug, _ in made])
        .exclude(pk__in=[c.pk for c in siblings])
        .values_list("slug", flat=True)
        .first()
    )
    if taken is not None:
        raise ValidationError({"slug": f"deck {deck.slug!r} already has a card {taken!r}"})
    return made


@transaction.atomic
def card_create(
    *, deck: Deck, author, note: str = "", source: str = Source.EDITOR, **fields
) -> Card:
    """Create a note: one card, or a reversed pair, or one card per cloze deletion index; returns
    the first."""
    missing = [k for k in ("section", "slug", "front") if not fields.get(k)]
    if fields.get("kind", "basic") != Card.Kind.CLOZE and not fields.get("back"):
        missing.append("back")
    if missing:
        raise ValidationError({k: f"{k} is required" for k in missing})
    defaults = {"why": "", "tags": [], "kind": Card.Kind.BASIC, "card_source": "", "back": ""}
    clean = _card_clean(deck, {**defaults, **fields}, None)
    made = _note_cards(deck, clean, [])
    cards = []
    for slug, ordinal in made:
        row = {**clean, "slug": slug, "note_slug": clean["slug"], "ordinal": ordinal}
        card = Card(deck=deck, order=_next_order(clean["section"]), **row)
        card.save()
        _revision_add(card=card, data=card_data(card), author=author, note=note or "created",
                      source=source)  # fmt: skip
        cards.append(card)
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
        raise ValidationError({sorted(unknown)[0]: "not a card field"})
    if fields.get("slug") == card.slug:
        fields["slug"] = card.note_slug or card.slug  # the card's own slug: the note keeps its
    clean = _card_clean(card.deck, fields, card)
    if clean.get("kind", card.kind) != card.kind:
        raise ValidationError(
            {"kind": f"card {card.slug!r} is a {card.kind} card; its kind is set when it is"
                     " created (create a new card of the other kind)"}
        )  # fmt: skip
    if card.kind != Card.Kind.CLOZE and "back" in clean and not clean["back"]:
        raise ValidationError({"back": "back must not be empty"})
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
    text = {k: after[k] for k in ("front", "back", "why", "source", "tags")}
    revisions, requeued, kept = {}, 0, set()
    for slug, ordinal in made:
        row = by_ordinal.get(ordinal)
        if row is None:
            row = Card(deck=card.deck, section=section, order=_next_order(section), kind=card.kind,
                       slug=slug, note_slug=after["slug"], ordinal=ordinal, **text)  # fmt: skip
            row.save()
            revisions[row.pk] = _revision_add(
                card=row, data=card_data(row), author=author, note=note or "added by an edit",
                source=source,
            )  # fmt: skip
            kept.add(row.pk)
            continue
        kept.add(row.pk)
        old = card_data(row)
        left_section = None
        if section.pk != row.section_id:
            left_section = row.section_id
            row.order = _next_order(section)
        row.section, row.slug, row.note_slug = section, slug, after["slug"]
        for key, value in text.items():
            setattr(row, key, value)
        if card_data(row) == old and not changes_answer:
            continue
        _original_keep(card=row, data=old)
        row.save()
        if left_section is not None:
            _section_renumber(left_section)
        revisions[row.pk] = _revision_add(
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
    cards_retire([c for c in siblings if c.pk not in kept])
    if not revisions:
        return None
    shown = card.pk if card.pk in revisions else next(iter(revisions))
    revision = revisions[shown]
    revision.requeued = requeued
    if not any(row is card for row in siblings):
        card.refresh_from_db()
    return revision


@transaction.atomic
def card_delete(*, card: Card) -> None:
    """Delete a card's note (every sibling of a reversed or cloze note); its learners' states
    and review logs go with it (the admin confirms)."""
    for row in note_siblings(card):
        section_id = row.section_id
        row.delete()
        _section_renumber(section_id)


def _move(siblings, row, direction: str) -> bool:
    """Swap `row` with its neighbour among `siblings` (locked, in order) and renumber them 0, 1,
    2...; False at either end or for a direction other than up/down."""
    rows = list(siblings.order_by("order", "id").select_for_update())
    index = next(i for i, item in enumerate(rows) if item.pk == row.pk)
    other = index - 1 if direction == "up" else index + 1
    if direction not in ("up", "down") or not 0 <= other < len(rows):
        return False
    rows[index], rows[other] = rows[other], rows[index]
    for position, item in enumerate(rows):
        item.order = position
    siblings.model.objects.bulk_update(rows, ["order"])
    return True


@transaction.atomic
def card_move(*, card: Card, direction: str) -> bool:
    """Move a card one place up or down in its section; False at either end."""
    return _move(card.section.cards.all(), card, direction)


# Sections ----------------------------------------------------------------------------------


@transaction.atomic
def section_create(*, deck: Deck, slug: str, title: str, summary: str = "") -> Section:
    slug = _slug_check("slug", slug)
    if deck.sections.filter(slug=slug).exists():
        raise ValidationError({"slug": f"deck {deck.slug!r} already has a section {slug!r}"})
    title = (title or "").strip()
    if not title:
        raise ValidationError({"title": "title must not be empty"})
    top = deck.sections.aggregate(n=Max("order"))["n"]
    return Section.objects.create(
        deck=deck, slug=slug, title=title, summary=_text(summary),
        order=0 if top is None else top + 1,
    )  # fmt: skip


@transaction.atomic
def section_update(*, section: Section, **fields) -> Section:
    if "slug" in fields:
        slug = _slug_check("slug", fields["slug"])
        if section.deck.sections.filter(slug=slug).exclude(pk=section.pk).exists():
            raise ValidationError({"slug": f"deck already has a section {slug!r}"})
        section.slug = slug
    if "title" in fields:
        section.title = (fields["title"] or "").strip()
        if not section.title:
            raise ValidationError({"title": "title must not be empty"})
    if "summary" in fields:
        section.summary = _text(fields["summary"])
    section.save()
    return section


@transaction.atomic
def section_delete(*, section: Section) -> None:
    count = section.cards.count()
    if count:
        raise ValidationError(
            {"section": f"section {section.slug!r} still has {count} cards; move or delete them"}
        )
    section.delete()


@transaction.atomic
def section_move(*, section: Section, direction: str) -> bool:
    return _move(section.deck.sections.all(), section, direction)


# Decks -------------------------------------------------------------------------------------


def _objectives(value) -> list[str]:
    if isinstance(value, str):
        value = value.splitlines()
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValidationError({"objectives": "objectives must be a list of sentences"})
    return [v.strip() for v in value if v.strip()]


@transaction.atomic
def deck_create(*, user, slug: str, title: str, description: str = "", objectives=()) -> Deck:
    """A new deck starts as a draft; only staff create decks."""
    if not user.is_staff:
        raise PermissionDenied("Only staff may create decks.")
    slug = _slug_check("slug", slug)
    if Deck.objects.filter(slug=slug).exists():
        raise ValidationError({"slug": f"a deck {slug!r} already exists"})
    title = (title or "").strip()
    if not title:
        raise ValidationError({"title": "title must not be empty"})
    return Deck.objects.create(
        slug=slug, title=title, description=_text(description),
        objectives=_objectives(objectives), is_published=False,
    )  # fmt: skip


@transaction.atomic
def deck_update(*, deck: Deck, **fields) -> Deck:
    if "title" in fields:
        deck.title = (fields["title"] or "").strip()
        if not deck.title:
            raise ValidationError({"title": "title must not be empty"})
    if "description" in fields:
        deck.description = _text(fields["description"])
    if "objectives" in fields:
        deck.objectives = _objectives(fields["objectives"])
    if "is_published" in fields:
        deck.is_published = bool(fields["is_published"])
    deck.save()
    return deck


def deck_author_grant(*, deck: Deck, by, username: str) -> DeckAuthor:
    """Let `username` author `deck`; only staff hand out grants."""
    if not by.is_staff:
        raise PermissionDenied("Only staff may choose a deck's authors.")
    user = get_user_model().objects.filter(username=(username or "").strip()).first()
    if user is None:
        raise ValidationError({"username": f"no user is called {username!r}"})
    grant, _ = DeckAuthor.objects.get_or_create(deck=deck, user=user)
    return grant


def deck_author_revoke(*, deck: Deck, by, user_id: int) -> None:
    if not by.is_staff:
        raise PermissionDenied("Only staff may choose a deck's authors.")
    DeckAuthor.objects.filter(deck=deck, user_id=user_id).delete()


# Quiz questions ----------------------------------------------------------------------------


def _question_doc(quiz: Quiz, data: dict[str, Any], index: int = 0):
    card_slugs = set(card_names(quiz.deck))
    try:
        return _parse_question("question", f"quiz {quiz.slug!r}", index, data, card_slugs)
    except ContentError as exc:
        raise ValidationError({"question": exc.problem}) from None


def _question_reload(pk: int) -> Question:
    return Question.objects.prefetch_related("cards", "choices", "statements", "pairs").get(pk=pk)


@transaction.atomic
def question_save(
    *,
    quiz: Quiz,
    data: dict[str, Any],
    author,
    question: Question | None = None,
    note: str = "",
    source: str = Source.EDITOR,
    restored_from: Revision | None = None,
) -> tuple[Question, Revision | None]:
    """Create (question=None) or edit a question from its quiz-file document. Choices keep
    their public keys when their text is unchanged, as a re-seed does."""
    texts = {k: _text(data[k]) for k in ("prompt", "explanation") if isinstance(data.get(k), str)}
    doc = _question_doc(quiz, {**data, **texts})
    clash = quiz.questions.filter(slug=doc.slug)
    if question is not None:
        clash = clash.exclude(pk=question.pk)
    if clash.exists():
        raise ValidationError({"slug": f"quiz {quiz.slug!r} already has a question {doc.slug!r}"})
    cards = card_names(quiz.deck)
    if question is None:
        top = quiz.questions.aggregate(n=Max("order"))["n"]
        order = 0 if top is None else top + 1
        _apply_question(quiz, doc, order, {}, cards)
        question = _question_reload(quiz.questions.get(slug=doc.slug).pk)
        revision = _revision_add(
            question=question, data=question_data(question), author=author,
            note=note or "created", source=source,
        )  # fmt: skip
        return question, revision
    question = _question_reload(question.pk)
    before = question_data(question)
    if doc.slug != question.slug:
        question.slug = doc.slug
        question.save(update_fields=["slug"])
    _apply_question(quiz, doc, question.order, {doc.slug: question}, cards)
    question = _question_reload(question.pk)
    after = question_data(question)
    if after == before:
        return question, None
    _original_keep(question=question, data=before)
    revision = _revision_add(
        question=question, data=after, author=author, note=note, source=source,
        restored_from=restored_from,
    )  # fmt: skip
    return question, revision


QUIZ_FIELDS = ("slug", "title", "kind", "section", "pass_mark", "time_limit_seconds", "shuffle")


@transaction.atomic
def quiz_save(*, deck: Deck, quiz: Quiz | None = None, **fields) -> Quiz:
    """Create or edit a quiz's own fields (its questions are edited one by one)."""
    unknown = set(fields) - set(QUIZ_FIELDS)
    if unknown:
        raise ValidationError({sorted(unknown)[0]: "not a quiz field"})
    quiz = quiz or Quiz(deck=deck, kind=Quiz.Kind.KNOWLEDGE_CHECK)
    if "slug" in fields:
        slug = _slug_check("slug", fields["slug"])
        taken = Quiz.objects.filter(slug=slug).exclude(pk=quiz.pk).first()
        if taken is not None:
            raise ValidationError({"slug": f"quiz slug {slug!r} is taken (deck {taken.deck.slug})"})
        quiz.slug = slug
    if "title" in fields:
        quiz.title = (fields["title"] or "").strip()
    if not quiz.title:
        raise ValidationError({"title": "title must not be empty"})
    if "kind" in fields:
        if fields["kind"] not in Quiz.Kind.values:
            raise ValidationError({"kind": "kind must be checkpoint or knowledge_check"})
        quiz.kind = fields["kind"]
    if "section" in fields:
        slug = fields["section"]
        quiz.section = deck.sections.filter(slug=slug).first() if slug else None
        if slug and quiz.section is None:
            raise ValidationError({"section": f"section {slug!r} is not in deck {deck.slug!r}"})
    if quiz.kind == Quiz.Kind.CHECKPOINT and quiz.section is None:
        raise ValidationError({"section": "a checkpoint needs the section whose page shows it"})
    if "pass_mark" in fields:
        mark = fields["pass_mark"]
        if mark is None or not 0 <= float(mark) <= 1:
            raise ValidationError({"pass_mark": f"pass_mark must be from 0 to 1, got {mark!r}"})
        quiz.pass_mark = round(float(mark), 2)
    if "time_limit_seconds" in fields:
        limit = fields["time_limit_seconds"]
        if limit is not None and not 10 <= int(limit) <= 86400:
            raise ValidationError({"time_limit_seconds": "time limit must be 10 to 86400 seconds"})
        quiz.time_limit_seconds = limit
    if "shuffle" in fields:
        quiz.shuffle = bool(fields["shuffle"])
    if quiz.pk is None:
        top = deck.quizzes.aggregate(n=Max("order"))["n"]
        quiz.order = 0 if top is None else top + 1
    quiz.save()
    return quiz


@transaction.atomic
def quiz_delete(*, quiz: Quiz) -> None:
    """Delete a quiz, refusing when learners have attempts (their history would go)."""
    attempts = quiz.attempts.count()
    if attempts:
        raise ValidationError({"quiz": f"quiz {quiz.slug!r} has {attempts} attempts; keep it"})
    quiz.delete()


@transaction.atomic
def question_move(*, question: Question, direction: str) -> bool:
    """Move a question one place up or down in its quiz (the author's order)."""
    return _move(question.quiz.questions.all(), question, direction)


@transaction.atomic
def question_delete(*, question: Question) -> None:
    question.delete()


@transaction.atomic
def card_questions_link(*, card: Card, questions, author) -> int:
    """Make `questions` (of the card's deck) exactly the ones linked to the card; each
    question whose links change gets a revision. Returns how many changed."""
    wanted = {q.pk for q in questions}
    current = set(card.quiz_questions.values_list("pk", flat=True))
    changed = 0
    for pk in wanted ^ current:
        question = _question_reload(pk)
        if question.quiz.deck_id != card.deck_id:
            raise ValidationError({"questions": f"question {question} is not in this deck"})
        data = question_data(question)
        slugs = set(data["cards"])
        slugs = slugs | {card.slug} if pk in wanted else slugs - {card.slug}
        if not slugs:
            raise ValidationError(
                {"questions": f"question {question} must keep at least one card that teaches it"}
            )
        data["cards"] = sorted(slugs)
        verb = "linked to" if pk in wanted else "unlinked from"
        question_save(
            quiz=question.quiz, question=question, data=data, author=author,
            note=f"{verb} card {card.slug}",
        )  # fmt: skip
        changed += 1
    return changed


@transaction.atomic
def card_demos_link(*, card: Card, demos) -> int:
    """Make `demos` (catalogue slugs) exactly the live demos that illustrate the card; returns
    how many links changed. (`manage.py seed` re-applies the links fixtures/demos names.)"""
    wanted = list(dict.fromkeys(demos))
    unknown = [slug for slug in wanted if get_demo(slug) is None]
    if unknown:
        raise ValidationError({"demos": f"no demo {unknown[0]!r} in the catalogue"})
    current = set(DemoCardLink.objects.filter(card=card).values_list("demo", flat=True))
    removed = current - set(wanted)
    DemoCardLink.objects.filter(card=card, demo__in=removed).delete()
    added = [slug for slug in wanted if slug not in current]
    for slug in added:
        top = DemoCardLink.objects.filter(demo=slug).aggregate(n=Max("order"))["n"]
        DemoCardLink.objects.create(demo=slug, card=card, order=0 if top is None else top + 1)
    return len(removed) + len(added)


# Restore -----------------------------------------------------------------------------------


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
    data = dict(revision.data)
    existing = set(question.quiz.deck.cards.values_list("slug", flat=True))
    data["cards"] = [slug for slug in data.get("cards", []) if slug in existing]
    _, new = question_save(
        quiz=question.quiz, question=question, data=data, author=author, note=note,
        source=Source.RESTORE, restored_from=revision,
    )  # fmt: skip
    return new


# Imports -----------------------------------------------------------------------------------


@transaction.atomic
def deck_import(
    *, doc: DeckDoc, user, dry_run: bool = False, publish: bool = False, progress=None
) -> LoadResult:
    """Apply a whole deck document (from any import format) in one transaction, with a
    revision for every card it creates or changes. A deck new to this site is created as a
    draft unless `publish`; only staff may create decks, authors may update theirs.
    `progress(steps_done)` follows the write for a job's progress bar: two steps per card,
    writing it (deck_apply's) and then its revision."""
    deck = Deck.objects.filter(slug=doc.slug).first()
    if deck is None and not (user is None or user.is_staff):
        raise PermissionDenied(f"Only staff may create a new deck ({doc.slug!r}).")
    if deck is not None and user is not None and not can_author(user, deck):
        raise PermissionDenied(f"You are not an author of deck {deck.slug!r}.")
    before = {}
    if deck is not None:
        before = {c.slug: card_data(c) for c in deck.cards.select_related("section")}
    result = deck_apply(doc, dry_run=dry_run, progress=progress)
    result.warnings = [str(f) for f in lint_documents(dataclasses.asdict(doc), []).findings]
    if dry_run:
        return result
    created = deck is None
    deck = Deck.objects.get(slug=doc.slug)
    if created or publish:
        # deck_apply creates with the model default (published); an import starts as a draft.
        deck.is_published = publish
        deck.save(update_fields=["is_published"])
    author = user if user is not None and user.is_authenticated else None
    first_revisions = []
    rows = sum(len(card_doc.cards()) for section in doc.sections for card_doc in section.cards)
    for done, card in enumerate(deck.cards.select_related("section"), 1):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(rows + done)  # the second pass: revisions
        old = before.get(card.slug)
        now = card_data(card)
        if old == now:
            continue
        if old is None:
            # A card this import created has no history to number or lock: revision 1 of each
            # goes in one batched INSERT (a 10,000-card import wrote them one by one).
            first_revisions.append(
                Revision(
                    card=card,
                    number=1,
                    data=now,
                    author=author,
                    source=Source.IMPORT,
                    note="created by import",
                )  # fmt: skip
            )
            continue
        _original_keep(card=card, data=old)
        _revision_add(
            card=card, data=now, author=user, source=Source.IMPORT, note="changed by import"
        )
    Revision.objects.bulk_create(first_revisions, batch_size=500)
    return result


# Imports as jobs ------------------------------------------------------------------------------


INLINE_IMPORT_MAX_BYTES = 64 * 1024  # a larger file is imported by the worker, as a job


def import_precheck(*, data: bytes, filename: str, fmt: str | None, deck_slug: str | None) -> None:
    """What can be refused at once, in milliseconds, before a job is made: the format, the
    encoding, a deck for csv and anki files (ContentError). The worker checks the rest."""
    from apps.authoring.formats import IMPORT_FORMATS, format_guess, text_decode

    source = filename or "upload"
    fmt = fmt or format_guess(filename)
    if fmt not in IMPORT_FORMATS:
        raise ContentError(
            source, "", f"unknown format {fmt!r}; use one of {', '.join(IMPORT_FORMATS)}"
        )
    if fmt == "apkg":  # a zip: its structure and size are checked here, its notes later
        try:
            apkg_precheck(data)
        except ApkgError as exc:
            raise ContentError(source, "", str(exc)) from None
    else:
        text_decode(data, source)
    if fmt in ("csv", "anki") and not deck_slug:
        raise ContentError(source, "", f"a {fmt} file has no deck: name the deck to import into")


class ImportBusy(Exception):
    """Another import of the same deck is queued or running (409)."""


def _busy_message(deck_slug: str) -> str:
    return (
        f"Another import of deck {deck_slug!r} is queued or running; wait for it to finish "
        "(its progress is on the import page), then import again."
    )


def import_job_create(
    *, user, data: bytes, filename: str, options: dict, dry_run: bool = False
) -> ImportJob:
    """Store an upload as an ImportJob and hand it to the worker once committed. `options`:
    fmt, deck_slug, deck_title, section, publish. A second job for a deck that has one queued or
    running is refused with ImportBusy (a dry run never is: it writes nothing)."""
    deck_slug = options.get("deck_slug", "") or ""
    with transaction.atomic():
        if (
            deck_slug
            and ImportJob.objects.filter(deck_slug=deck_slug, status__in=ImportJob.ACTIVE).exists()
        ):
            raise ImportBusy(_busy_message(deck_slug))
        try:
            with transaction.atomic():
                job = ImportJob.objects.create(
                    user=user, deck_slug=deck_slug, filename=filename, data=data,
                    dry_run=dry_run, options={k: v for k, v in options.items() if k != "deck_slug"},
                )  # fmt: skip
        except IntegrityError:  # a second tab won the race for the deck
            raise ImportBusy(_busy_message(deck_slug)) from None
        transaction.on_commit(lambda: _import_job_enqueue(job))
    return job


def _import_job_enqueue(job: ImportJob) -> None:
    from apps.authoring.tasks import import_job_run_task

    try:
        import_job_run_task.delay(job.pk)
    except Exception as exc:
        log.exception("could not send import job %s to the broker", job.pk)
        error = (
            "Nothing was imported: the task broker did not answer "
            f"({type(exc).__name__}). Try again in a minute."
        )
        _import_job_fail(job.pk, error)
        job.status, job.error = ImportJob.Status.FAILED, error


def _import_job_fail(job_id: int, error: str) -> None:
    ImportJob.objects.filter(pk=job_id, status__in=ImportJob.ACTIVE).update(
        status=ImportJob.Status.FAILED, error=error, finished_at=timezone.now()
    )


def import_job_time_out(*, job_id: int, seconds: int) -> None:
    _import_job_fail(
        job_id, f"Nothing was imported: the import took longer than {seconds} s. Split the file."
    )


def _progress_key(job_id: int) -> str:
    return f"import-job-progress:{job_id}"


def import_job_progress(job: ImportJob) -> float:
    """0..1: 1 once finished; while running, the share of cards written so far (kept in the
    cache by the worker, outside the import's transaction, so the page can see it)."""
    if job.finished:
        return 1.0
    if job.status == ImportJob.Status.QUEUED or not job.rows_total:
        return 0.0
    done = cache.get(_progress_key(job.pk)) or 0
    return min(0.99, done / (2 * job.rows_total))  # two steps per card (deck_import)


def import_job_run(*, job_id: int) -> str | None:
    """The worker's side: claim a queued job, parse its file, write it in one transaction and
    record the counts (or the reason nothing was imported). Idempotent: a job already claimed
    or finished is left alone."""
    from apps.authoring.formats import import_document

    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING, started_at=timezone.now()
    )
    if claimed != 1:
        return None
    job = ImportJob.objects.select_related("user").get(pk=job_id)
    options = job.options
    try:
        doc = import_document(
            bytes(job.data), filename=job.filename, fmt=options.get("fmt"),
            deck_slug=job.deck_slug, deck_title=options.get("deck_title", ""),
            section=options.get("section", ""),
        )  # fmt: skip
        rows = sum(len(card.cards()) for s in doc.sections for card in s.cards)
        try:
            with transaction.atomic():
                ImportJob.objects.filter(pk=job_id).update(deck_slug=doc.slug, rows_total=rows)
        except IntegrityError:
            _import_job_fail(job_id, f"Nothing was imported. {_busy_message(doc.slug)}")
            return ImportJob.Status.FAILED
        job.rows_total = rows

        def progress(done: int) -> None:
            cache.set(_progress_key(job_id), done, 3600)

        with transaction.atomic():
            result = deck_import(
                doc=doc, user=job.user, dry_run=job.dry_run,
                publish=bool(options.get("publish")), progress=progress,
            )  # fmt: skip
    except ContentError as exc:
        _import_job_fail(job_id, f"Nothing was imported. {exc}")
        return ImportJob.Status.FAILED
    except (PermissionDenied, ValidationError) as exc:
        message = " ".join(getattr(exc, "messages", [str(exc)]))
        _import_job_fail(job_id, f"Nothing was imported. {message}")
        return ImportJob.Status.FAILED
    ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.RUNNING).update(
        status=ImportJob.Status.SUCCEEDED, finished_at=timezone.now(),
        result={"deck": result.deck, "dry_run": job.dry_run, "created": result.created,
                "changed": result.changed, "unchanged": result.unchanged,
                "changed_slugs": result.changed_slugs, "created_slugs": result.created_slugs,
                "retired": result.retired, "warnings": result.warnings,
                "notes": list(getattr(doc, "notes", [])), "summary": str(result)},
    )  # fmt: skip
    cache.delete(_progress_key(job_id))
    return ImportJob.Status.SUCCEEDED
