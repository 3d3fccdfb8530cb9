"""Deck import and export formats, turned into (and out of) the deck file format's DeckDoc.

Import: our own deck format (YAML, or JSON, which is YAML too), CSV, Anki's text export and
Anki's package (.apkg, read by apps.authoring.apkg).
Export: our own format (YAML or JSON; loading it back gives identical content), CSV, and an Anki
package (.apkg). Every import file is at most MAX_FILE_BYTES (2 MiB). Errors are ContentErrors
naming the file, the line or entry, and the problem; nothing is written before a whole file
has been read and checked.

CSV and Anki rows merge into the deck's current content: a row whose slug the deck already
has updates that card's front, back and tags (and moves it to the row's section); other rows
are appended to their section; cards the file does not mention stay as they are. A row is a
note: its kind (CSV `kind` column; Anki's note type: Cloze, "and reversed") and source
(CSV `source` column; the 5th field of RayDeck's own note types) come with it. A CSV export
puts a ' before any cell a spreadsheet would run as a formula (=, +, -, @); the import takes it
off again.
"""

import csv
import hashlib
import html
import io
import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import genanki
import yaml
from django.core.files.uploadhandler import FileUploadHandler
from django.utils.text import slugify

from apps.authoring.apkg import ApkgCard, ApkgError, apkg_read, card_key, deck_path, note_key
from apps.decks.content import (
    MAX_FILE_BYTES,
    SLUG_RE,
    CardDoc,
    ContentError,
    DeckDoc,
    SectionDoc,
    deck_document,
    note_check,
    note_head,
    parse_deck,
    read_yaml,
)
from apps.decks.markdown import CLOZE_RE, ClozeError, card_faces, html_to_text, render_markdown
from apps.decks.models import Deck
from config import csv_safety, limits

IMPORT_FORMATS = ("yaml", "json", "csv", "anki", "apkg")
EXPORT_FORMATS = ("yaml", "json", "csv", "apkg")
CSV_REQUIRED = ("front", "back", "section", "tags")
CSV_OPTIONAL = ("slug", "section_title", "why", "kind", "source")
CSV_COLUMNS = ("slug", "section", "section_title", "kind", "front", "back", "why", "source",
               "tags")  # fmt: skip
ANKI_SECTION = "imported-from-anki"
TITLE_MAX = 200  # Deck.title and Section.title
SECTION_TAG = "section::"  # the Anki tag an .apkg export gives each note for its section
ANKI_NOTETYPE = "RayDeck"  # the .apkg note type is named "RayDeck (deck slug)"
EXTENSIONS = {
    ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".csv": "csv", ".txt": "anki",
    ".tsv": "anki", ".apkg": "apkg",
}  # fmt: skip
CONTENT_TYPES = {
    "yaml": "application/yaml; charset=utf-8",
    "json": "application/json; charset=utf-8",
    "csv": "text/csv; charset=utf-8",
    "apkg": "application/octet-stream",
}


def limit_text() -> str:
    return f"{MAX_FILE_BYTES / 1024 / 1024:g} MiB"


# Reading -----------------------------------------------------------------------------------


@dataclass
class CardRow:
    """One card from a CSV or Anki file; why is None when the file has no such column."""

    line: int
    slug: str
    front: str
    back: str
    section: str
    tags: list[str]
    why: str | None = None
    section_title: str = ""
    # False when the file names no section (Anki without --section): an existing card stays put.
    section_given: bool = True
    # True for Anki's text export: fields are HTML with the tags stripped, so Markdown is gone.
    from_anki: bool = False
    kind: str | None = None  # None: the file does not say (an existing card keeps its kind)
    source: str | None = None


class ImportUploadCut(FileUploadHandler):
    """Keeps at most MAX_FILE_BYTES + 1 bytes of an uploaded file while it streams in (one byte
    past the limit is enough to refuse it), so a huge upload fills neither memory nor the disk.
    Put it first in request.upload_handlers before anything reads request.POST or FILES."""

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        room = MAX_FILE_BYTES + 1 - self.received
        self.received += len(raw_data)
        return raw_data[:room] if room > 0 else None

    def file_complete(self, file_size: int):
        return None  # the next handler (memory or temporary file) holds what was kept


def format_guess(filename: str) -> str | None:
    return EXTENSIONS.get(Path(filename).suffix.lower())


