"""An author writes, previews, exports (.apkg, CSV, YAML) and re-imports reversed and cloze
cards, with their sources; an import preview says what is new, reworded and removed."""

import csv
import io
import json
import sqlite3
import zipfile

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from apps.authoring import formats, services
from apps.authoring.formats import export_deck, import_document
from apps.decks.models import Card
from apps.study.services import review_record

pytestmark = pytest.mark.django_db

CLOZE = "An actor is a {{c1::stateful}} worker; a task is {{c2::stateless::state?}}."
SOURCE = "Ray 2.40 docs: Ray Core > Actors"


@pytest.fixture
def dave_client(client, dave):
    client.force_login(dave)
    return client


@pytest.fixture
def author_api(api_client, dave):
    api_client.force_authenticate(dave)
    return api_client


def _new_card(client, **fields):
    data = {"section": "ray-core", "slug": "actor-vs-task", "kind": "cloze", "front": CLOZE,
            "back": "", "why": "", "card_source": SOURCE, "tags": "ray-core"}  # fmt: skip
    return client.post(reverse("authoring:card-new", args=["ray-basics"]), data | fields)


def _notes_of(package: bytes, tmp_path) -> tuple[list, dict]:
    """The notes (fields split, tags, note type id), note types and card count of an .apkg,
    read as Anki would: a zip holding an SQLite collection."""
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        (tmp_path / "c.anki2").write_bytes(archive.read("collection.anki2"))
    db = sqlite3.connect(tmp_path / "c.anki2")
    notes = [
        (flds.split("\x1f"), tags, mid)
        for flds, tags, mid in db.execute("select flds, tags, mid from notes order by id")
    ]
    models = json.loads(db.execute("select models from col").fetchone()[0])
    cards = db.execute("select count(*) from cards").fetchone()[0]
    db.close()
    return notes, models, cards


def test_the_editor_creates_one_card_per_deletion_and_shows_the_source(dave_client, small_deck):
    response = _new_card(dave_client)
    assert response.status_code == 302
    c1, c2 = small_deck.cards.filter(note_slug="actor-vs-task").order_by("ordinal")
    assert (c1.slug, c2.slug, c1.kind) == ("actor-vs-task-c1", "actor-vs-task-c2", "cloze")
    assert '<span class="cloze cloze-blank">[state?]</span>' in c2.front_html
    assert "Source:</span> Ray 2.40 docs: Ray Core &gt; Actors" in c1.back_html
    page = dave_client.get(reverse("authoring:card", args=[c1.pk])).content.decode()
    assert 'value="actor-vs-task"' in page and "Card c2" in page  # the note and its preview


def test_malformed_cloze_is_refused_in_the_editor_naming_the_card(dave_client, small_deck):
    response = _new_card(dave_client, front="An actor is {{c0::stateful}}.")
    assert response.status_code == 400
    assert "card &#x27;actor-vs-task&#x27;: cloze index c0 must start at 1" in (
        response.content.decode()
    )
    assert not small_deck.cards.filter(note_slug="actor-vs-task").exists()


def test_live_preview_of_a_cloze_front_shows_each_card(dave_client):
    url = reverse("authoring:preview")
    html = dave_client.post(url, {"front": CLOZE, "kind": "cloze"}).content.decode()
    assert html.count('class="cloze-preview"') == 2
    assert '<span class="cloze">stateful</span>' in html
    broken = dave_client.post(url, {"front": "no deletion", "kind": "cloze"}).content.decode()
    assert "needs at least one deletion" in broken
    plain = dave_client.post(url, {"front": CLOZE, "kind": "basic"}).content.decode()
    assert "{{c1::stateful}}" in plain


