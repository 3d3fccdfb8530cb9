"""Import and export: exact round trips, preview counts, Anki in and out, and refused files."""

import csv
import io
import json
import sqlite3
import zipfile

import pytest
import yaml
from django.core.management import CommandError, call_command

from apps.authoring import formats, services
from apps.authoring.formats import export_deck, import_document
from apps.authoring.models import Revision
from apps.decks.content import MAX_FILE_BYTES, ContentError, deck_document
from apps.decks.models import Card, Deck

pytestmark = pytest.mark.django_db


def _import(data: bytes | str, filename: str, *, user=None, dry_run=False, **options):
    data = data.encode() if isinstance(data, str) else data
    doc = import_document(data, filename=filename, **options)
    return services.deck_import(doc=doc, user=user, dry_run=dry_run)


def _cards(deck_slug: str) -> list[tuple]:
    return list(
        Card.objects.filter(deck__slug=deck_slug)
        .order_by("section__order", "order")
        .values_list("section__slug", "section__title", "slug", "front", "back", "why", "tags")
    )


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_own_format_round_trips_exactly_into_an_empty_database(seeded, fmt):
    deck = Deck.objects.get(slug="distributed-rl-on-ray")
    document, exported = deck_document(deck), export_deck(deck, fmt)
    shipped = Card.objects.filter(deck=deck).count()
    assert shipped >= 308
    Deck.objects.all().delete()

    result = _import(exported, f"deck.{fmt}")
    deck = Deck.objects.get(slug="distributed-rl-on-ray")
    assert (result.created, result.changed, result.unchanged) == (shipped, 0, 0)
    assert deck_document(deck) == document
    assert export_deck(deck, fmt) == exported
    assert deck.is_published is False, "an imported new deck starts as a draft"


def test_yaml_export_is_readable_and_loads_back(small_deck):
    text = export_deck(small_deck, "yaml").decode()
    assert text.startswith("slug: ray-basics\ntitle: Ray basics\n")
    assert yaml.safe_load(text) == deck_document(small_deck)


def test_csv_round_trips_front_back_section_and_tags(small_deck, staff):
    ray_task = small_deck.cards.get(slug="ray-task")
    back = 'Stateless, "remote",\nand multi-line.'
    services.card_update(card=ray_task, author=staff, tags=["core", "tasks"], back=back)
    before = _cards("ray-basics")
    exported = export_deck(small_deck, "csv")
    Deck.objects.all().delete()

    result = _import(exported, "cards.csv", deck_slug="ray-basics", deck_title="Ray basics")
    assert result.created == 5
    assert _cards("ray-basics") == before
    assert export_deck(Deck.objects.get(slug="ray-basics"), "csv") == exported


def test_preview_counts_new_changed_unchanged_and_writes_nothing(small_deck, staff):
    rows = list(csv.DictReader(io.StringIO(export_deck(small_deck, "csv").decode())))
    rows[0]["back"] = "A remote function call without state."
    rows.append({**rows[1], "slug": "", "front": "What is a placement group?", "back": "A gang."})
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=formats.CSV_COLUMNS)
    writer.writeheader()
    writer.writerows(rows)
    data = out.getvalue()

    preview = _import(data, "x.csv", deck_slug="ray-basics", user=staff, dry_run=True)
    assert (preview.created, preview.changed, preview.unchanged) == (1, 1, 4)
    assert preview.changed_slugs == ["ray-task"]
    assert small_deck.cards.count() == 5
    assert small_deck.cards.get(slug="ray-task").back == "A stateless remote function call."
    assert not Revision.objects.exists()

    result = _import(data, "x.csv", deck_slug="ray-basics", user=staff)
    assert (result.created, result.changed, result.unchanged) == (1, 1, 4)
    new = small_deck.cards.get(slug="what-is-a-placement-group")
    assert new.section.slug == "ray-core"
    sources = set(Revision.objects.values_list("card__slug", "source", "author__username"))
    assert sources == {
        ("ray-task", "original", None), ("ray-task", "import", "staff"),
        ("what-is-a-placement-group", "import", "staff"),
    }  # fmt: skip


def test_import_keeps_learners_progress(small_deck, alice_studied):
    data = (
        export_deck(small_deck, "yaml")
        .decode()
        .replace("A stateless remote function call.", "A stateless remote function call (fixed).")
    )
    due = alice_studied.due_at
    assert _import(data, "d.yaml").changed == 1
    alice_studied.refresh_from_db()
    assert alice_studied.due_at == due


