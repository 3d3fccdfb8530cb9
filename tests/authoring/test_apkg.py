"""Importing Anki packages (.apkg): our own export comes back as the same cards; a genanki
package with Basic, Basic-and-reversed and Cloze notes, sub-decks, tags, HTML and media imports
as basic cards in sections; hostile files are refused with a sentence and change nothing."""

import io
import re
import sqlite3
import zipfile

import genanki
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.authoring import services
from apps.authoring.apkg import CLOZE_BLANK, ApkgError, apkg_read, cloze_basic
from apps.authoring.formats import export_deck, import_document
from apps.decks.content import MAX_FILE_BYTES, ContentError
from apps.decks.models import Card, Deck

pytestmark = pytest.mark.django_db


def _import(data: bytes, *, user=None, dry_run=False, **options):
    doc = import_document(data, filename="deck.apkg", **options)
    return doc, services.deck_import(doc=doc, user=user, dry_run=dry_run)


def _cards(deck_slug: str) -> list[tuple]:
    return list(
        Card.objects.filter(deck__slug=deck_slug)
        .order_by("section__order", "order")
        .values_list("section__slug", "slug", "front", "back", "tags")
    )


def genanki_package(tmp_path, *, media: bool = True) -> bytes:
    """A package as Anki users bring them: the three stock note types, sub-decks, tags, HTML."""
    parent = genanki.Deck(1_500_000_001, "Distributed RL")
    actors = genanki.Deck(1_500_000_002, "Distributed RL::Actors and learners")
    parent.add_note(
        genanki.Note(
            model=genanki.BASIC_MODEL,
            fields=["What does <b>spillback</b> mean?<script>alert(1)</script>",
                    "A task sent on to another node<br>when its own is full."],
            tags=["scheduling"],
        )
    )  # fmt: skip
    actors.add_note(
        genanki.Note(
            model=genanki.BASIC_AND_REVERSED_CARD_MODEL,
            fields=["IMPALA", "An actor-learner architecture with V-trace"],
            tags=["impala", "papers"],
        )
    )
    actors.add_note(
        genanki.Note(
            model=genanki.CLOZE_MODEL,
            fields=["{{c1::Ape-X}} uses a {{c2::distributed replay buffer::buffer}}.", "2018"],
        )
    )
    if media:
        actors.add_note(
            genanki.Note(
                model=genanki.BASIC_MODEL, fields=['The learner <img src="learner.png">', "GPU"]
            )
        )
    files = []
    if media:
        image = tmp_path / "learner.png"
        image.write_bytes(b"\x89PNG not really")
        files = [str(image)]
    path = tmp_path / "stock.apkg"
    genanki.Package([parent, actors], media_files=files).write_to_file(str(path))
    return path.read_bytes()


def test_cloze_basic_blanks_one_deletion_and_fills_the_back():
    text = "{{c1::Ape-X}} uses a {{c2::replay buffer::where}}."
    assert cloze_basic(text, 1) == ("[...] uses a replay buffer.", "Ape-X uses a replay buffer.")
    assert cloze_basic(text, 2) == ("Ape-X uses a [where].", "Ape-X uses a replay buffer.")


def test_our_own_export_imports_back_to_the_same_cards(small_deck, staff):
    small_deck.cards.filter(slug="ray-task").update(tags=["core", "tasks"])
    before = _cards("ray-basics")
    data = export_deck(small_deck, "apkg")
    _, same = _import(data, user=staff, deck_slug="ray-basics", dry_run=True)
    assert (same.created, same.changed, same.unchanged) == (0, 0, 5)
    doc, copy = _import(data, user=staff, deck_slug="ray-copy")
    assert copy.created == 5 and doc.notes == []
    assert _cards("ray-copy") == before  # text, slugs, sections (by slug) and tags
    assert Deck.objects.get(slug="ray-copy").title == "Ray basics"


