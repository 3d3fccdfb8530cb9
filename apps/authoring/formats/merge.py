"""Rows merged into a deck's current content, and a whole import file read into a DeckDoc."""

import json
from pathlib import Path

from django.conf import settings
from django.utils.text import slugify

from apps.authoring.formats.anki import anki_html_to_text, anki_rows, apkg_rows
from apps.authoring.formats.rows import (
    IMPORT_FORMATS,
    JSON_NUL,
    TITLE_MAX,
    CardRow,
    csv_rows,
    format_guess,
    limit_text,
    nul_refuse,
    text_decode,
)
from apps.decks.content import (
    MAX_FILE_BYTES,
    SLUG_RE,
    CardDoc,
    ContentError,
    DeckDoc,
    SectionDoc,
    deck_document,
    note_check,
    parse_deck,
    read_yaml,
)
from apps.decks.markdown import ClozeError, media_names, render_markdown
from apps.decks.models import Deck
from config import limits


def _deck_doc_of(deck: Deck) -> DeckDoc:
    """The deck's current content as a DeckDoc, for merging rows into."""
    document = deck_document(deck)
    return DeckDoc(
        slug=document["slug"],
        title=document["title"],
        description=document["description"],
        objectives=document["objectives"],
        sections=[
            SectionDoc(
                slug=s["slug"],
                title=s["title"],
                summary=s["summary"],
                concepts=[(c["question"], c["explanation"]) for c in s["concepts"]],
                cards=[CardDoc(**c) for c in s["cards"]],
            )
            for s in document["sections"]
        ],
    )


def rows_merge(
    rows: list[CardRow], *, deck_slug: str, deck_title: str = "", source: str
) -> DeckDoc:
    """The deck's content with the rows applied (see the module docstring)."""
    deck = Deck.objects.filter(slug=deck_slug).first()
    if deck is not None:
        doc = _deck_doc_of(deck)
    else:
        if not SLUG_RE.match(deck_slug or ""):
            raise ContentError(source, "", f"deck slug {deck_slug!r} must be like ray-basics")
        title = deck_title or deck_slug.replace("-", " ").capitalize()
        if len(title) > TITLE_MAX:
            raise ContentError(source, "", f"deck title is longer than {TITLE_MAX} characters")
        doc = DeckDoc(slug=deck_slug, title=title, description="", objectives=[], sections=[])
    by_slug = {s.slug: s for s in doc.sections}
    by_title = {s.title.strip().lower(): s for s in doc.sections}
    where = {c.slug: s for s in doc.sections for c in s.cards}

    def section_for(row: CardRow) -> SectionDoc:
        section = by_slug.get(row.section) or by_title.get(row.section.lower())
        if section is not None:
            return section
        slug = slugify(row.section)[:80].strip("-")
        if not slug:
            raise ContentError(
                source, f"line {row.line}", f"section {row.section!r} has no letters"
            )
        if slug not in by_slug:
            title = row.section_title or row.section
            if len(title) > TITLE_MAX:
                problem = f"section title is longer than {TITLE_MAX} characters"
                raise ContentError(source, f"line {row.line}", problem)
            by_slug[slug] = SectionDoc(slug=slug, title=title, summary="", concepts=[], cards=[])
            doc.sections.append(by_slug[slug])
            by_title[title.lower()] = by_slug[slug]
        return by_slug[slug]

    def text_for(markdown: str, text: str, row: CardRow) -> str:
        # Anki's text of a field we exported is our Markdown rendered and stripped of tags; when
        # it still is exactly that, the note was not edited there: keep the Markdown.
        shown = {name: name for name in media_names(markdown)}  # as the export writes images
        same = row.from_anki and anki_html_to_text(render_markdown(markdown, media=shown)) == text
        return markdown if same else text

    for row in rows:
        old_section = where.get(row.slug)
        if old_section is not None:
            card = next(c for c in old_section.cards if c.slug == row.slug)
            card.front = text_for(card.front, row.front, row)
            card.back = text_for(card.back, row.back, row)
            card.tags = row.tags
            if row.why is not None:
                card.why = text_for(card.why, row.why, row)
            if row.kind is not None:
                card.kind = row.kind
            if row.source is not None:
                card.source = row.source
            if row.type_answer is not None:
                card.type_answer = row.type_answer
            section = section_for(row) if row.section_given else old_section
            if old_section is not section:
                old_section.cards.remove(card)
                section.cards.append(card)
        else:
            section = section_for(row)
            card = CardDoc(
                slug=row.slug, front=row.front, back=row.back, why=row.why or "", tags=row.tags,
                kind=row.kind or "basic", source=row.source or "",
                type_answer=bool(row.type_answer),
            )  # fmt: skip
            section.cards.append(card)
        where[row.slug] = section
    for section in doc.sections:
        for card in section.cards:
            try:
                note_check(card)
            except (ValueError, ClozeError) as exc:
                raise ContentError(source, f"card {card.slug!r}", str(exc)) from None
    return doc


def import_document(
    data: bytes,
    *,
    filename: str,
    fmt: str | None = None,
    deck_slug: str = "",
    deck_title: str = "",
    section: str = "",
) -> DeckDoc:
    """Read and check a whole import file; raises ContentError naming the line or entry."""
    source = Path(filename).name or "upload"
    fmt = fmt or format_guess(filename)
    if fmt not in IMPORT_FORMATS:
        raise ContentError(
            source,
            "",
            f"unknown format {fmt!r}; use one of {', '.join(IMPORT_FORMATS)}"
            " (or a file ending in .yaml, .json, .csv, .txt or .apkg)",
        )
    if fmt == "apkg":
        if len(data) > MAX_FILE_BYTES:
            raise ContentError(
                source, "", f"the file is larger than {limit_text()}, the import limit"
                " (export fewer notes from Anki, or the deck in parts)",
            )  # fmt: skip
        rows, anki_deck, notes, media = apkg_rows(
            data, source, section=section, media_max_bytes=settings.MEDIA_MAX_BYTES
        )
        if not rows:
            raise ContentError(source, "", "the package has no cards to import")
        deck_slug = deck_slug or slugify(anki_deck)[:80].strip("-")
        if not deck_slug:
            raise ContentError(source, "", "name the deck to import into (deck slug)")
        doc = rows_merge(
            rows, deck_slug=deck_slug, deck_title=deck_title or anki_deck[:TITLE_MAX],
            source=source,
        )  # fmt: skip
        doc.notes, doc.media = notes, media
        return doc
    text = text_decode(data, source)
    if fmt in ("yaml", "json"):
        if fmt == "json":
            match = JSON_NUL.search(text)
            nul_refuse(text, match.start() if match else -1, source)
            try:
                limits.json_depth_check(text)
            except limits.NestingTooDeep as exc:
                problem = f"nested more than {limits.MAX_NESTING} levels deep"
                raise ContentError(source, exc.where, problem) from None
            try:
                data_doc = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ContentError(
                    source, f"line {exc.lineno}", f"not valid JSON ({exc.msg})"
                ) from None
        else:
            data_doc = read_yaml(text, source)
        return parse_deck(data_doc, source)
    if not deck_slug:
        raise ContentError(source, "", f"a {fmt} file has no deck: name the deck to import into")
    rows = csv_rows(text, source) if fmt == "csv" else anki_rows(text, source, section=section)
    if not rows:
        raise ContentError(source, "", "the file has no cards")
    return rows_merge(rows, deck_slug=deck_slug, deck_title=deck_title, source=source)
