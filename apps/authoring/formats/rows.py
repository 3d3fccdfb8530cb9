"""Reading a file: the formats, the upload limit, the text encoding, and CSV rows."""

import csv
import hashlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

from django.core.files.uploadhandler import FileUploadHandler
from django.utils.text import slugify

from apps.decks.content import MAX_FILE_BYTES, SLUG_RE, CardDoc, ContentError, note_check
from apps.decks.markdown import ClozeError
from config import csv_safety

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
    type_answer: bool | None = None  # an Anki note type with {{type:...}}: the learner types


class ImportUploadCut(FileUploadHandler):
    """Keeps at most `limit` + 1 bytes (MAX_FILE_BYTES unless given) of an uploaded file while
    it streams in (one byte past the limit is enough to refuse it), so a huge upload fills
    neither memory nor the disk. Put it first in request.upload_handlers before anything reads
    request.POST or FILES."""

    def __init__(self, request=None, limit: int | None = None):
        super().__init__(request)
        self.limit = limit or MAX_FILE_BYTES

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        room = self.limit + 1 - self.received
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
    nul_refuse(text, text.find("\x00"), source)
    return text


# A JSON \u0000 escape (one not itself escaped as \\u0000) decodes to a NUL character.
JSON_NUL = re.compile(r"(?<!\\)(?:\\\\)*\\u0000", re.IGNORECASE)


def nul_refuse(text: str, index: int, source: str) -> None:
    """PostgreSQL text cannot hold a NUL character, and no card needs one."""
    if index >= 0:
        line = text.count("\n", 0, index) + 1
        raise ContentError(
            source, f"line {line}", "contains a NUL character (\\x00); is it a text file?"
        )


def slug_from_text(text: str) -> str:
    """A stable card slug from its front text: the same text always gives the same slug. An
    underscore (`num_cpus`) becomes a hyphen, as the slug rule wants: slugify keeps it."""
    full = slugify(text.replace("_", " "))
    slug = full[:60].strip("-")
    if "-" in slug and len(full) > 60:
        slug = slug.rsplit("-", 1)[0]
    return slug or "card-" + hashlib.sha1(text.encode()).hexdigest()[:8]


def tags_split(value: str) -> list[str]:
    parts = value.split(",") if "," in value else value.split()
    return list(dict.fromkeys(p.strip() for p in parts if p.strip()))


def rows_check(rows: list[CardRow], source: str) -> None:
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
            values = {k: csv_safety.cell_restore((v or "").strip()) for k, v in record.items()}
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
                        tags=tags_split(values["tags"]),
                        why=values.get("why"),
                        kind=values.get("kind") or None,
                        source=values.get("source"),
                    )
                )
            line = reader.line_num + 1
    except csv.Error as exc:
        raise ContentError(source, f"line {line}", f"not valid CSV ({exc})") from None
    rows_check(rows, source)
    return rows
