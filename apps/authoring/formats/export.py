"""Writing a deck: our own format (YAML or JSON), CSV, and an Anki package (.apkg)."""

import hashlib
import html
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import genanki
import yaml
from django.http import Http404, HttpResponse

from apps.authoring.formats.rows import (
    ANKI_NOTETYPE,
    CONTENT_TYPES,
    CSV_COLUMNS,
    EXPORT_FORMATS,
    SECTION_TAG,
)
from apps.decks.content import deck_document, note_head
from apps.decks.markdown import card_faces, media_names, render_markdown
from apps.decks.models import Deck
from config import csv_safety


class _BlockDumper(yaml.SafeDumper):
    """Multi-line text as readable `|` blocks."""


def _text_representer(dumper: yaml.SafeDumper, value: str):
    style = "|" if "\n" in value else None
    if style is None and any(ch in value for ch in "\x85\u2028\u2029"):
        style = '"'  # YAML folds these line breaks into spaces unless they are escaped
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _text_representer)


def block_yaml(document: Any) -> str:
    """A document as the YAML our files use: keys in their order, multi-line text as blocks."""
    return yaml.dump(document, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100)


def export_yaml(deck: Deck) -> str:
    return block_yaml(deck_document(deck))


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
    updates rather than duplicates notes when a newer export is imported. The deck's images the
    notes show go in the package's media, named as the notes' <img src> name them."""
    models = {kind: anki_model(deck, kind) for kind in ("basic", "reverse", "cloze")}
    anki_deck = genanki.Deck(_stable_id("deck", deck.slug), deck.title)
    images = {m.name: m for m in deck.media.all()}
    media = {name: name for name in images}  # <img src="NAME">, the file beside it in the zip
    shown_images: set[str] = set()
    for card in _note_heads(deck):
        slug = card.note_slug or card.slug
        tags = [t.replace(" ", "_") for t in card.tags] + [SECTION_TAG + card.section.slug]
        if card.kind == "cloze":
            # The deletions stay Anki's {{c1::...}} markup, which Markdown leaves as text.
            shown = render_markdown(card.front, media=media)
            back = render_markdown(card.back, media=media)
        else:
            shown, back = card_faces(card.kind, 1, card.front, card.back, media=media)
        why = render_markdown(card.why, media=media)
        shown_images |= media_names(f"{card.front}\n{card.back}\n{card.why}")
        anki_deck.add_note(
            genanki.Note(
                model=models[card.kind],
                fields=[shown, back, why, slug, html.escape(card.source)],
                tags=list(dict.fromkeys(tags)),
                guid=anki_guid(deck, slug),
            )
        )
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for name in sorted(shown_images & set(images)):
            target = Path(folder) / "media" / name
            target.parent.mkdir(exist_ok=True)
            try:
                with images[name].file.open("rb") as stored:
                    target.write_bytes(stored.read())
            except OSError:  # the storage lost it: the note's image is missing in Anki too
                continue
            files.append(str(target))
        path = Path(folder) / f"{deck.slug}.apkg"
        genanki.Package(anki_deck, media_files=files).write_to_file(str(path))
        return path.read_bytes()


def export_deck(deck: Deck, fmt: str) -> bytes:
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}")
    if fmt == "apkg":
        return export_apkg(deck)
    writer: dict[str, Any] = {"yaml": export_yaml, "json": export_json, "csv": export_csv}
    return writer[fmt](deck).encode()


def export_download(deck: Deck, fmt: str) -> HttpResponse:
    """The deck as a file to download, for the author page and the API alike (404 for a format
    there is no export to)."""
    if fmt not in EXPORT_FORMATS:
        raise Http404(f"No export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}.")
    response = HttpResponse(export_deck(deck, fmt), content_type=CONTENT_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{deck.slug}.{fmt}"'
    return response
