"""Reading Anki's text export and its .apkg package into rows."""

import csv
import hashlib
import io

from apps.authoring.apkg import (
    ApkgCard,
    ApkgError,
    apkg_media,
    apkg_read,
    card_key,
    deck_path,
    note_key,
)
from apps.authoring.formats.rows import (
    ANKI_NOTETYPE,
    ANKI_SECTION,
    SECTION_TAG,
    CardRow,
    rows_check,
    slug_from_text,
)
from apps.decks.cloze import cloze_first
from apps.decks.content import SLUG_RE, ContentError
from apps.decks.markdown import html_to_text, media_names

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
    rows_check(rows, source)
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
    return "cloze" if cloze_first(front) else None


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


def apkg_rows(
    data: bytes, source: str, *, section: str = "", media_max_bytes: int = 0
) -> tuple[list[CardRow], str, list, dict[str, bytes]]:
    """Rows of an Anki package, the name of its (first) top-level deck, notes for the preview
    (media left out, cards skipped), and the images the notes show (`<img src=...>` became
    `![](<media:NAME>)`), by name, each at most `media_max_bytes`. Notes of our own export
    keep their card slug, why and section (the section:: tag); others get a slug from the
    note's guid (apkg.card_key), their sub-deck ("Ray::Actors") as section, else `section` or
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
                kind=kind, source=card_source, type_answer=card.type_answer or None,
            )
        )  # fmt: skip
    wanted = set().union(*(media_names(f"{r.front}\n{r.back}\n{r.why or ''}") for r in rows))
    media: dict[str, bytes] = {}
    if wanted:
        try:
            media, left_out = apkg_media(data, wanted, max_bytes=media_max_bytes)
        except ApkgError as exc:
            raise ContentError(source, "", str(exc)) from None
        notes += [f"image left out: {why}" for why in left_out[:20]]
    if package.sound_refs:
        notes.append(
            f"sounds skipped: {package.sound_refs} note{'s' if package.sound_refs != 1 else ''}"
            " point at sounds (RayDeck imports text and images)"
        )
    if empty_backs:
        notes.append(
            f"{empty_backs} card{'s' if empty_backs != 1 else ''} with an empty back left out"
        )
    notes += package.skipped[:20]
    if len(package.skipped) > 20:
        notes.append(f"... and {len(package.skipped) - 20} more notes skipped")
    rows_check(rows, source)
    return rows, (top_decks[0] if top_decks else ""), notes, media