def test_anki_text_export_is_read_and_sanitised(small_deck):
    text = (
        "#separator:tab\n#html:true\n#tags column:3\n"
        "What is <b>Ray</b>?\tA framework&nbsp;for <i>distributed</i> Python<br>apps."
        "<script>alert(1)</script>\tray core\n"
        '"Multi\tfield?"\t"Quoted ""back"""\t\n'
    )
    result = _import(text, "anki.txt", deck_slug="ray-basics")
    assert result.created == 2
    card = small_deck.cards.get(slug="what-is-ray")
    assert card.front == "What is Ray?"
    assert card.back == "A framework for distributed Python\napps."
    assert card.tags == ["ray", "core"]
    assert card.section.slug == "imported-from-anki"
    assert small_deck.cards.get(slug="multi-field").back == 'Quoted "back"'


def test_apkg_opens_with_one_note_per_card_and_stable_ids(small_deck, tmp_path):
    data = export_deck(small_deck, "apkg")
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        assert "collection.anki2" in package.namelist()
        (tmp_path / "collection.anki2").write_bytes(package.read("collection.anki2"))
    db = sqlite3.connect(tmp_path / "collection.anki2")
    notes = db.execute("select guid, mid, flds, tags from notes order by sfld").fetchall()
    models = db.execute("select models from col").fetchone()[0]
    db.close()
    assert len(notes) == 5
    fields = {row[2].split("\x1f")[3]: row[2].split("\x1f") for row in notes}
    assert fields["ray-task"][0] == "<p>What is a Ray task?</p>\n"
    assert fields["ray-task"][1] == "<p>A stateless remote function call.</p>\n"
    guids = {row[2].split("\x1f")[3]: row[0] for row in notes}
    assert guids["ray-task"] == formats.anki_guid(small_deck, "ray-task")
    model_id = formats.anki_model(small_deck).model_id
    assert {row[1] for row in notes} == {model_id}
    assert str(model_id) in models
    assert "ray-core" in [row[3] for row in notes if row[2].endswith("ray-task\x1f")][0]


# Refused files: a message naming the line or entry and the problem, and nothing imported.


def _refused(data: str | bytes, filename: str, **options) -> str:
    count = Card.objects.count()
    with pytest.raises(ContentError) as exc:
        _import(data, filename, **options)
    assert Card.objects.count() == count
    return str(exc.value)


def test_malformed_yaml_names_the_line(small_deck):
    message = _refused("slug: x\ntitle: [unclosed\nsections: 3\n", "bad.yaml")
    assert message.startswith("bad.yaml: line ") and "not valid YAML" in message


def test_malformed_json_names_the_line(small_deck):
    assert _refused('{\n  "slug": "x",\n  oops\n}', "bad.json") == (
        "bad.json: line 3: not valid JSON (Expecting property name enclosed in double quotes)"
    )


def test_csv_missing_column_is_named(small_deck):
    message = _refused("front,back,tags\nQ,A,x\n", "cards.csv", deck_slug="ray-basics")
    assert message.startswith("cards.csv: line 1: missing column 'section'")


def test_csv_duplicate_slug_names_both_lines(small_deck):
    data = "front,back,section,tags\nWhat is Ray?,A,core,\nX,Y,core,\nWhat is Ray?,B,core,\n"
    assert _refused(data, "cards.csv", deck_slug="ray-basics") == (
        "cards.csv: line 4: duplicate card slug 'what-is-ray', also on line 2 "
        "(give one of them its own slug in a slug column)"
    )


def test_csv_line_numbers_count_multi_line_fields(small_deck):
    data = 'front,back,section,tags\n"Q\nwith two lines",A,core,\nQ2,,core,\n'
    assert _refused(data, "cards.csv", deck_slug="ray-basics") == (
        "cards.csv: line 4: back is empty"
    )


def test_duplicate_slug_in_own_format_names_the_entry(small_deck):
    document = deck_document(small_deck)
    document["sections"][1]["cards"][0]["slug"] = "ray-task"
    message = _refused(yaml.safe_dump(document), "dup.yaml")
    assert message == (
        "dup.yaml: card 'ray-task': duplicate card slug 'ray-task'"
        " (card slugs are unique in a deck)"
    )


def test_oversized_file_is_refused_with_the_limit(small_deck):
    data = b"front,back,section,tags\n" + b"x" * MAX_FILE_BYTES
    message = _refused(data, "big.csv", deck_slug="ray-basics")
    assert message == (
        "big.csv: the file is larger than 2 MiB, the import limit"
        " (split the deck or import it in parts)"
    )


