"""Deck files: the readable, slug-based format of fixtures/decks/*.yaml, read and written.

`manage.py seed` and imports go through `deck_file_load`; exports through `deck_document`. A file is
validated whole before anything is written, and applied in one transaction, upserting by slug, so a
re-run changes nothing and no learner's progress is ever reset (cards keep their rows).
"""

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.db import transaction

from apps.decks.models import Card, Concept, Deck, Section
from config import limits

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_FILE_BYTES = 2 * 1024 * 1024
SECTION_KEYS = {"slug", "title", "summary", "concepts", "cards"}
CONCEPT_KEYS = {"question", "explanation"}


class ContentError(Exception):
    """A content file was refused; the message names the file, the entry and the problem."""

    def __init__(self, source: str, entry: str, problem: str):
        self.source, self.entry, self.problem = source, entry, problem
        where = f"{source}: {entry}" if entry else source
        super().__init__(f"{where}: {problem}")


@dataclass
class CardDoc:
    slug: str
    front: str
    back: str
    why: str = ""
    tags: list[str] = field(default_factory=list)


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


@dataclass
class LoadResult:
    deck: str
    created: int = 0
    changed: int = 0
    unchanged: int = 0
    changed_slugs: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return (
            f"{self.deck}: {self.created} new, {self.changed} changed, "
            f"{self.unchanged} unchanged cards"
        )


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
        raise ContentError(source, where, f"not valid YAML ({problem})") from None


class _Reader:
    """Checks one mapping's keys and types, naming the entry in every error."""

    def __init__(self, source: str, entry: str, data: Any, allowed: set[str]):
        self.source, self.entry = source, entry
        if not isinstance(data, dict):
            self.fail(f"expected a mapping, got {type(data).__name__}")
        unknown = sorted(set(data) - allowed)
        if unknown:
            self.fail(f"unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")
        self.data = data

    def fail(self, problem: str):
        raise ContentError(self.source, self.entry, problem)

    def text(self, key: str, *, required: bool = True, max_length: int | None = None) -> str:
        value = self.data.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.fail(f"{key!r} is missing or empty")
            return ""
        if not isinstance(value, str):
            self.fail(f"{key!r} must be text, got {type(value).__name__}")
        if max_length and len(value) > max_length:
            self.fail(f"{key!r} is longer than {max_length} characters")
        return value.strip()

    def slug(self, key: str = "slug") -> str:
        value = self.text(key, max_length=80)
        if not SLUG_RE.match(value):
            self.fail(f"{key} {value!r} must be lowercase words joined by hyphens, e.g. ray-task")
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

    def strings(self, key: str) -> list[str]:
        values = self.items(key, required=False)
        if not all(isinstance(v, str) and v.strip() for v in values):
            self.fail(f"every item of {key!r} must be non-empty text")
        return [v.strip() for v in values]


def parse_deck(data: Any, source: str) -> DeckDoc:
    """Validate a deck document whole; raises ContentError at the first problem."""
    top = _Reader(source, "deck", data, {"slug", "title", "description", "objectives", "sections"})
    deck_slug = top.slug()
    sections: list[SectionDoc] = []
    section_slugs: set[str] = set()
    card_slugs: set[str] = set()
    raw_sections = top.items("sections")
    if not raw_sections:
        top.fail("a deck needs at least one section")
    for i, raw in enumerate(raw_sections):
        r = _Reader(
            source, f"sections[{i}]", raw, {"slug", "title", "summary", "concepts", "cards"}
        )
        slug = r.slug()
        r.entry = f"section {slug!r}"
        if slug in section_slugs:
            r.fail(f"duplicate section slug {slug!r}")
        section_slugs.add(slug)
        concepts = []
        for j, raw_concept in enumerate(r.items("concepts", required=False)):
            c = _Reader(
                source, f"{r.entry} concepts[{j}]", raw_concept, {"question", "explanation"}
            )
            concepts.append((c.text("question", max_length=300), c.text("explanation")))
        cards = []
        for j, raw_card in enumerate(r.items("cards", required=False)):
            c = _Reader(
                source, f"{r.entry} cards[{j}]", raw_card, {"slug", "front", "back", "why", "tags"}
            )
            card_slug = c.slug()
            c.entry = f"card {card_slug!r}"
            if card_slug in card_slugs:
                c.fail(f"duplicate card slug {card_slug!r} (card slugs are unique in a deck)")
            card_slugs.add(card_slug)
            cards.append(
                CardDoc(
                    slug=card_slug,
                    front=c.text("front"),
                    back=c.text("back"),
                    why=c.text("why", required=False),
                    tags=c.strings("tags"),
                )
            )
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


def _card_fields(doc: CardDoc, section: Section, order: int) -> dict[str, Any]:
    return {
        "section": section,
        "order": order,
        "front": doc.front,
        "back": doc.back,
        "why": doc.why,
        "tags": doc.tags,
    }


@transaction.atomic
def deck_apply(doc: DeckDoc, *, dry_run: bool = False, progress=None) -> LoadResult:
    """Upsert the deck by slugs. With dry_run, count what would change and write nothing.
    `progress(cards_done)`, if given, is called every PROGRESS_EVERY cards."""
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
    existing_cards = {c.slug: c for c in deck.cards.all()}
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
        for card_order, card_doc in enumerate(section_doc.cards):
            wanted = _card_fields(card_doc, section, card_order)
            card = existing_cards.get(card_doc.slug)
            if card is None:
                Card.objects.create(deck=deck, slug=card_doc.slug, **wanted)
                result.created += 1
            elif any(getattr(card, k) != v for k, v in wanted.items()):
                for k, v in wanted.items():
                    setattr(card, k, v)
                card.save()
                result.changed += 1
                result.changed_slugs.append(card.slug)
            else:
                result.unchanged += 1
            done += 1
            if progress is not None and done % PROGRESS_EVERY == 0:
                progress(done)
    if dry_run:
        transaction.set_rollback(True)
    return result


def deck_file_load(path: Path, *, dry_run: bool = False) -> LoadResult:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ContentError(source, "", f"cannot read file ({exc})") from None
    return deck_apply(parse_deck(read_yaml(text, source), source), dry_run=dry_run)


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
                "cards": [
                    {"slug": c.slug, "front": c.front, "back": c.back, "why": c.why, "tags": c.tags}
                    for c in s.cards.all()
                ],
            }
            for s in sections
        ],
    }
