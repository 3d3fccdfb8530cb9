"""Deck files: the readable, slug-based format of fixtures/decks/*.yaml, read and written.

`manage.py seed` and imports go through `deck_file_load`; exports through `deck_document`. A file is
validated whole before anything is written, and applied in one transaction, upserting by slug, so a
re-run changes nothing and no learner's progress is ever reset (cards keep their rows).

A card entry is a note: `kind: basic` (the default) is one card, `reverse` two (`<slug>` and
`<slug>-reverse`), `cloze` one per distinct deletion index (`<slug>-c<N>`). A card the file no
longer has is retired: it keeps its row and its learners' history but leaves the deck, the
queues and the quizzes; it comes back, schedule and all, if a later file has its slug again.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import yaml
from django.db import transaction
from django.utils import timezone

from apps.decks.markdown import ClozeError, cloze_indices
from apps.decks.models import Card, Concept, Deck, Section
from config import limits

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# What every slug check says (files, the API's serializers, the author services).
SLUG_RULE = "must be lowercase words joined by hyphens, e.g. ray-task"
MAX_FILE_BYTES = 2 * 1024 * 1024
SECTION_KEYS = {"slug", "title", "summary", "concepts", "cards"}
CONCEPT_KEYS = {"question", "explanation"}
CARD_KEYS = {"slug", "kind", "front", "back", "why", "source", "tags", "type_answer"}
KINDS = tuple(Card.Kind.values)


class ContentError(Exception):
    """A content file was refused; the message names the file, the entry and the problem."""

    def __init__(self, source: str, entry: str, problem: str):
        self.source, self.entry, self.problem = source, entry, problem
        where = f"{source}: {entry}" if entry else source
        super().__init__(f"{where}: {problem}")


@dataclass
class CardDoc:
    """One note of a deck file: a basic card, a reversed pair, or a cloze text."""

    slug: str
    front: str
    back: str
    why: str = ""
    tags: list[str] = field(default_factory=list)
    kind: str = "basic"
    source: str = ""
    type_answer: bool = False

    def cards(self) -> list[tuple[str, int]]:
        """(slug, ordinal) of each scheduled card this note makes; ClozeError for bad markup."""
        if self.kind == "cloze":
            return [(f"{self.slug}-c{n}", n) for n in cloze_indices(self.front)]
        if self.kind == "reverse":
            return [(self.slug, 1), (f"{self.slug}-reverse", 2)]
        return [(self.slug, 1)]


def note_check(doc: CardDoc) -> list[tuple[str, int]]:
    """The note's cards, or a ValueError saying what is wrong with its kind or markup."""
    if doc.kind not in KINDS:
        raise ValueError(f"kind {doc.kind!r} must be one of {', '.join(KINDS)}")
    if doc.kind != "cloze" and not doc.back.strip():
        raise ValueError("'back' is missing or empty")
    return doc.cards()


@dataclass
class SectionDoc:
    slug: str
    title: str
    summary: str
    concepts: list[tuple[str, str]]
    cards: list[CardDoc]


@dataclass
class DeckDoc:
    slug: str
    title: str
    description: str
    objectives: list[str]
    sections: list[SectionDoc]
    # What an import left out or changed on the way, for its preview (e.g. .apkg media).
    notes: list[str] = field(default_factory=list)
    # Images an import brings (an .apkg's media the notes name), by name: checked and stored
    # with the deck by the import (apps.authoring.services.media).
    media: dict[str, bytes] = field(default_factory=dict)


@dataclass
class LoadResult:
    deck: str
    created: int = 0
    changed: int = 0
    unchanged: int = 0
    changed_slugs: list[str] = field(default_factory=list)
    created_slugs: list[str] = field(default_factory=list)
    # Cards the file no longer has, retired: slug -> how many learners had progress on it.
    retired: dict[str, int] = field(default_factory=dict)
    # What the content lint (apps.quizzes.lint) says about the file, for the author to see.
    warnings: list[str] = field(default_factory=list)

    @property
    def retired_learners(self) -> int:
        return sum(self.retired.values())

    def __str__(self) -> str:
        text = (
            f"{self.deck}: {self.created} new, {self.changed} changed, "
            f"{self.unchanged} unchanged cards"
        )
        if self.retired:
            text += (
                f", {len(self.retired)} retired ({self.retired_learners} learner"
                f" progress record{'s' if self.retired_learners != 1 else ''} kept)"
            )
        return text