def test_markdown_with_script_imports_but_renders_sanitised(small_deck):
    data = (
        "front,back,section,tags,slug\nQ,<script>alert(1)</script> <b onclick=x>hi</b>,core,,xss\n"
    )
    _import(data, "x.csv", deck_slug="ray-basics")
    card = small_deck.cards.get(slug="xss")
    assert "<script" not in card.back_html and "<b" not in card.back_html
    assert (
        card.back_html
        == "<p>&lt;script&gt;alert(1)&lt;/script&gt; &lt;b onclick=x&gt;hi&lt;/b&gt;</p>\n"
    )


def test_commands_export_and_import(small_deck, tmp_path):
    out = tmp_path / "deck.json"
    call_command("export_deck", "ray-basics", "--format", "json", "-o", str(out),
                 stderr=io.StringIO())  # fmt: skip
    stdout = io.StringIO()
    call_command("import_deck", str(out), "--dry-run", stdout=stdout)
    # then the content lint's warnings: the small deck's cards name no source
    assert stdout.getvalue().splitlines()[0] == (
        "Dry run, nothing written: ray-basics: 0 new, 0 changed, 5 unchanged cards"
    )
    apkg = tmp_path / "deck.apkg"
    call_command("export_deck", "ray-basics", "--format", "apkg", "-o", str(apkg),
                 stderr=io.StringIO())  # fmt: skip
    assert zipfile.is_zipfile(apkg)


def test_import_command_refuses_a_bad_file(small_deck, tmp_path):
    bad = tmp_path / "cards.csv"
    bad.write_text("front,back\nQ,A\n")
    with pytest.raises(CommandError) as exc:
        call_command("import_deck", str(bad), "--deck", "ray-basics")
    assert str(exc.value) == (
        "Nothing was imported. cards.csv: line 1: missing column 'section' (the header needs "
        "front, back, section, tags; optional: slug, section_title, why, kind, source)"
    )
    with pytest.raises(CommandError, match="No deck 'nope'"):
        call_command("export_deck", "nope")


def test_a_deck_taken_through_anki_and_back_updates_rather_than_duplicates(small_deck, tmp_path):
    """Export .apkg, let "Anki" export its notes as plain text, import that: same cards."""
    with zipfile.ZipFile(io.BytesIO(export_deck(small_deck, "apkg"))) as package:
        (tmp_path / "c.anki2").write_bytes(package.read("collection.anki2"))
    db = sqlite3.connect(tmp_path / "c.anki2")
    notes = db.execute("select flds, tags from notes").fetchall()
    db.close()
    out = io.StringIO()
    out.write("#separator:tab\n#html:true\n#tags column:6\n")
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    for fields, tags in notes:
        writer.writerow([*fields.split("\x1f"), tags.strip()])

    result = _import(out.getvalue(), "notes.txt", deck_slug="ray-basics")
    assert (result.created, result.changed, result.unchanged) == (0, 0, 5)
    assert not small_deck.sections.filter(slug=formats.ANKI_SECTION).exists()


def test_csv_export_defuses_spreadsheet_formulas_and_still_round_trips(small_deck, staff):
    """A cell starting with = + - @ is a formula to Excel and LibreOffice; a card text like
    =HYPERLINK(...) must not run when an author opens the export, and must come back as it was."""
    ray_task = small_deck.cards.get(slug="ray-task")
    services.card_update(
        card=ray_task, author=staff, front='=HYPERLINK("http://evil.example","click")',
        back="- a Markdown list\n- of two items", why="@SUM(A1)", tags=["+1", "core"],
    )  # fmt: skip
    services.card_update(
        card=small_deck.cards.get(slug="ray-actor"), author=staff, front="'=not a formula"
    )
    before = _cards("ray-basics")
    exported = export_deck(small_deck, "csv")

    cells = [cell for row in csv.reader(io.StringIO(exported.decode())) for cell in row]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "-", "@", "\t", "\r")]
    Deck.objects.all().delete()
    _import(exported, "cards.csv", deck_slug="ray-basics", deck_title="Ray basics")
    assert _cards("ray-basics") == before


def test_yaml_aliases_are_refused_so_a_small_file_cannot_expand_past_the_limit(small_deck):
    """A 190 KB file whose 2,000 cards each alias one list of 20,000 tags parses into 40 million
    tags (a 'billion laughs'); the size limit means nothing unless aliases are refused."""
    text = "slug: bomb\ntitle: Bomb\nsections:\n- slug: s\n  title: S\n  cards:\n"
    text += "  - {slug: c0, front: f, back: b, tags: &t [" + ",".join(["x"] * 20000) + "]}\n"
    text += "".join(f"  - {{slug: c{i}, front: f, back: b, tags: *t}}\n" for i in range(1, 2000))
    message = _refused(text, "bomb.yaml")
    assert message == "bomb.yaml: line 8: not valid YAML (aliases (*name) are not allowed)"
    assert not Deck.objects.filter(slug="bomb").exists()