def test_an_edit_adding_a_deletion_adds_its_card_and_removing_one_retires_it(
    dave, small_deck, alice
):
    first = services.card_create(deck=small_deck, author=dave, section="ray-core",
                                 slug="pair", kind="cloze", front=CLOZE)  # fmt: skip
    second = small_deck.cards.get(slug="pair-c2")
    review_record(user=alice, card=second, grade=4)
    services.card_update(card=first, author=dave, front=CLOZE + " It has {{c3::methods}}.")
    assert sorted(small_deck.cards.filter(note_slug="pair").values_list("slug", flat=True)) == [
        "pair-c1", "pair-c2", "pair-c3",
    ]  # fmt: skip
    assert all(
        c.front.endswith("{{c3::methods}}.") for c in small_deck.cards.filter(note_slug="pair")
    )
    services.card_update(card=first, author=dave, front="An actor is a {{c1::stateful}} worker.")
    assert list(small_deck.cards.filter(note_slug="pair").values_list("slug", flat=True)) == [
        "pair-c1"
    ]
    kept = Card.all_objects.get(slug="pair-c2")
    assert kept.retired_at is not None and kept.states.filter(user=alice).exists()


def test_the_api_creates_a_reversed_pair_with_its_source(author_api, small_deck):
    body = {"section": "ray-core", "slug": "gcs", "kind": "reverse", "front": "GCS",
            "back": "Ray's head-node metadata store", "source": SOURCE}  # fmt: skip
    response = author_api.post("/api/author/decks/ray-basics/cards/", body, format="json")
    assert response.status_code == 201, response.json()
    assert (response.json()["kind"], response.json()["source"]) == ("reverse", SOURCE)
    backward = small_deck.cards.get(slug="gcs-reverse")
    assert backward.front_html == "<p>Ray's head-node metadata store</p>\n"
    patched = author_api.patch(f"/api/author/cards/{backward.pk}/", {"kind": "cloze"},
                               format="json")  # fmt: skip
    assert patched.status_code == 400 and "kind is set when it is created" in str(patched.json())
    public = author_api.get("/api/decks/ray-basics/").json()
    cards = {c["slug"]: c for s in public["sections"] for c in s["cards"]}
    assert cards["gcs-reverse"]["kind"] == "reverse" and cards["gcs"]["source"] == SOURCE


def test_apkg_writes_anki_cloze_and_reversed_note_types_and_comes_back(dave, small_deck, tmp_path):
    """Write a cloze and a reversed note, export .apkg, read the package back with zipfile and
    sqlite3 as Anki would, then re-import the notes Anki exports as text: the same cards."""
    services.card_create(deck=small_deck, author=dave, section="ray-core", slug="actor-vs-task",
                         kind="cloze", front=CLOZE, card_source=SOURCE)  # fmt: skip
    services.card_create(deck=small_deck, author=dave, section="ray-core", slug="gcs",
                         kind="reverse", front="GCS", back="Head-node metadata store")  # fmt: skip
    notes, models, cards = _notes_of(export_deck(small_deck, "apkg"), tmp_path)
    assert len(notes) == 7  # five basic notes, one cloze note, one reversed note
    assert cards == 9  # Anki schedules the same cards: 5 + 2 deletions + 2 directions
    by_slug = {fields[3]: (fields, tags, str(mid)) for fields, tags, mid in notes}
    cloze_fields, _, cloze_mid = by_slug["actor-vs-task"]
    assert models[cloze_mid]["type"] == 1  # Anki's cloze note type
    assert models[cloze_mid]["tmpls"][0]["qfmt"] == "{{cloze:Text}}"
    assert [f["name"] for f in models[cloze_mid]["flds"]][:2] == ["Text", "Back Extra"]
    assert "{{c2::stateless::state?}}" in cloze_fields[0] and cloze_fields[4] == (
        "Ray 2.40 docs: Ray Core &gt; Actors"
    )
    _, _, reverse_mid = by_slug["gcs"]
    assert [t["name"] for t in models[reverse_mid]["tmpls"]] == ["Card 1", "Card 2"]
    assert models[by_slug["ray-task"][2]]["type"] == 0

    # Anki's "Notes in Plain Text" export of that collection, with the note type column.
    names = {mid: model["name"] for mid, model in models.items()}
    out = io.StringIO()
    out.write("#separator:tab\n#html:true\n#notetype column:1\n#tags column:7\n")
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    for fields, tags, mid in notes:
        writer.writerow([names[str(mid)], *fields, tags.strip()])
    doc = import_document(out.getvalue().encode(), filename="notes.txt", deck_slug="ray-basics")
    result = services.deck_import(doc=doc, user=dave)
    assert (result.created, result.changed, result.retired) == (0, 0, {})

    Card.all_objects.filter(note_slug="actor-vs-task").delete()  # a fresh site: from Anki alone
    result = services.deck_import(doc=doc, user=dave)
    assert result.created_slugs == ["actor-vs-task-c1", "actor-vs-task-c2"]
    again = small_deck.cards.get(slug="actor-vs-task-c2")
    assert (again.kind, again.source) == ("cloze", "Ray 2.40 docs: Ray Core > Actors")
    assert '<span class="cloze cloze-blank">[state?]</span>' in again.front_html