PROGRESS_EVERY = 250  # cards between two progress reports of deck_apply


class _NoAliasLoader(yaml.SafeLoader):
    """Content files never need anchors and aliases; refusing them stops a small file from
    expanding into millions of entries (a "billion laughs") that no size limit would catch.
    Nesting is bounded by config.limits (the composer recurses once per level)."""

    depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed", mark)
        self.depth += 1
        try:
            limits.nesting_refuse(self.depth)
        except limits.NestingTooDeep as exc:
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(None, None, str(exc), mark) from None
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def read_yaml(text: str, source: str) -> Any:
    if len(text.encode()) > MAX_FILE_BYTES:
        raise ContentError(source, "", f"file is larger than {MAX_FILE_BYTES // 1024} KiB")
    try:
        return yaml.load(text, Loader=_NoAliasLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        line = text.splitlines()[mark.line] if mark and mark.line < len(text.splitlines()) else ""
        if "{{" in line:
            problem += "; a text starting with {{ (a cloze) must be in quotes or a |- block"
        raise ContentError(source, where, f"not valid YAML ({problem})") from None


LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class DocReader:
    """Checks one mapping's keys and types, naming the entry in every error."""

    def __init__(self, source: str, entry: str, data: Any, allowed: set[str]):
        self.source, self.entry = source, entry
        if not isinstance(data, dict):
            self.fail(f"expected a mapping, got {type(data).__name__}")
        unknown = sorted(set(data) - allowed)
        if unknown:
            self.fail(f"unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")
        self.data = data

    def fail(self, problem: str) -> NoReturn:
        raise ContentError(self.source, self.entry, problem)

    def text(self, key: str, *, required: bool = True, max_length: int | None = None) -> str:
        value = self.data.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.fail(f"{key!r} is missing or empty")
            return ""
        if isinstance(value, (dict, list)):
            # `front: {{c1::Ray}} is ...` is a YAML mapping: a cloze text must be quoted.
            self.fail(f"{key!r} must be text, got {type(value).__name__} (put text that starts"
                      " with { or [ in quotes, or use a |- block)")  # fmt: skip
        if not isinstance(value, str):
            self.fail(f"{key!r} must be text, got {type(value).__name__}")
        self.no_surrogate(key, value)
        if max_length and len(value) > max_length:
            self.fail(f"{key!r} is longer than {max_length} characters")
        return value.strip()

    def slug(self, key: str = "slug") -> str:
        value = self.text(key, max_length=80)
        if not SLUG_RE.match(value):
            self.fail(f"{key} {value!r} {SLUG_RULE}")
        return value

    def items(self, key: str, *, required: bool = True) -> list:
        value = self.data.get(key)
        if value is None:
            if required:
                self.fail(f"{key!r} is missing")
            return []
        if not isinstance(value, list):
            self.fail(f"{key!r} must be a list")
        return value

    def flag(self, key: str) -> bool:
        value = self.data.get(key, False)
        if not isinstance(value, bool):
            self.fail(f"{key!r} must be true or false, got {value!r}")
        return value

    def strings(self, key: str) -> list[str]:
        values = self.items(key, required=False)
        if not all(isinstance(v, str) and v.strip() for v in values):
            self.fail(f"every item of {key!r} must be non-empty text")
        for value in values:
            self.no_surrogate(key, value)
        return [v.strip() for v in values]

    def no_surrogate(self, key: str, value: str) -> None:
        # A "\ud800" escape without its pair is no character: no database can store it.
        if LONE_SURROGATE.search(value):
            self.fail(f"{key!r} holds a lone surrogate (a \\ud800-\\udfff escape without its"
                      " pair), which is not a character")  # fmt: skip


def parse_deck(data: Any, source: str) -> DeckDoc:
    """Validate a deck document whole; raises ContentError at the first problem."""
    top = DocReader(
        source, "deck", data, {"slug", "title", "description", "objectives", "sections"}
    )
    deck_slug = top.slug()
    sections: list[SectionDoc] = []
    section_slugs: set[str] = set()
    card_slugs: set[str] = set()
    raw_sections = top.items("sections")
    if not raw_sections:
        top.fail("a deck needs at least one section")
    for i, raw in enumerate(raw_sections):
        r = DocReader(
            source, f"sections[{i}]", raw, {"slug", "title", "summary", "concepts", "cards"}
        )
        slug = r.slug()
        r.entry = f"section {slug!r}"
        if slug in section_slugs:
            r.fail(f"duplicate section slug {slug!r}")
        section_slugs.add(slug)
        concepts = []
        for j, raw_concept in enumerate(r.items("concepts", required=False)):
            c = DocReader(
                source, f"{r.entry} concepts[{j}]", raw_concept, {"question", "explanation"}
            )
            concepts.append((c.text("question", max_length=300), c.text("explanation")))
        cards = []
        for j, raw_card in enumerate(r.items("cards", required=False)):
            c = DocReader(source, f"{r.entry} cards[{j}]", raw_card, CARD_KEYS)
            card_slug = c.slug()
            c.entry = f"card {card_slug!r}"
            kind = c.text("kind", required=False) or "basic"
            doc = CardDoc(
                slug=card_slug,
                kind=kind,
                front=c.text("front"),
                back=c.text("back", required=False),
                why=c.text("why", required=False),
                source=c.text("source", required=False, max_length=500),
                tags=c.strings("tags"),
                type_answer=c.flag("type_answer"),
            )
            try:
                made = note_check(doc)
            except (ValueError, ClozeError) as exc:
                c.fail(str(exc))
            for made_slug, _ in made:
                if made_slug in card_slugs:
                    c.fail(f"duplicate card slug {made_slug!r} (card slugs are unique in a deck)")
                card_slugs.add(made_slug)
            cards.append(doc)
        sections.append(
            SectionDoc(
                slug=slug,
                title=r.text("title", max_length=200),
                summary=r.text("summary", required=False),
                concepts=concepts,
                cards=cards,
            )
        )
    return DeckDoc(
        slug=deck_slug,
        title=top.text("title", max_length=200),
        description=top.text("description", required=False),
        objectives=top.strings("objectives"),
        sections=sections,
    )


def _card_fields(doc: CardDoc, ordinal: int, section: Section, order: int) -> dict[str, Any]:
    return {
        "section": section,
        "order": order,
        "kind": doc.kind,
        "note_slug": doc.slug,
        "ordinal": ordinal,
        "front": doc.front,
        "back": doc.back,
        "why": doc.why,
        "source": doc.source,
        "tags": doc.tags,
        "type_answer": doc.type_answer,
        "retired_at": None,
    }


HTML_FIELDS = ("front_html", "back_html", "why_html")


def _rerender(card: Card) -> None:
    """A card whose text is unchanged keeps its row and its timestamp, but its stored HTML
    follows the renderer: a fix there (a cloze blank in code, math that was a link) reaches
    cards seeded before it on the next seed."""
    before = [getattr(card, f) for f in HTML_FIELDS]
    card.render()
    after = [getattr(card, f) for f in HTML_FIELDS]
    if after != before:
        Card.objects.filter(pk=card.pk).update(**dict(zip(HTML_FIELDS, after, strict=True)))


def cards_retire(cards: list[Card], *, learners_of=None, now=None) -> dict[str, int]:
    """Retire cards (their rows, schedules and review history stay): slug -> learners.
    `learners_of(cards) -> {card id: learners with progress}` is the caller's: learners' progress
    lives in an app built on this one (authoring passes study's count); without it, 0 each."""
    if not cards:
        return {}
    learners = learners_of(cards) if learners_of is not None else {}
    Card.all_objects.filter(pk__in=[c.pk for c in cards]).update(retired_at=now or timezone.now())
    return {c.slug: learners.get(c.pk, 0) for c in cards}


@transaction.atomic
def deck_apply(
    doc: DeckDoc, *, dry_run: bool = False, progress=None, learners_of=None
) -> LoadResult:
    """Upsert the deck by slugs and retire the cards it no longer has. With dry_run, count
    what would change and write nothing. `progress(cards_done)`, if given, is called every
    PROGRESS_EVERY cards; `learners_of` counts the retired cards' learners (cards_retire)."""
    result = LoadResult(deck=doc.slug)
    done = 0
    deck, _ = Deck.objects.get_or_create(slug=doc.slug, defaults={"title": doc.title})
    if (deck.title, deck.description, deck.objectives) != (
        doc.title,
        doc.description,
        doc.objectives,
    ):
        deck.title, deck.description, deck.objectives = doc.title, doc.description, doc.objectives
        deck.save()
    existing_sections = {s.slug: s for s in deck.sections.all()}
    existing_cards = {c.slug: c for c in Card.all_objects.filter(deck=deck)}
    for known in existing_cards.values():
        known.deck = deck  # one deck object: its images are looked up once for all its cards
    kept: set[str] = set()
    new_cards: list[Card] = []
    for order, section_doc in enumerate(doc.sections):
        section = existing_sections.get(section_doc.slug)
        wanted_section = (order, section_doc.title, section_doc.summary)
        if section is None or (section.order, section.title, section.summary) != wanted_section:
            section = section or Section(deck=deck, slug=section_doc.slug)
            section.order, section.title, section.summary = wanted_section
            section.save()
        current = [(c.question, c.explanation) for c in section.concepts.all()]
        if current != section_doc.concepts:
            section.concepts.all().delete()
            for i, (question, explanation) in enumerate(section_doc.concepts):
                Concept.objects.create(
                    section=section, order=i, question=question, explanation=explanation
                )
        card_order = 0
        for card_doc in section_doc.cards:
            for slug, ordinal in card_doc.cards():
                wanted = _card_fields(card_doc, ordinal, section, card_order)
                card_order += 1
                kept.add(slug)
                card = existing_cards.get(slug)
                if card is None:
                    card = Card(deck=deck, slug=slug, **wanted)
                    card.render()  # what save() does; bulk_create below calls no save()
                    new_cards.append(card)
                    result.created += 1
                    result.created_slugs.append(slug)
                elif any(getattr(card, k) != v for k, v in wanted.items()):
                    for k, v in wanted.items():
                        setattr(card, k, v)
                    card.save()
                    result.changed += 1
                    result.changed_slugs.append(card.slug)
                else:
                    _rerender(card)
                    result.unchanged += 1
                done += 1
                if progress is not None and done % PROGRESS_EVERY == 0:
                    progress(done)
    # New cards in one INSERT per batch, in file order (ids follow it: the lesson's order).
    Card.objects.bulk_create(new_cards, batch_size=500)
    gone = [c for slug, c in existing_cards.items() if slug not in kept and not c.retired_at]
    result.retired = cards_retire(gone, learners_of=learners_of)
    if dry_run:
        transaction.set_rollback(True)
    return result


def deck_file_load(path: Path, *, dry_run: bool = False, learners_of=None) -> LoadResult:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ContentError(source, "", f"cannot read file ({exc})") from None
    doc = parse_deck(read_yaml(text, source), source)
    return deck_apply(doc, dry_run=dry_run, learners_of=learners_of)


def deck_document(deck: Deck) -> dict[str, Any]:
    """The deck as a document in the file format; loading it back gives identical content."""
    sections = deck.sections.prefetch_related("concepts", "cards")
    return {
        "slug": deck.slug,
        "title": deck.title,
        "description": deck.description,
        "objectives": list(deck.objectives),
        "sections": [
            {
                "slug": s.slug,
                "title": s.title,
                "summary": s.summary,
                "concepts": [
                    {"question": c.question, "explanation": c.explanation} for c in s.concepts.all()
                ],
                "cards": [note_document(c) for c in s.cards.all() if note_head(c)],
            }
            for s in sections
        ],
    }


def note_head(card: Card) -> bool:
    """Whether the card is its note's first: the one that speaks for the note in a document
    or an export (a reverse note's forward card, a cloze note's lowest index)."""
    if card.kind == Card.Kind.CLOZE:
        indices = cloze_indices_or_none(card.front)
        return not indices or card.ordinal == indices[0]
    return card.ordinal == 1


def cloze_indices_or_none(text: str) -> list[int] | None:
    try:
        return cloze_indices(text)
    except ClozeError:
        return None


def note_document(card: Card) -> dict[str, Any]:
    """A card's note as a deck file entry (kind and source only when they say something)."""
    entry: dict[str, Any] = {"slug": card.note_slug or card.slug}
    if card.kind != Card.Kind.BASIC:
        entry["kind"] = card.kind
    entry |= {"front": card.front, "back": card.back, "why": card.why}
    if card.source:
        entry["source"] = card.source
    entry["tags"] = card.tags
    if card.type_answer:
        entry["type_answer"] = True
    return entry