def test_a_genanki_package_of_the_three_note_types(small_deck, staff, tmp_path):
    doc, result = _import(genanki_package(tmp_path), user=staff)
    assert doc.slug == "distributed-rl" and result.created == 6
    deck = Deck.objects.get(slug="distributed-rl")
    assert deck.title == "Distributed RL" and not deck.is_published
    cards = {c.slug: c for c in deck.cards.select_related("section")}
    by_front = {c.front: c for c in cards.values() if c.kind == "basic"}
    spill = by_front["What does spillback mean?"]  # HTML to text; the script is gone
    assert spill.back == "A task sent on to another node\nwhen its own is full."
    assert spill.section.slug == "imported-from-anki" and spill.tags == ["scheduling"]
    assert "<script" not in spill.front_html and "alert" not in spill.front_html
    # Basic (and reversed card): one note, RayDeck's reverse kind makes both cards of it
    forward, backward = sorted(
        (c for c in cards.values() if c.kind == "reverse"), key=lambda c: c.ordinal
    )
    assert backward.slug == f"{forward.slug}-reverse" and backward.note_slug == forward.slug
    assert (forward.front, forward.back) == ("IMPALA", "An actor-learner architecture with V-trace")
    assert "An actor-learner" in backward.front_html and "IMPALA" in backward.back_html
    assert forward.section.slug == "actors-and-learners"
    assert forward.section.title == "Actors and learners"
    assert forward.tags == ["impala", "papers"]
    # Cloze: one note, a cloze card per deletion, the deletions kept as RayDeck's markup
    c1, c2 = sorted((c for c in cards.values() if c.kind == "cloze"), key=lambda c: c.ordinal)
    assert c1.front == "{{c1::Ape-X}} uses a {{c2::distributed replay buffer::buffer}}."
    assert (c1.slug, c2.slug) == (f"{c1.note_slug}-c1", f"{c1.note_slug}-c2")
    assert c1.back == "2018"
    assert "[...]" in c1.front_html and "distributed replay buffer" in c1.front_html
    assert "[buffer]" in c2.front_html and "Ape-X" in c2.front_html
    # its image (not a real PNG) is refused with a sentence; the card shows a placeholder
    learner = by_front["The learner ![](<media:learner.png>)"]
    assert learner.back == "GPU" and "[image missing: learner.png]" in learner.front_html
    assert doc.notes == [
        "image left out: learner.png is not an image that can be read (PNG, JPEG, GIF or WebP)"
    ]
    # the same package again: the same cards (slugs from the notes' guids), nothing new
    _, again = _import(genanki_package(tmp_path), user=staff)
    assert (again.created, again.changed) == (0, 0)


def _zip(members: dict[str, bytes], method=zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def _sqlite(tmp_path, sql: str) -> bytes:
    path = tmp_path / "other.sqlite"
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.commit()
    db.close()
    return path.read_bytes()


HOSTILE = {
    "a zip bomb": (
        lambda tmp: _zip({"collection.anki2": b"SQLite format 3\x00" + b"\0" * (65 * 2**20)}),
        "refused as a zip bomb",
    ),
    "a ratio bomb": (
        lambda tmp: _zip({"collection.anki2": b"SQLite format 3\x00" + b"\0" * (3 * 2**20)}),
        "more than 100 times its packed size",
    ),
    "a non-zip": (lambda tmp: b"front\tback\n", "not a zip file"),
    "a zip without a collection": (
        lambda tmp: _zip({"media": b"{}", "0": b"png"}),
        "no collection.anki21 or collection.anki2",
    ),
    "the new zstd format": (
        lambda tmp: _zip({"collection.anki21b": b"\x28\xb5\x2f\xfd", "collection.anki2": b""}),
        "collection.anki21b, the zstd-compressed format",
    ),
    "a corrupt SQLite file": (
        lambda tmp: _zip({"collection.anki21": b"SQLite format 3\x00" + b"\x13" * 5000}),
        "not a readable SQLite database",
    ),
    "not SQLite at all": (
        lambda tmp: _zip({"collection.anki2": b"hello"}),
        "not an SQLite database",
    ),
    "an unknown schema": (
        lambda tmp: _zip({"collection.anki2": _sqlite(tmp, "CREATE TABLE col (id int);")}),
        "table col has no column decks",
    ),
    "a schema without notes": (
        lambda tmp: _zip(
            {"collection.anki2": _sqlite(tmp, "CREATE TABLE col (models text, decks text);")}
        ),
        "no notes table",
    ),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_packages_are_refused_and_change_nothing(small_deck, staff, tmp_path, case):
    build, message = HOSTILE[case]
    data = build(tmp_path)
    assert len(data) <= MAX_FILE_BYTES
    with pytest.raises(ApkgError, match=message):
        apkg_read(data)
    with pytest.raises(ContentError, match=message):
        import_document(data, filename="evil.apkg", deck_slug="evil")
    assert Deck.objects.count() == 1


def test_inflating_stops_at_the_cap_whatever_the_ratio(monkeypatch):
    monkeypatch.setattr("apps.authoring.apkg.MAX_RATIO", 10**6)
    data = HOSTILE["a zip bomb"][0](None)
    with pytest.raises(ApkgError, match="inflates past 64 MiB"):
        apkg_read(data)


def test_a_package_over_the_cap_is_refused(small_deck):
    with pytest.raises(ContentError, match="larger than 2 MiB, the import limit"):
        import_document(b"PK" + b"\0" * MAX_FILE_BYTES, filename="big.apkg")


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def test_the_import_page_previews_notes_then_commits_in_one_go(staff_client, tmp_path):
    upload = SimpleUploadedFile("stock.apkg", genanki_package(tmp_path))
    response = staff_client.post(reverse("authoring:import"), {"file": upload})
    html = response.content.decode()
    assert response.status_code == 200 and "<strong>6</strong> new" in html
    assert "image left out: learner.png" in html and not Deck.objects.filter(slug="distributed-rl")
    token = html.split('name="preview" value="')[1].split('"')[0]
    response = staff_client.post(reverse("authoring:import"), {"commit": "1", "preview": token})
    assert response.status_code == 302
    assert Deck.objects.get(slug="distributed-rl").cards.count() == 6


@pytest.mark.parametrize("case", ["a zip bomb", "a non-zip", "an unknown schema"])
def test_the_page_and_the_api_answer_400_to_hostile_packages(
    staff_client, api_client, staff, small_deck, tmp_path, case
):
    build, message = HOSTILE[case]
    data = build(tmp_path)
    upload = SimpleUploadedFile("evil.apkg", data)
    response = staff_client.post(reverse("authoring:import"), {"file": upload, "deck": "evil"})
    assert response.status_code == 400 and message in response.content.decode()
    api_client.force_authenticate(staff)
    response = api_client.post(
        "/api/author/import/", {"file": SimpleUploadedFile("evil.apkg", data), "deck": "evil"}
    )
    assert response.status_code == 400 and message in response.json()["error"]
    assert Deck.objects.count() == 1


def test_the_api_imports_a_package_and_lists_its_notes(api_client, staff, tmp_path):
    api_client.force_authenticate(staff)
    upload = SimpleUploadedFile("stock.apkg", genanki_package(tmp_path))
    response = api_client.post("/api/author/import/", {"file": upload, "deck": "stock"})
    body = response.json()
    assert response.status_code == 201 and body["created"] == 6 and body["deck"] == "stock"
    assert body["notes"][0].startswith("image left out: learner.png")


@given(st.binary(max_size=4000))
def test_any_bytes_are_read_or_refused_with_a_sentence(data):
    for candidate in (data, _zip({"collection.anki2": b"SQLite format 3\x00" + data})):
        try:
            apkg_read(candidate)
        except ApkgError as exc:
            assert str(exc)


@pytest.fixture(scope="module")
def stock_collection(tmp_path_factory) -> bytes:
    data = genanki_package(tmp_path_factory.mktemp("stock"), media=False)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.read("collection.anki2")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**20), st.integers(0, 255)), min_size=1, max_size=8))