def test_csv_and_yaml_exports_carry_kind_and_source(dave, small_deck):
    services.card_create(deck=small_deck, author=dave, section="ray-core", slug="actor-vs-task",
                         kind="cloze", front=CLOZE, card_source=SOURCE)  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(export_deck(small_deck, "csv").decode())))
    cloze = next(r for r in rows if r["slug"] == "actor-vs-task")
    assert (cloze["kind"], cloze["source"], len(rows)) == ("cloze", SOURCE, 6)
    document = yaml.safe_load(export_deck(small_deck, "yaml"))
    entry = document["sections"][0]["cards"][-1]
    assert (entry["slug"], entry["kind"], entry["source"]) == ("actor-vs-task", "cloze", SOURCE)
    for fmt, name in (("csv", "d.csv"), ("yaml", "d.yaml")):
        doc = import_document(export_deck(small_deck, fmt), filename=name, deck_slug="ray-basics")
        result = services.deck_import(doc=doc, user=dave, dry_run=True)
        assert (result.created, result.changed, result.retired) == (0, 0, {}), fmt


def test_a_csv_row_with_broken_cloze_markup_is_refused_naming_the_line_and_card(small_deck):
    data = b"slug,kind,front,back,section,tags\nbad,cloze,{{c1::open,,ray-core,\n"
    with pytest.raises(formats.ContentError, match=r"line 2 \(card 'bad'\): unbalanced cloze"):
        import_document(data, filename="bad.csv", deck_slug="ray-basics")


def test_import_preview_lists_new_reworded_and_removed_cards_with_learners_and_warnings(
    dave_client, small_deck, alice_studied
):
    document = yaml.safe_load(export_deck(small_deck, "yaml"))
    cards = document["sections"][0]["cards"]
    cards[1]["back"] = "A stateful worker process, reworded."
    cards[0] = {"slug": "ray-task-call", "front": "A task is?", "back": "A remote call."}
    upload = SimpleUploadedFile("deck.yaml", yaml.safe_dump(document).encode())
    html = dave_client.post(reverse("authoring:import"), {"file": upload}).content.decode()
    assert "New (learners start them fresh): ray-task-call" in html
    assert "Changed: reworded or moved (learners keep their schedules): ray-actor" in html
    assert "<code>ray-task</code>: 1 learner had progress" in html
    assert "card &#x27;ray-task-call&#x27;: no source" in html  # the lint, as a warning
    assert small_deck.cards.filter(slug="ray-task").exists()  # a preview writes nothing


def test_import_command_prints_retired_cards_and_warnings(small_deck, alice_studied, tmp_path):
    document = yaml.safe_load(export_deck(small_deck, "yaml"))
    document["sections"][0]["cards"].pop(0)  # ray-task, which alice studied
    path = tmp_path / "deck.yaml"
    path.write_text(yaml.safe_dump(document))
    out = io.StringIO()
    call_command("import_deck", str(path), "--dry-run", stdout=out)
    text = out.getvalue()
    assert "0 new, 2 changed, 2 unchanged cards, 1 retired (1 learner progress record kept)" in text
    assert "retired ray-task: 1 learner(s) had progress (kept)" in text
    assert "warning: card 'ray-actor': no source" in text
