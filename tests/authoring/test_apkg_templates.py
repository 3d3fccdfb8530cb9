"""Anki's card templates are filled in by scans that read them once: they find the tags and
sections Anki's patterns describe, and a hostile template or field of 64 KiB costs milliseconds
(the template `{{#A}}` x40,000, a 1.5 KB package, held a web worker for 30 s)."""

import io
import json
import re
import sqlite3
import zipfile

import genanki
from hypothesis import example, given, settings
from hypothesis import strategies as st

from apps.authoring.apkg import (
    _fill_tags,
    _render,
    _sections_once,
    _visible,
    apkg_read,
)
from tests.adversarial import CPU_SECONDS_MAX, cpu_seconds, repeated_delimiters

# What a tag and a section are; a section's name holds no brace and is not blank (Anki refuses
# such field names). Only ever run here on short templates.
TAG = re.compile(r"\{\{\s*([^}]+?)\s*\}\}")
SECTION = re.compile(r"\{\{([#^])\s*([^{}\s][^{}]*?)\s*\}\}(.*?)\{\{/\s*\2\s*\}\}", re.DOTALL)
PIECES = ["{{", "}}", "{{#A}}", "{{/A}}", "{{^B}}", "{{/ B }}", "{{# A }}", "{{#", "{{/", "#",
          "^", "/", "A", "B", " ", "{", "}", ":", "x"]  # fmt: skip
TEMPLATE_DELIMITERS = ["{{", "}}", "{{#A}}", "{{/A}}", "{{^A}}", "{{#", "{{/", "{{^", "#", "/",
                       "A", " ", "{", "}", ":", "{{cloze:A}}", "{{text:A}}",
                       "<hr id=answer>"]  # fmt: skip
FIELD_DELIMITERS = ["<", ">", "&nbsp;", " ", "{{c1::", "}}", "::", "<b>", "a"]


@settings(max_examples=200)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), st.booleans())
@example("{{#A}}{{#A}}x{{/A}}{{/A}}", True)
@example("{{#A{{#A}}x{{/A}}", False)
def test_the_scans_find_what_the_patterns_describe(template, shown):
    def keep(kind, name):
        return (name == "A") == shown

    assert _fill_tags(template, lambda spec: f"<{spec}>") == TAG.sub(
        lambda m: f"<{m.group(1).strip()}>", template
    )
    assert _sections_once(template, keep) == SECTION.subn(
        lambda m: m.group(3) if keep(m.group(1), m.group(2)) else "", template
    )


def test_a_stock_template_fills_in_as_before():
    fields = {"Front": "Ape-X", "Back": "<b>replay</b>", "Extra": ""}
    template = "{{Front}}{{#Extra}}<i>{{Extra}}</i>{{/Extra}}{{^Extra}} (none){{/Extra}}"
    assert _render(template, fields, None, answer=False) == "Ape-X (none)"
    back = "{{FrontSide}}<hr id=answer>{{text:Back}}"
    assert _render(back, fields, None, answer=True) == "replay"
    assert not _visible("<br> &nbsp; ") and _visible("<br>a")


@settings(max_examples=25)
@given(repeated_delimiters(TEMPLATE_DELIMITERS), repeated_delimiters(FIELD_DELIMITERS))
@example("{{#A}}" * 10922, "x")
@example("{{" * 32768, "x")
@example("{{cloze:A}}", "{{c1::" * 10922)
@example("{{text:A}}{{#A}}{{/A}}", "<" * 65536)
def test_a_hostile_template_of_64_kib_is_filled_in_bounded_time(template, field):
    fields = {"A": field}

    def both_sides():
        try:
            _render(template, fields, 1, answer=False)
            _render(template, fields, 1, answer=True)
        except ValueError as exc:  # the note is skipped with this sentence
            assert "once filled in" in str(exc)

    assert cpu_seconds(both_sides) < CPU_SECONDS_MAX


def package_with_template(tmp_path, qfmt: str, field: str) -> bytes:
    """A one-note package whose note type's front template is `qfmt` (written into the
    collection after genanki made it, as genanki refuses templates it cannot render)."""
    model = genanki.Model(
        1_600_000_001, "Hostile", fields=[{"name": "A"}],
        templates=[{"name": "Card 1", "qfmt": "{{A}}", "afmt": "{{A}}"}],
    )  # fmt: skip
    deck = genanki.Deck(1_600_000_002, "Hostile")
    deck.add_note(genanki.Note(model=model, fields=[field]))
    path = tmp_path / "hostile.apkg"
    genanki.Package(deck).write_to_file(str(path))
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    collection = tmp_path / "collection.anki2"
    collection.write_bytes(members["collection.anki2"])
    db = sqlite3.connect(collection)
    models = json.loads(db.execute("SELECT models FROM col").fetchone()[0])
    for model_json in models.values():
        model_json["tmpls"][0]["qfmt"] = qfmt
    db.execute("UPDATE col SET models = ?", (json.dumps(models),))
    db.commit()
    db.close()
    members["collection.anki2"] = collection.read_bytes()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_a_template_that_names_a_field_over_and_over_is_refused(tmp_path):
    package = apkg_read(package_with_template(tmp_path, "{{A}}" * 2000, "x" * 2000))
    assert package.cards == []
    assert "passes 2 MiB once filled in" in package.skipped[0]


def test_the_reported_package_is_read_in_bounded_time(tmp_path):
    data = package_with_template(tmp_path, "{{#A}}" * 40_000, "x")
    assert len(data) < 4096
    assert cpu_seconds(lambda: apkg_read(data)) < CPU_SECONDS_MAX
