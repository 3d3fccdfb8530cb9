"""A reader of Anki's package (.apkg): the notes and cards of its collection, as plain values.

Pure: no Django import (the import flow in formats.py maps what this returns to deck rows).

An .apkg is a zip holding the collection, an SQLite file named `collection.anki21` (Anki
2.1.x) or `collection.anki2` (older, and genanki), plus a `media` JSON map and numbered media
files. Anki 2.1.50+ may instead write `collection.anki21b`, zstd-compressed in a newer schema;
that one is refused with a way out. The collection's tables `col` (note types in `col.models`,
decks in `col.decks`, both JSON), `notes` (fields joined by 0x1f, tags space-separated) and
`cards` (one per note and template, or per cloze number) are read; nothing else is.

Its images come out through `apkg_media`: the `media` map names each numbered member, and only
the files the notes name are inflated, each up to a cap (their checks as images are the caller's).

Hostile files are refused with an ApkgError whose message says what is wrong: not a zip, no
collection, a collection that inflates past MAX_COLLECTION_BYTES or at a ratio past MAX_RATIO
(a zip bomb; inflating stops at the cap, the zip's own sizes are not trusted), not SQLite, or
SQLite of another schema. The collection is written to a temporary file and opened read-only.
"""

from __future__ import annotations

import bisect
import hashlib
import html
import io
import json
import re
import sqlite3
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apps.decks.cloze import Cloze, cloze_replace

COLLECTIONS = ("collection.anki21", "collection.anki2")  # preferred first
NEW_FORMAT = "collection.anki21b"
MAX_COLLECTION_BYTES = 64 * 1024 * 1024
MAX_RATIO = 100  # inflated / compressed, checked once the collection passes RATIO_FROM bytes
RATIO_FROM = 1024 * 1024
MAX_NOTES = 50_000
# A template may name a field many times: `{{Text}}` x10,000 of a 64 KiB field would fill in to
# 640 MB. A card side may not pass the largest deck file, nor the package's cards this in all.
MAX_SIDE_CHARS = 2 * 1024 * 1024
MAX_CARDS_CHARS = 128 * 1024 * 1024
CLOZE_TYPE = 1
CLOZE_BLANK = "[...]"


class ApkgError(Exception):
    """The package was refused; the message is fit to show to the person who uploaded it."""


@dataclass
class ApkgCard:
    """One Anki card: its note's guid and template ordinal, front and back as HTML (the
    template filled in), the note type's name, the card's deck path and its note's tags."""

    guid: str
    ord: int
    kind: str  # "basic", "reversed" (a note type with several templates) or "cloze"
    notetype: str
    front: str
    back: str
    deck: str  # e.g. "Ray::Actors"
    tags: list[str]
    fields: dict[str, str]  # the note's fields by name (HTML)
    type_answer: bool = False  # the card's template asks to type the answer ({{type:Field}})


@dataclass
class ApkgPackage:
    collection: str  # which file was read
    cards: list[ApkgCard]
    media_files: int = 0  # media in the zip (apkg_media reads the ones the notes name)
    media_refs: int = 0  # notes that point at media (<img>, [sound:...])
    sound_refs: int = 0  # notes that point at sounds ([sound:...]), which are not imported
    skipped: list[str] = field(default_factory=list)  # notes left out, and why


def _inflate(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The member's bytes, inflated in chunks and refused as soon as they pass the caps."""
    out = io.BytesIO()
    with archive.open(info) as member:
        while chunk := member.read(256 * 1024):
            out.write(chunk)
            size = out.tell()
            if size > MAX_COLLECTION_BYTES:
                raise ApkgError(
                    f"the collection inflates past {MAX_COLLECTION_BYTES // 2**20} MiB;"
                    " refused (a zip bomb, or a collection too large to import)"
                )
            if size > RATIO_FROM and size > MAX_RATIO * max(info.compress_size, 1):
                raise ApkgError(
                    f"the collection inflates more than {MAX_RATIO} times its packed size;"
                    " refused as a zip bomb"
                )
    return out.getvalue()


def _collection_bytes(data: bytes) -> tuple[str, bytes, int]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError):
        raise ApkgError(
            "not a zip file; an .apkg is the zip Anki writes with File > Export,"
            " 'Anki Deck Package'"
        ) from None
    with archive:
        names = {info.filename: info for info in archive.infolist()}
        if NEW_FORMAT in names:
            raise ApkgError(
                "this package holds collection.anki21b, the zstd-compressed format of Anki"
                " 2.1.50+, which RayDeck does not read; export again with 'Support older Anki"
                " versions' ticked"
            )
        name = next((n for n in COLLECTIONS if n in names), None)
        if name is None:
            raise ApkgError(
                "the zip holds no collection.anki21 or collection.anki2; is it an Anki package?"
            )
        media = sum(1 for n in names if n.isdigit())
        try:
            return name, _inflate(archive, names[name]), media
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as exc:
            raise ApkgError(f"{name} cannot be unpacked ({exc})") from None
        except NotImplementedError:
            raise ApkgError(f"{name} is packed with a method zip cannot unpack") from None