def test_a_damaged_real_collection_is_read_or_refused(stock_collection, damage):
    collection = bytearray(stock_collection)
    for at, value in damage:
        collection[at % len(collection)] = value
    try:
        package = apkg_read(_zip({"collection.anki2": bytes(collection)}))
    except ApkgError as exc:
        assert str(exc)
    else:
        assert all(isinstance(card.front, str) for card in package.cards)


@given(st.text(alphabet="abc {}:c12", max_size=60), st.integers(1, 3))
def test_cloze_basic_leaves_no_deletion_on_the_back(text, number):
    front, back = cloze_basic(text, number)
    assert not re.search(r"\{\{c\d+::.*?\}\}", back)
    assert front.count(CLOZE_BLANK) <= text.count("{{")


KINDS_DECK = """
slug: kinds
title: Card kinds
sections:
  - slug: core
    title: Core
    cards:
      - slug: primitives
        kind: cloze
        front: "A Ray {{c1::task}} is stateless; an {{c2::actor::process}} keeps state."
        back: Both return object references.
        source: Moritz et al. 2018, Ray (OSDI), section 3
      - slug: gcs
        kind: reverse
        front: GCS
        back: The head node's service holding cluster metadata
        source: Ray docs, Key Concepts
      - slug: put
        front: What does ray.put return?
        back: An ObjectRef to the stored value.
        source: Ray docs, Objects
"""


def test_cloze_and_reverse_notes_survive_an_apkg_round_trip(db, staff):
    from apps.decks.content import deck_apply, parse_deck, read_yaml

    deck_apply(parse_deck(read_yaml(KINDS_DECK, "kinds.yaml"), "kinds.yaml"))
    fields = ("section__slug", "slug", "kind", "ordinal", "front", "back", "source")

    def cards(slug):
        return list(Card.objects.filter(deck__slug=slug).order_by("slug").values_list(*fields))

    data = export_deck(Deck.objects.get(slug="kinds"), "apkg")
    _, copy = _import(data, user=staff, deck_slug="kinds-copy")
    assert copy.created == 5  # primitives-c1, -c2; gcs and gcs-reverse; put
    assert cards("kinds-copy") == cards("kinds")
    c2 = Card.objects.get(deck__slug="kinds-copy", slug="primitives-c2")
    assert "[process]" in c2.front_html and "task" in c2.front_html