def test_csv_section_or_deck_title_too_long_is_refused_by_line_not_a_database_error(small_deck):
    """PostgreSQL refuses a title over 200 characters with a DataError (a 500); SQLite took it."""
    long = "x" * 201
    data = f"front,back,section,tags\nQ,A,core,\nQ2,A2,{long},\n"
    assert _refused(data, "cards.csv", deck_slug="ray-basics") == (
        "cards.csv: line 3: section title is longer than 200 characters"
    )
    data = "front,back,section,tags\nQ,A,core,\n"
    assert _refused(data, "cards.csv", deck_slug="new-deck", deck_title=long) == (
        "cards.csv: deck title is longer than 200 characters"
    )


def test_import_command_reads_no_more_than_the_limit(small_deck):
    """/dev/zero says it is 0 bytes long and never ends: the command must stop reading at the
    limit and refuse it, not read until memory runs out."""
    with pytest.raises(CommandError) as exc:
        call_command("import_deck", "/dev/zero", "--format", "csv", "--deck", "ray-basics")
    assert str(exc.value) == (
        "Nothing was imported. zero: the file is larger than 2 MiB, the import limit"
        " (split the deck or import it in parts)"
    )


@pytest.mark.parametrize(
    ("filename", "data", "line"),
    [
        ("nul.csv", "front,back,section,tags\nQ,A,core,\nQ2,A\x002,core,\n", 3),
        ("nul.json", '{"slug": "x",\n"title": "A\\u0000B", "sections": []}', 2),
        ("nul.txt", "Q\tA\nQ2\tA\x002\n", 2),
    ],
)
def test_a_nul_character_is_refused_by_line_not_a_database_error(small_deck, filename, data, line):
    """PostgreSQL text cannot hold NUL (a DataError, so a 500); SQLite stored it."""
    message = _refused(data, filename, deck_slug="ray-basics")
    assert message.startswith(f"{filename}: line {line}: contains a NUL character")


def test_a_json_deck_may_still_mention_the_text_backslash_u0000(small_deck):
    document = deck_document(small_deck)
    document["sections"][0]["cards"][0]["back"] = "JSON writes NUL as \\u0000."
    _import(json.dumps(document), "deck.json")
    assert small_deck.cards.get(slug="ray-task").back == "JSON writes NUL as \\u0000."


def test_yaml_export_keeps_unicode_line_separators(small_deck, staff):
    """YAML reads NEL, LS and PS as line breaks and folds them into spaces unless quoted."""
    text = "a\x85b \u2028c\u2029d\nsecond\x85line"
    one_line = "x\x85y\u2028z"
    services.card_update(
        card=small_deck.cards.get(slug="ray-task"), author=staff, back=text, why=one_line
    )
    exported = export_deck(small_deck, "yaml")
    Deck.objects.all().delete()
    _import(exported, "deck.yaml")
    card = Card.objects.get(slug="ray-task")
    assert (card.back, card.why) == (text, one_line)


def test_anki_notes_of_other_note_types_are_not_taken_for_raydeck_slugs(small_deck):
    """Only a note of RayDeck's own note type (Front, Back, Why, Slug, Source) carries a card
    slug; a vocabulary note whose 4th field is 'noun' is an ordinary new card."""
    text = (
        "#separator:tab\n#html:false\n#notetype column:1\n#tags column:6\n"
        "Vocab\tcasa\thouse\tnoun\tnoun\tes\nVocab\tperro\tdog\tnoun\tnoun\tes\n"
        "Vocab\tgato\tcat\t\tray-task\tes\n"
    )
    result = _import(text, "vocab.txt", deck_slug="ray-basics")
    assert (result.created, result.changed) == (3, 0)
    assert {"casa", "perro", "gato"} <= set(small_deck.cards.values_list("slug", flat=True))
    assert small_deck.cards.get(slug="ray-task").front == "What is a Ray task?"
    six = "#separator:tab\nuno\tone\tx\tray-actor\tsource\textra\n"
    assert _import(six, "six.txt", deck_slug="ray-basics").created == 1
    assert small_deck.cards.get(slug="ray-actor").front == "What is a Ray actor?"