def apkg_precheck(data: bytes) -> None:
    """What a web request can refuse before the worker reads the package: not a zip, no
    collection, the anki21b format, a zip bomb (inflation stops at the caps, well under a
    second). ApkgError says which."""
    _collection_bytes(data)


REQUIRED = {
    "col": {"models", "decks"},
    "notes": {"id", "guid", "mid", "tags", "flds"},
    "cards": {"nid", "did", "ord"},
}


def _schema_check(db: sqlite3.Connection, name: str) -> None:
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for table, columns in REQUIRED.items():
        if table not in tables:
            raise ApkgError(f"{name} is not an Anki collection this reader knows: no {table} table")
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        missing = sorted(columns - have)
        if missing:
            raise ApkgError(
                f"{name} is not an Anki collection this reader knows: table {table} has no"
                f" column {missing[0]}"
            )


def _json(text: str | bytes | None, what: str, name: str) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except (TypeError, ValueError):
        raise ApkgError(f"{name}: col.{what} is not JSON") from None
    if not isinstance(value, dict):
        raise ApkgError(f"{name}: col.{what} is not a JSON object")
    return value


def apkg_read(data: bytes) -> ApkgPackage:
    """Read a whole package (see the module docstring); raises ApkgError."""
    name, collection, media = _collection_bytes(data)
    if not collection.startswith(b"SQLite format 3\x00"):
        raise ApkgError(f"{name} is not an SQLite database (the file is corrupt)")
    with tempfile.TemporaryDirectory(prefix="raydeck-apkg-") as folder:
        path = Path(folder) / "collection.sqlite"
        path.write_bytes(collection)
        del collection
        try:
            db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        except sqlite3.Error as exc:
            raise ApkgError(f"{name} cannot be opened as SQLite ({exc})") from None
        try:
            # Nothing the file's schema declares (views, triggers, functions) runs on a read.
            db.text_factory = lambda raw: raw.decode("utf-8", "replace")  # damaged text too
            db.execute("PRAGMA trusted_schema = OFF")
            db.execute("PRAGMA query_only = ON")
            _schema_check(db, name)
            package = _package(db, name)
        except sqlite3.DatabaseError as exc:
            raise ApkgError(f"{name} is not a readable SQLite database ({exc})") from None
        except UnicodeDecodeError:  # SQLite's own message about a damaged schema was not UTF-8
            raise ApkgError(f"{name} is not a readable SQLite database (damaged schema)") from None
        finally:
            db.close()
    package.media_files = media
    return package