def text_decode(data: bytes, source: str) -> str:
    if len(data) > MAX_FILE_BYTES:
        raise ContentError(
            source,
            "",
            f"the file is larger than {limit_text()}, the import limit"
            " (split the deck or import it in parts)",
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ContentError(source, f"line {line}", "not UTF-8 text; save it as UTF-8") from None
    _nul_refuse(text, text.find("\x00"), source)
    return text


# A JSON \u0000 escape (one not itself escaped as \\u0000) decodes to a NUL character.
_JSON_NUL = re.compile(r"(?<!\\)(?:\\\\)*\\u0000", re.IGNORECASE)


def _nul_refuse(text: str, index: int, source: str) -> None:
    """PostgreSQL text cannot hold a NUL character, and no card needs one."""
    if index >= 0:
        line = text.count("\n", 0, index) + 1
        raise ContentError(
            source, f"line {line}", "contains a NUL character (\\x00); is it a text file?"
        )


def slug_from_text(text: str) -> str:
    """A stable card slug from its front text: the same text always gives the same slug."""
    slug = slugify(text)[:60].strip("-")
    if "-" in slug and len(slugify(text)) > 60:
        slug = slug.rsplit("-", 1)[0]
    return slug or "card-" + hashlib.sha1(text.encode()).hexdigest()[:8]


def _tags_split(value: str) -> list[str]:
    parts = value.split(",") if "," in value else value.split()
    return list(dict.fromkeys(p.strip() for p in parts if p.strip()))


def _rows_check(rows: list[CardRow], source: str) -> None:
    seen: dict[str, int] = {}
    for row in rows:
        where = f"line {row.line}"
        if not row.front:
            raise ContentError(source, where, "front is empty")
        if not row.back and row.kind != "cloze":
            raise ContentError(source, where, "back is empty")
        if row.kind is not None:
            doc = CardDoc(slug=row.slug, front=row.front, back=row.back or "", kind=row.kind)
            try:
                note_check(doc)
            except (ValueError, ClozeError) as exc:
                raise ContentError(source, f"{where} (card {row.slug!r})", str(exc)) from None
        if len(row.slug) > 80 or not SLUG_RE.match(row.slug):
            raise ContentError(
                source, where, f"slug {row.slug!r} must be lowercase words joined by hyphens"
            )
        if row.slug in seen:
            raise ContentError(
                source,
                where,
                f"duplicate card slug {row.slug!r}, also on line {seen[row.slug]}"
                " (give one of them its own slug in a slug column)",
            )
        seen[row.slug] = row.line


# CSV injection: one module defuses every CSV the app writes (config/csv_safety.py); the
# import takes the ' off again.
FORMULA_STARTS = csv_safety.FORMULA_STARTS
csv_cell_defuse, csv_cell_restore = csv_safety.cell_defuse, csv_safety.cell_restore


def csv_rows(text: str, source: str) -> list[CardRow]:
    """Rows of a CSV file with a header naming at least front, back, section and tags."""
    # Spreadsheets in many locales separate fields with ; (or a tab); the header line tells.
    header_line = text.split("\n", 1)[0]
    delimiter = ","
    if "," not in header_line:
        delimiter = next((d for d in (";", "\t") if d in header_line), ",")
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
    except csv.Error as exc:
        raise ContentError(source, "line 1", f"not valid CSV ({exc})") from None
    if not header:
        raise ContentError(source, "line 1", "the file is empty; expected a header line")
    missing = [c for c in CSV_REQUIRED if c not in header]
    if missing:
        raise ContentError(
            source,
            "line 1",
            f"missing column {missing[0]!r} (the header needs {', '.join(CSV_REQUIRED)};"
            f" optional: {', '.join(CSV_OPTIONAL)})",
        )
    unknown = [c for c in header if c not in CSV_REQUIRED + CSV_OPTIONAL]
    if unknown:
        raise ContentError(source, "line 1", f"unknown column {unknown[0]!r}")
    reader.fieldnames = header
    rows: list[CardRow] = []
    line = reader.line_num + 1
    try:
        for record in reader:
            if None in record:
                raise ContentError(source, f"line {line}", "more fields than header columns")
            values = {k: csv_cell_restore((v or "").strip()) for k, v in record.items()}
            if any(values.values()):
                if not values["section"]:
                    raise ContentError(source, f"line {line}", "section is empty")
                rows.append(
                    CardRow(
                        line=line,
                        slug=values.get("slug") or slug_from_text(values["front"]),
                        front=values["front"],
                        back=values["back"],
                        section=values["section"],
                        section_title=values.get("section_title", ""),
                        tags=_tags_split(values["tags"]),
                        why=values.get("why"),
                        kind=values.get("kind") or None,
                        source=values.get("source"),
                    )
                )
            line = reader.line_num + 1
    except csv.Error as exc:
        raise ContentError(source, f"line {line}", f"not valid CSV ({exc})") from None
    _rows_check(rows, source)
    return rows


SEPARATORS = {"tab": "\t", "comma": ",", "semicolon": ";", "pipe": "|", "space": " "}


def anki_html_to_text(value: str) -> str:
    """Anki fields are HTML: keep the text and line breaks, drop every tag (and scripts)."""
    return html_to_text(value)


def anki_rows(text: str, source: str, *, section: str = "") -> list[CardRow]:
    """Anki's "Notes in Plain Text" export: `#key:value` header lines, then one note a line,
    front and back separated by the separator (tab by default), quoted like CSV when needed."""
    lines = text.splitlines(keepends=True)
    separator, is_html, skip, tags_column = "\t", False, set(), None
    notetype_column, column_names = None, ""
    header_lines = 0
    for raw in lines:
        if not raw.startswith("#"):
            break
        header_lines += 1
        key, _, value = raw[1:].strip().partition(":")
        key, value = key.strip().lower(), value.strip()
        if key == "separator":
            separator = SEPARATORS.get(value.lower(), value[:1] or "\t")
        elif key == "html":
            is_html = value.lower() == "true"
        elif key in ("guid column", "notetype column", "deck column") and value.isdigit():
            skip.add(int(value) - 1)
            if key == "notetype column":
                notetype_column = int(value) - 1
        elif key == "tags column" and value.isdigit():
            tags_column = int(value) - 1
        elif key == "columns":
            column_names = value
    # `#columns:` names the columns; one named Tags holds the tags, as Anki maps it by name.
    names = [n.strip().lower() for n in column_names.split(separator)] if column_names else []
    if tags_column is None and "tags" in names:
        tags_column = names.index("tags")
    skip.update(i for i, name in enumerate(names) if name in ("guid", "notetype", "deck"))
    body = "".join(lines[header_lines:])
    reader = csv.reader(io.StringIO(body, newline=""), delimiter=separator, quotechar='"')
    rows: list[CardRow] = []
    fronts: dict[str, tuple[int, str]] = {}  # slug made from a front -> (line, front)
    line = header_lines + 1
    clean = anki_html_to_text if is_html else str.strip
    try:
        for record in reader:
            if any(field.strip() for field in record):
                tags = record[tags_column] if tags_column is not None and tags_column < len(
                    record
                ) else ""  # fmt: skip
                fields = [f for i, f in enumerate(record) if i not in skip and i != tags_column]
                if len(fields) < 2:
                    name = next(k for k, v in SEPARATORS.items() if v == separator) if (
                        separator in SEPARATORS.values()
                    ) else repr(separator)  # fmt: skip
                    raise ContentError(
                        source,
                        f"line {line}",
                        f"expected front and back separated by a {name}, found one field",
                    )
                front, back = clean(fields[0]), clean(fields[1])
                slug, why = slug_from_text(front), None
                # A note from our own .apkg (fields Front or Text, Back, Why, Slug, and Source
                # since cards have sources; 4 in older exports) keeps its card slug, so taking a
                # deck through Anki and back updates cards instead of adding copies. Only a note
                # of those note types: another type's 4th field ("noun") is no slug.
                notetype = record[notetype_column] if notetype_column is not None and (
                    notetype_column < len(record)
                ) else ANKI_NOTETYPE  # fmt: skip
                ours = len(fields) in (4, 5) and notetype.startswith(ANKI_NOTETYPE)
                kind, card_source = _anki_kind(notetype if notetype_column is not None else "",
                                               front), None  # fmt: skip
                if ours and SLUG_RE.match(fields[3].strip()):
                    slug, why = fields[3].strip(), clean(fields[2])
                    card_source = clean(fields[4]) if len(fields) == 5 else None
                elif slug in fronts:
                    # No slug column to fix a clash in: long fronts that start alike get a
                    # slug ending in a hash of the whole front (the same on every import).
                    first_line, first_front = fronts[slug]
                    if front == first_front:
                        raise ContentError(
                            source,
                            f"line {line}",
                            f"the same front as line {first_line} (card slugs come from the front)",
                        )
                    digest = hashlib.sha1(front.encode()).hexdigest()[:8]
                    slug = f"{slug[:51].rstrip('-')}-{digest}"
                else:
                    fronts[slug] = (line, front)
                rows.append(
                    CardRow(
                        line=line, slug=slug, front=front, back=back, why=why,
                        section=section or ANKI_SECTION, section_given=bool(section),
                        from_anki=True, kind=kind, source=card_source,
                        tags=[t for t in tags.split() if not t.startswith(SECTION_TAG)],
                        section_title="" if section else "Imported from Anki",
                    )
                )  # fmt: skip
            line = header_lines + reader.line_num + 1
    except csv.Error as exc:
        raise ContentError(source, f"line {line}", f"cannot read this line ({exc})") from None
    _rows_check(rows, source)
    return rows


def _anki_kind(notetype: str, front: str) -> str | None:
    """The card kind an Anki note type stands for; without one, a front with deletions is a
    cloze (Anki's text export names no note type unless asked to)."""
    name = notetype.lower()
    if "cloze" in name:
        return "cloze"
    if "reverse" in name:
        return "reverse"
    if notetype:
        return "basic"
    return "cloze" if CLOZE_RE.search(front) else None


APKG_KINDS = {"basic": "basic", "reversed": "reverse", "cloze": "cloze"}


def apkg_note_text(card: ApkgCard) -> tuple[str, str]:
    """The front and back (HTML) a note of an .apkg becomes, given its first card. A cloze
    note keeps its deletions as RayDeck's cloze markup (the note's first field, usually Text)
    with its extra field as the back; other notes take the first card's faces."""
    if card.kind == "cloze":
        values = list(card.fields.values())
        text = card.fields.get("Text", values[0] if values else "")
        extra = card.fields.get("Back Extra", card.fields.get("Extra", ""))
        if not extra and len(values) > 1 and "Text" not in card.fields:
            extra = values[1]
        return text, extra
    return card.front, card.back


def apkg_rows(data: bytes, source: str, *, section: str = "") -> tuple[list[CardRow], str, list]:
    """Rows of an Anki package, the name of its (first) top-level deck, and notes for the
    preview (media left out, cards skipped). Notes of our own export keep their card slug,
    why and section (the section:: tag); others get a slug from the note's guid
    (apkg.card_key), their sub-deck ("Ray::Actors") as section, else `section` or
    "imported-from-anki"."""
    try:
        package = apkg_read(data)
    except ApkgError as exc:
        raise ContentError(source, "", str(exc)) from None
    rows: list[CardRow] = []
    notes: list[str] = []
    empty_backs = 0
    top_decks: list[str] = []
    # One row per note: RayDeck makes a cloze note's and a reversed note's cards itself.
    firsts: dict[str, ApkgCard] = {}
    for card in package.cards:
        firsts.setdefault(card.guid, card)
    for number, card in enumerate(firsts.values(), start=1):
        kind = APKG_KINDS.get(card.kind, "basic")
        levels = deck_path(card.deck)
        if levels and levels[0] not in top_decks:
            top_decks.append(levels[0])
        tags = [t for t in card.tags if not t.startswith(SECTION_TAG)]
        own_section = next(
            (t[len(SECTION_TAG) :] for t in card.tags if t.startswith(SECTION_TAG)), ""
        )
        ours = card.notetype.startswith(ANKI_NOTETYPE) and SLUG_RE.match(
            card.fields.get("Slug", "").strip()
        )
        card_source = None
        if ours:
            slug = card.fields["Slug"].strip()
            if kind == "cloze":
                front, back = card.fields.get("Text", ""), card.fields.get("Back Extra", "")
            else:
                front, back = card.fields.get("Front", ""), card.fields.get("Back", "")
            why = html_to_text(card.fields.get("Why", ""))
            card_source = html_to_text(card.fields.get("Source", "")) or None
        else:
            slug, why = card_key(card) if kind == "basic" else note_key(card), None
            front, back = apkg_note_text(card)
        front, back = html_to_text(front), html_to_text(back)
        if not back and kind != "cloze":  # a cloze's answer is its deletion; the extra may be empty
            empty_backs += 1
            continue
        if own_section:
            row_section, title, given = own_section, "", True
        elif len(levels) > 1:
            row_section = title = " / ".join(levels[1:])
            given = True
        else:
            row_section = section or ANKI_SECTION
            title, given = ("" if section else "Imported from Anki"), bool(section)
        rows.append(
            CardRow(
                line=number, slug=slug, front=front, back=back, why=why, section=row_section,
                section_title=title, section_given=given, from_anki=True, tags=tags,
                kind=kind, source=card_source,
            )
        )  # fmt: skip
    if package.media_files or package.media_refs:
        notes.append(
            f"media skipped: {package.media_files} file{'s' if package.media_files != 1 else ''}"
            f" in the package, {package.media_refs} note{'s' if package.media_refs != 1 else ''}"
            " pointing at images or sounds (RayDeck imports text only)"
        )
    if empty_backs:
        notes.append(
            f"{empty_backs} card{'s' if empty_backs != 1 else ''} with an empty back left out"
        )
    notes += package.skipped[:20]
    if len(package.skipped) > 20:
        notes.append(f"... and {len(package.skipped) - 20} more notes skipped")
    _rows_check(rows, source)
    return rows, (top_decks[0] if top_decks else ""), notes


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
        same = row.from_anki and anki_html_to_text(render_markdown(markdown)) == text
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
            section = section_for(row) if row.section_given else old_section
            if old_section is not section:
                old_section.cards.remove(card)
                section.cards.append(card)
        else:
            section = section_for(row)
            card = CardDoc(
                slug=row.slug, front=row.front, back=row.back, why=row.why or "", tags=row.tags,
                kind=row.kind or "basic", source=row.source or "",
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
        rows, anki_deck, notes = apkg_rows(data, source, section=section)
        if not rows:
            raise ContentError(source, "", "the package has no cards to import")
        deck_slug = deck_slug or slugify(anki_deck)[:80].strip("-")
        if not deck_slug:
            raise ContentError(source, "", "name the deck to import into (deck slug)")
        doc = rows_merge(
            rows, deck_slug=deck_slug, deck_title=deck_title or anki_deck[:TITLE_MAX],
            source=source,
        )  # fmt: skip
        doc.notes = notes
        return doc
    text = text_decode(data, source)
    if fmt in ("yaml", "json"):
        if fmt == "json":
            match = _JSON_NUL.search(text)
            _nul_refuse(text, match.start() if match else -1, source)
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


# Writing -----------------------------------------------------------------------------------


class _BlockDumper(yaml.SafeDumper):
    """Multi-line text as readable `|` blocks."""


def _text_representer(dumper: yaml.SafeDumper, value: str):
    style = "|" if "\n" in value else None
    if style is None and any(ch in value for ch in "\x85\u2028\u2029"):
        style = '"'  # YAML folds these line breaks into spaces unless they are escaped
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _text_representer)


def export_yaml(deck: Deck) -> str:
    return yaml.dump(
        deck_document(deck), Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100
    )


def export_json(deck: Deck) -> str:
    return json.dumps(deck_document(deck), indent=2, ensure_ascii=False) + "\n"


def export_csv(deck: Deck) -> str:
    out = io.StringIO(newline="")
    writer = csv_safety.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for card in _note_heads(deck):
        tags = " ".join(card.tags)
        if any(" " in t or "," in t for t in card.tags):
            # The import splits on commas when there is one: a lone "object store" needs one too.
            tags = ", ".join(card.tags) + ("," if len(card.tags) == 1 else "")
        row = [card.note_slug or card.slug, card.section.slug, card.section.title, card.kind,
               card.front, card.back, card.why, card.source, tags]  # fmt: skip
        writer.writerow(row)
    return out.getvalue()


def _stable_id(kind: str, slug: str) -> int:
    """Anki model and deck ids: the same slug always gives the same id (between 2^30 and 2^31),
    so importing a newer export into Anki updates the same deck and note type."""
    digest = int(hashlib.sha256(f"raydeck-{kind}:{slug}".encode()).hexdigest()[:12], 16)
    return (1 << 30) + digest % (1 << 30)


ANKI_CSS = """.card { font-family: system-ui, sans-serif; font-size: 18px; text-align: left;
  color: black; background-color: white; line-height: 1.5; }
.why { color: #64748b; font-size: 0.9em; }
pre { background: #f1f5f9; padding: 0.6em; overflow-x: auto; }
code { background: #f1f5f9; }"""


ANKI_EXTRA = (
    '{{#Source}}<div class="source">Source: {{Source}}</div>{{/Source}}'
    '{{#Why}}<div class="why">{{Why}}</div>{{/Why}}'
)


def anki_model(deck: Deck, kind: str = "basic") -> genanki.Model:
    """The note type of a card kind: Basic, "Basic (and reversed card)" or Cloze, as Anki's own,
    with RayDeck's Why, Slug and Source fields after the two it shows."""
    if kind == "cloze":
        return genanki.Model(
            _stable_id("model-cloze", deck.slug),
            f"{ANKI_NOTETYPE} cloze ({deck.slug})",
            fields=[
                {"name": "Text"},
                {"name": "Back Extra"},
                {"name": "Why"},
                {"name": "Slug"},
                {"name": "Source"},
            ],  # fmt: skip
            templates=[
                {
                    "name": "Cloze",
                    "qfmt": "{{cloze:Text}}",
                    "afmt": "{{cloze:Text}}<br>{{Back Extra}}" + ANKI_EXTRA,
                }
            ],
            css=ANKI_CSS + "\n.cloze { font-weight: bold; color: #2563eb; }",
            model_type=genanki.Model.CLOZE,
        )
    answer = '{{FrontSide}}<hr id="answer">{{Back}}' + ANKI_EXTRA
    templates = [{"name": "Card 1", "qfmt": "{{Front}}", "afmt": answer}]
    if kind == "reverse":
        templates.append(
            {"name": "Card 2", "qfmt": "{{Back}}",
             "afmt": '{{FrontSide}}<hr id="answer">{{Front}}' + ANKI_EXTRA}
        )  # fmt: skip
    reverse = kind == "reverse"
    return genanki.Model(
        _stable_id("model-reverse" if reverse else "model", deck.slug),
        f"{ANKI_NOTETYPE}{' reversed' if reverse else ''} ({deck.slug})",
        fields=[
            {"name": "Front"},
            {"name": "Back"},
            {"name": "Why"},
            {"name": "Slug"},
            {"name": "Source"},
        ],  # fmt: skip
        templates=templates,
        css=ANKI_CSS,
    )


def _note_heads(deck: Deck):
    """One card per note, the one that speaks for it, in the deck's order."""
    cards = deck.cards.select_related("section").order_by("section__order", "order", "id")
    return [card for card in cards if note_head(card)]


def anki_guid(deck: Deck, card_slug: str) -> str:
    return genanki.guid_for("raydeck", deck.slug, card_slug)


def export_apkg(deck: Deck) -> bytes:
    """An Anki package: one note per note (a reversed note is Anki's "Basic (and reversed
    card)", a cloze note Anki's Cloze, so Anki schedules the same cards), fields as sanitised
    HTML, tagged with its tags and section; note ids (guids) come from the note slugs, so Anki
    updates rather than duplicates notes when a newer export is imported."""
    models = {kind: anki_model(deck, kind) for kind in ("basic", "reverse", "cloze")}
    anki_deck = genanki.Deck(_stable_id("deck", deck.slug), deck.title)
    for card in _note_heads(deck):
        slug = card.note_slug or card.slug
        tags = [t.replace(" ", "_") for t in card.tags] + [SECTION_TAG + card.section.slug]
        if card.kind == "cloze":
            # The deletions stay Anki's {{c1::...}} markup, which Markdown leaves as text.
            shown, back = render_markdown(card.front), render_markdown(card.back)
        else:
            shown, back = card_faces(card.kind, 1, card.front, card.back)
        anki_deck.add_note(
            genanki.Note(
                model=models[card.kind],
                fields=[shown, back, card.why_html, slug, html.escape(card.source)],
                tags=list(dict.fromkeys(tags)),
                guid=anki_guid(deck, slug),
            )
        )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{deck.slug}.apkg"
        genanki.Package(anki_deck).write_to_file(str(path))
        return path.read_bytes()


def export_deck(deck: Deck, fmt: str) -> bytes:
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}")
    if fmt == "apkg":
        return export_apkg(deck)
    writer: dict[str, Any] = {"yaml": export_yaml, "json": export_json, "csv": export_csv}
    return writer[fmt](deck).encode()