def test_anki_columns_header_names_the_tags_column(small_deck):
    text = "#separator:comma\n#columns:Front,Back,Tags\nWhat is Ray?,A framework,intro core\n"
    _import(text, "cols.txt", deck_slug="ray-basics")
    assert small_deck.cards.get(slug="what-is-ray").tags == ["intro", "core"]


def test_anki_fronts_alike_in_their_first_60_characters_get_their_own_slugs(small_deck):
    """An Anki file has no slug column, so long fronts sharing a start must not be refused."""
    start = "Which of the following statements about Ray actors and their state is true"
    text = f"{start} for a restarted actor?\tA\n{start} for a detached actor?\tB\n"
    assert _import(text, "long.txt", deck_slug="ray-basics").created == 2
    assert _import(text, "long.txt", deck_slug="ray-basics").unchanged == 7, "re-import: same"
    same = "What is Ray?\tA\nWhat is Ray?\tB\n"
    assert _refused(same, "same.txt", deck_slug="ray-basics") == (
        "same.txt: line 2: the same front as line 1 (card slugs come from the front)"
    )


def test_an_anki_front_with_an_underscore_gets_a_slug_the_rule_takes(small_deck):
    """`num_cpus` in a front: slugify keeps the underscore, which the slug rule refuses, so the
    learner would be told a name they never typed is wrong."""
    text = "What does `num_cpus=0` on an actor mean?\tIt holds no CPU while it runs\n"
    assert _import(text, "ray.txt", deck_slug="ray-basics").created == 1
    assert Card.objects.filter(slug="what-does-num-cpus0-on-an-actor-mean").exists()


def test_csv_round_trips_a_single_tag_with_a_space(small_deck, staff):
    services.card_update(
        card=small_deck.cards.get(slug="ray-task"), author=staff, tags=["object store"]
    )
    services.card_update(
        card=small_deck.cards.get(slug="ray-actor"), author=staff, tags=["a b", "c"]
    )
    before = _cards("ray-basics")
    exported = export_deck(small_deck, "csv")
    Deck.objects.all().delete()
    _import(exported, "cards.csv", deck_slug="ray-basics", deck_title="Ray basics")
    assert _cards("ray-basics") == before


def test_csv_saved_by_a_spreadsheet_with_semicolons_or_tabs_imports(small_deck):
    """Excel in many European locales writes ; between fields; the header says which it is."""
    data = "\ufefffront;back;section;tags\r\n"
    data += 'What is Ray?;"A framework; for Python";ray-core;intro\r\n'
    assert _import(data, "excel.csv", deck_slug="ray-basics").created == 1
    assert small_deck.cards.get(slug="what-is-ray").back == "A framework; for Python"
    data = "front\tback\tsection\ttags\nWhat is RLlib?\tRL library\trllib\t\n"
    assert _import(data, "tabs.csv", deck_slug="ray-basics").created == 1


def test_anki_round_trip_keeps_the_markdown_of_cards_not_edited_in_anki(
    small_deck, staff, tmp_path
):
    """Anki's text export holds the HTML our Markdown became, with the tags stripped: an
    unedited card must keep its Markdown (bold, code), and only a card edited in Anki changes."""
    ray_task = small_deck.cards.get(slug="ray-task")
    back = "A **stateless** remote call:\n\n```python\n@ray.remote\ndef f(): ...\n```"
    services.card_update(card=ray_task, author=staff, back=back, why="See `ray.get`.")
    with zipfile.ZipFile(io.BytesIO(export_deck(small_deck, "apkg"))) as package:
        (tmp_path / "c.anki2").write_bytes(package.read("collection.anki2"))
    db = sqlite3.connect(tmp_path / "c.anki2")
    notes = db.execute("select flds, tags from notes").fetchall()
    db.close()
    out = io.StringIO()
    out.write("#separator:tab\n#html:true\n#tags column:6\n")
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    for fields, tags in notes:
        fields = fields.split("\x1f")
        if fields[3] == "ray-actor":
            fields[1] = "A stateful worker process, edited in Anki."
        writer.writerow([*fields, tags.strip()])

    result = _import(out.getvalue(), "notes.txt", deck_slug="ray-basics")
    assert (result.created, result.changed, result.unchanged) == (0, 1, 4)
    ray_task.refresh_from_db()
    assert (ray_task.back, ray_task.why) == (back, "See `ray.get`.")
    assert small_deck.cards.get(slug="ray-actor").back == (
        "A stateful worker process, edited in Anki."
    )
