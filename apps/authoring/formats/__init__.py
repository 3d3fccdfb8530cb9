"""Deck import and export formats, turned into (and out of) the deck file format's DeckDoc.

Import: our own deck format (YAML, or JSON, which is YAML too), CSV, Anki's text export and
Anki's package (.apkg, read by apps.authoring.apkg). One module each: rows (the upload, CSV),
anki (text export and .apkg), merge (rows into the deck, a whole file read), export.
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

from apps.authoring.formats.anki import anki_html_to_text, anki_rows, apkg_note_text, apkg_rows
from apps.authoring.formats.export import (
    anki_guid,
    anki_model,
    export_apkg,
    export_csv,
    export_deck,
    export_download,
    export_json,
    export_yaml,
)
from apps.authoring.formats.merge import import_document, rows_merge
from apps.authoring.formats.rows import (
    ANKI_NOTETYPE,
    ANKI_SECTION,
    CONTENT_TYPES,
    CSV_COLUMNS,
    EXPORT_FORMATS,
    IMPORT_FORMATS,
    CardRow,
    ImportUploadCut,
    csv_rows,
    format_guess,
    limit_text,
    slug_from_text,
    text_decode,
)
from apps.decks.content import MAX_FILE_BYTES, ContentError

__all__ = [
    "ANKI_NOTETYPE", "ANKI_SECTION", "CONTENT_TYPES", "CSV_COLUMNS", "EXPORT_FORMATS",
    "IMPORT_FORMATS", "MAX_FILE_BYTES", "CardRow", "ContentError",
    "ImportUploadCut", "anki_guid", "anki_html_to_text", "anki_model", "anki_rows",
    "apkg_note_text", "apkg_rows", "csv_rows",
    "export_apkg", "export_csv", "export_deck", "export_download", "export_json",
    "export_yaml", "format_guess", "import_document", "limit_text", "rows_merge",
    "slug_from_text", "text_decode",
]  # fmt: skip