def _package(db: sqlite3.Connection, name: str) -> ApkgPackage:
    row = db.execute("SELECT models, decks FROM col LIMIT 1").fetchone()
    if row is None:
        raise ApkgError(f"{name}: the col table is empty")
    models, decks = _json(row[0], "models", name), _json(row[1], "decks", name)
    if not models:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "notetypes" in tables:
            raise ApkgError(
                f"{name} keeps its note types in the newer schema (a notetypes table);"
                " export again with 'Support older Anki versions' ticked"
            )
    deck_names = {str(k): str(v.get("name", "")) for k, v in decks.items() if isinstance(v, dict)}
    count = db.execute("SELECT COUNT(*) FROM notes").fetchone()[0]
    if count > MAX_NOTES:
        raise ApkgError(f"{name} holds {count} notes; at most {MAX_NOTES} are imported at once")
    notes = {}
    for nid, guid, mid, tags, flds in db.execute(
        "SELECT id, guid, mid, tags, flds FROM notes ORDER BY id"
    ):
        notes[nid] = (str(guid), str(mid), str(tags or ""), str(flds or ""))
    package = ApkgPackage(collection=name, cards=[])
    seen_notes: set[int] = set()
    chars = 0
    for nid, did, ord_ in db.execute("SELECT nid, did, ord FROM cards ORDER BY nid, ord"):
        note = notes.get(nid)
        if note is None:
            continue
        guid, mid, tags, flds = note
        model = models.get(mid)
        if not isinstance(model, dict):
            if nid not in seen_notes:
                package.skipped.append(f"note {nid}: its note type {mid} is not in the file")
            seen_notes.add(nid)
            continue
        first = nid not in seen_notes
        seen_notes.add(nid)
        try:
            card = _card(model, guid, int(ord_), flds, tags, deck_names.get(str(did), ""))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            if first:
                package.skipped.append(f"note {nid}: its note type cannot be read ({exc})")
            continue
        if card is None:
            continue
        chars += len(card.front) + len(card.back)
        if chars > MAX_CARDS_CHARS:
            raise ApkgError(
                f"{name}: its cards pass {MAX_CARDS_CHARS // 2**20} MiB of text once their"
                " templates are filled in; import it in parts"
            )
        if first:
            package.media_refs += any(_MEDIA.search(v) for v in card.fields.values())
            package.sound_refs += any("[sound:" in v for v in card.fields.values())
        package.cards.append(card)
    return package


_MEDIA = re.compile(r"(?i)<img\b|\[sound:")
MAX_MEDIA_FILES = 5000
MAX_MEDIA_TOTAL = 64 * 1024 * 1024


def _inflate_capped(archive: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int) -> bytes | None:
    """The member's bytes, or None once they pass `cap` (inflating stops there)."""
    out = io.BytesIO()
    with archive.open(info) as member:
        while chunk := member.read(256 * 1024):
            out.write(chunk)
            if out.tell() > cap:
                return None
    return out.getvalue()


def apkg_media(
    data: bytes, names: set[str], *, max_bytes: int
) -> tuple[dict[str, bytes], list[str]]:
    """The package's media files that the notes name (`names`, as the fields give them), by
    name, and a sentence for each one left out: missing from the package, larger than
    `max_bytes` once inflated (inflation stops there), or past MAX_MEDIA_TOTAL in all."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError):
        raise ApkgError("not a zip file") from None
    files: dict[str, bytes] = {}
    left_out: list[str] = []
    with archive:
        members = {info.filename: info for info in archive.infolist()}
        mapping: dict[Any, Any] = {}
        if "media" in members:
            raw = _inflate_capped(archive, members["media"], 4 * 1024 * 1024)
            parsed: object
            try:
                parsed = json.loads(raw or b"{}")
            except ValueError:
                parsed = None
            if not isinstance(parsed, dict):
                raise ApkgError("the package's media list is not a JSON object; it is damaged")
            mapping = parsed
        by_name = {str(v): str(k) for k, v in mapping.items()}
        total = 0
        for name in sorted(names)[:MAX_MEDIA_FILES]:
            member = members.get(by_name.get(name, ""))
            if member is None:
                left_out.append(f"{name} is named by a note but not in the package")
                continue
            try:
                body = _inflate_capped(archive, member, max_bytes)
            except (zipfile.BadZipFile, EOFError, ValueError, NotImplementedError) as exc:
                left_out.append(f"{name} cannot be unpacked ({exc})")
                continue
            if body is None:
                left_out.append(f"{name} is larger than {max_bytes // 1024} KiB")
                continue
            total += len(body)
            if total > MAX_MEDIA_TOTAL:
                left_out.append(
                    f"{name} and the files after it: the package's images pass "
                    f"{MAX_MEDIA_TOTAL // 2**20} MiB in all"
                )
                break
            files[name] = body
        if len(names) > MAX_MEDIA_FILES:
            left_out.append(
                f"{len(names) - MAX_MEDIA_FILES} more images: at most {MAX_MEDIA_FILES}"
            )
    return files, left_out


def _card(
    model: dict[str, Any], guid: str, ord_: int, flds: str, tags: str, deck: str
) -> ApkgCard | None:
    names = [f["name"] for f in sorted(model["flds"], key=lambda f: f["ord"])]
    values = flds.split("\x1f")
    values += [""] * (len(names) - len(values))
    fields = dict(zip(names, values, strict=False))
    templates = sorted(model["tmpls"], key=lambda t: t["ord"])
    cloze = model.get("type") == CLOZE_TYPE
    if cloze:
        template, number = templates[0], ord_ + 1
    else:
        if ord_ >= len(templates):
            return None
        template, number = templates[ord_], None
    front = _render(template["qfmt"], fields, number, answer=False)
    back = _render(template["afmt"], fields, number, answer=True)
    if not _visible(front):
        return None  # Anki makes no card whose front is empty
    kind = "cloze" if cloze else ("reversed" if len(templates) > 1 else "basic")
    return ApkgCard(
        guid=guid, ord=ord_, kind=kind, notetype=str(model.get("name", "")), front=front,
        back=back, deck=deck, tags=[t for t in tags.split() if t], fields=fields,
        type_answer="{{type:" in template["qfmt"].replace(" ", ""),
    )  # fmt: skip


# `<[^>]*>` alone rescans to the end of the text from every `<` that no `>` follows (quadratic
# on `<` x 64K); past the last `>` no tag can match, so only the text before it is searched.
_HTML_TAG = re.compile(r"<[^>]*>")
_INVISIBLE = re.compile(r"<[^>]*>|&nbsp;|\s")
_BLANK = re.compile(r"&nbsp;|\s")


def _visible(value: str) -> bool:
    cut = value.rfind(">") + 1
    return bool(_INVISIBLE.sub("", value[:cut]) or _BLANK.sub("", value[cut:]))


def _without_html_tags(value: str) -> str:
    cut = value.rfind(">") + 1
    return _HTML_TAG.sub("", value[:cut]) + value[cut:]


# Templates: {{Field}}, {{filter:Field}}, {{#Field}}..{{/Field}}, {{^Field}}..{{/Field}}.
# A tag is `{{`, then anything but `}`, then `}}`; a section runs from `{{#name}}` (or `^`) to
# the first `{{/name}}` after it, spaces inside the braces aside, and a section's name holds no
# `{` (Anki refuses braces in field names). The scans below find what the regexes
# \{\{\s*([^}]+?)\s*\}\} and \{\{([#^])\s*([^}]+?)\s*\}\}(.*?)\{\{/\s*\2\s*\}\} find, reading the
# template a bounded number of times: run by a backtracking engine those patterns took 30 s of
# CPU on `{{#A}}` x40,000.
_SECTION_NESTING = 5
_FILTERS = frozenset({"cloze", "text", "type"})  # the filters that change what a tag shows
_ANSWER_RULE = re.compile(r'(?i)<hr\s+id\s*=\s*"?answer"?\s*/?>')


class _Braces:
    """The first `}` at or after a position, asked for positions that never go back: a run of
    `{{` with no `}` is read once, not once per `{{`."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._found: int | None = None

    def first_from(self, start: int) -> int:
        """Where the first `}` at or after `start` is; -1 when there is none."""
        if self._found is None or 0 <= self._found < start:
            self._found = self._text.find("}", start)
        return self._found


def _closing_tags(template: str) -> dict[str, list[tuple[int, int]]]:
    """Where each `{{/name}}` starts and ends, by its name, left to right."""
    found: dict[str, list[tuple[int, int]]] = {}
    braces = _Braces(template)
    at = 0
    while (start := template.find("{{/", at)) >= 0:
        at = start + 1
        if (brace := braces.first_from(start + 3)) < 0:
            break
        if not template.startswith("}}", brace) or template.find("{", start + 3, brace) >= 0:
            continue
        if name := template[start + 3 : brace].strip():
            found.setdefault(name, []).append((start, brace + 2))
    return found


def _sections_once(template: str, keep: Callable[[str, str], bool]) -> tuple[str, int]:
    """The template with each outermost-first section replaced by its body when
    keep(kind, name) says so, else by nothing; and how many sections were replaced."""
    closings = _closing_tags(template)
    parts: list[str] = []
    at = search = count = 0
    braces = _Braces(template)
    while (start := template.find("{{", search)) >= 0:
        search = start + 1
        kind = template[start + 2 : start + 3]
        if kind not in ("#", "^"):
            continue
        if (brace := braces.first_from(start + 3)) < 0:
            break
        if not template.startswith("}}", brace) or template.find("{", start + 3, brace) >= 0:
            continue
        name = template[start + 3 : brace].strip()
        ends = closings.get(name, [])
        body = brace + 2
        i = bisect.bisect_left(ends, body, key=lambda end: end[0])
        if not name or i == len(ends):
            continue
        close_start, close_end = ends[i]
        parts += (template[at:start], template[body:close_start] if keep(kind, name) else "")
        at = search = close_end
        count += 1
    parts.append(template[at:])
    return "".join(parts), count


def _fill_tags(template: str, fill: Callable[[str], str]) -> str:
    """The template with each `{{spec}}` replaced by fill(spec), spec without its outer spaces;
    ValueError once the text passes MAX_SIDE_CHARS."""
    parts: list[str] = []
    at = search = chars = 0
    braces = _Braces(template)
    while (start := template.find("{{", search)) >= 0:
        if (brace := braces.first_from(start + 2)) < 0:
            break
        if brace == start + 2 or not template.startswith("}}", brace):
            search = start + 1
            continue
        parts += (template[at:start], fill(template[start + 2 : brace].strip()))
        chars += len(parts[-2]) + len(parts[-1])
        if chars > MAX_SIDE_CHARS:
            raise ValueError(f"a card passes {MAX_SIDE_CHARS // 2**20} MiB once filled in")
        at = search = brace + 2
    parts.append(template[at:])
    return "".join(parts)


def _render(template: str, fields: dict[str, str], cloze: int | None, *, answer: bool) -> str:
    """Anki's template filled in, simply: conditionals, fields, cloze:, text:, hint:; type:
    (typing the answer) and {{FrontSide}} on the back are left out: RayDeck shows the back
    on its own, below the front."""

    def keep(kind: str, name: str) -> bool:
        if name.startswith("c") and name[1:].isdigit() and cloze is not None:
            present = name[1:] == str(cloze)  # {{#c1}}: this card's cloze number
        else:
            present = _visible(fields.get(name, ""))
        return present == (kind == "#")

    for _ in range(_SECTION_NESTING):
        template, n = _sections_once(template, keep)
        if not n:
            break

    def field(filters: frozenset[str], name: str) -> str:
        if name == "FrontSide" or "type" in filters:
            return ""
        value = fields.get(name, "")
        if "cloze" in filters:
            front, back = cloze_basic(value, cloze or 1)
            return back if answer else front
        if "text" in filters:
            value = _without_html_tags(value)
        return value

    # A field is read once per side however often the template names it.
    filled: dict[tuple[frozenset[str], str], str] = {}

    def tag(spec: str) -> str:
        *filters, name = [part.strip() for part in spec.split(":")]
        key = (frozenset(filters) & _FILTERS, name)
        if key not in filled:
            filled[key] = field(*key)
        return filled[key]

    text = _fill_tags(template, tag)
    if answer:
        text = _ANSWER_RULE.sub("", text)
    return text.strip()


def cloze_basic(text: str, number: int) -> tuple[str, str]:
    """A cloze note's card `number` as a basic card: the front with that deletion blanked
    ("[...]", or "[hint]" when it has a hint) and the others shown, the back with every
    deletion filled in. (Where RayDeck has a cloze card kind, the deletion text goes there.)"""

    def front(cloze: Cloze) -> str:
        if cloze.index == number:
            return f"[{cloze.hint}]" if cloze.hint else CLOZE_BLANK
        return cloze.answer

    return cloze_replace(text, front), cloze_replace(text, lambda cloze: cloze.answer)


def card_key(card: ApkgCard) -> str:
    """A stable slug for a card of someone else's note type: from its note's guid and its
    template (or cloze number), so a re-import of the same package updates the same cards
    even after the text was edited in Anki."""
    digest = hashlib.sha1(card.guid.encode()).hexdigest()[:12]
    if card.kind == "basic":
        return f"anki-{digest}"
    return f"anki-{digest}-{'c' if card.kind == 'cloze' else ''}{card.ord + 1}"


def note_key(card: ApkgCard) -> str:
    """A stable slug for a whole note of someone else's (cloze or reversed) note type: RayDeck
    makes its cards from it, `<slug>-c1`... or `<slug>` and `<slug>-reverse`."""
    return f"anki-{hashlib.sha1(card.guid.encode()).hexdigest()[:12]}"


def deck_path(name: str) -> list[str]:
    """An Anki deck name split into its levels: "Ray::Actors" -> ["Ray", "Actors"]."""
    return [html.unescape(part).strip() for part in name.split("::") if part.strip()]
