"""An Anki package with images: a 300-note .apkg with 100 images made with genanki imports into
alice's own deck with its images (checked, stored, shown), and her export puts them back."""

import io
import json
import zipfile

import genanki
import pytest
from django.urls import reverse
from PIL import Image

from apps.authoring import services
from apps.authoring.formats import export_deck
from apps.decks.models import Media

pytestmark = pytest.mark.django_db


def picture_package(tmp_path, *, notes: int = 300, images: int = 100, extra: dict | None = None):
    """genanki's Basic notes, the first `images` of them with a picture of their own; `extra`
    adds files to the package under hostile names (name -> bytes), each named by one more note."""
    deck = genanki.Deck(1_600_000_001, "Pictures")
    files = []
    folder = tmp_path / "pictures"
    folder.mkdir(exist_ok=True)
    for i in range(images):
        path = folder / f"fig-{i:03d}.png"
        Image.new("RGB", (32, 24), ((i * 7) % 256, 80, 160)).save(path)
        files.append(str(path))
    for n in range(notes):
        image = f'<img src="fig-{n:03d}.png">' if n < images else ""
        deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, guid=genanki.guid_for("pic", n),
                                   fields=[f"Question {n} {image}", f"Answer {n}"]))  # fmt: skip
    for n, name in enumerate(extra or {}):  # a note naming each extra file
        deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, guid=genanki.guid_for("x", n),
                                   fields=[f'Extra <img src="{name}">', "b"]))  # fmt: skip
    out = tmp_path / "pictures.apkg"
    genanki.Package(deck, media_files=files).write_to_file(str(out))
    if not extra:
        return out.read_bytes()
    # genanki writes only real files; hostile names go straight into the zip and its map
    with zipfile.ZipFile(out) as archive:
        members = {i.filename: archive.read(i) for i in archive.infolist()}
    mapping = json.loads(members["media"])
    for name, data in extra.items():
        if data is not None:  # None: a note names it, the package does not have it
            key = str(len(mapping))
            mapping[key], members[key] = name, data
    members["media"] = json.dumps(mapping).encode()
    rebuilt = io.BytesIO()
    with zipfile.ZipFile(rebuilt, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return rebuilt.getvalue()


def _import(data: bytes, deck, user, *, dry_run=False):
    options = {"fmt": "apkg", "deck_slug": deck.slug, "into": deck.slug}
    return services.file_import(data=data, filename="pictures.apkg", options=options, user=user,
                                dry_run=dry_run)  # fmt: skip


def test_a_300_note_package_with_100_images_comes_in_shows_them_and_goes_back_out(
    client, alice, tmp_path
):
    deck = services.own_deck_create(user=alice, title="Pictures")
    doc, result = _import(picture_package(tmp_path), deck, alice)
    assert result.created == 300 and deck.cards.count() == 300 and doc.notes == []
    assert deck.media.count() == 100
    card = deck.cards.get(front="Question 7 ![](<media:fig-007.png>)")
    url = reverse("decks:media", args=[deck.slug, "fig-007.png"])
    assert f'<img src="{url}" alt="">' in card.front_html
    client.force_login(alice)
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert Image.open(io.BytesIO(b"".join(response.streaming_content))).size == (32, 24)

    package = zipfile.ZipFile(io.BytesIO(export_deck(deck, "apkg")))
    names = json.loads(package.read("media"))
    assert sorted(names.values()) == [f"fig-{i:03d}.png" for i in range(100)]
    assert all(Image.open(io.BytesIO(package.read(k))).format == "PNG" for k in names)


def test_a_preview_stores_no_image_and_an_export_imports_back_with_its_images(alice, tmp_path):
    deck = services.own_deck_create(user=alice, title="Pictures")
    data = picture_package(tmp_path, notes=5, images=3)
    _, preview = _import(data, deck, alice, dry_run=True)
    assert preview.created == 5 and not Media.objects.exists()
    _import(data, deck, alice)
    again = services.own_deck_create(user=alice, title="Pictures again")
    _, result = _import(export_deck(deck, "apkg"), again, alice)
    assert result.created == 5 and again.media.count() == 3
    assert "<img" in again.cards.get(front="Question 2 ![](<media:fig-002.png>)").front_html
    assert again.media.get(name="fig-002.png").sha256 == deck.media.get(name="fig-002.png").sha256


def test_hostile_media_are_refused_one_by_one_and_their_cards_show_a_placeholder(alice, tmp_path):
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    extra = {"../../escape.png": _png(), "evil.svg": svg,
             "page.png": b"<html><script>alert(1)</script></html>", "gone.png": None}  # fmt: skip
    deck = services.own_deck_create(user=alice, title="Hostile")
    doc, result = _import(picture_package(tmp_path, notes=2, images=2, extra=extra), deck, alice)
    assert result.created == 6 and sorted(deck.media.values_list("name", flat=True)) == [
        "fig-000.png", "fig-001.png"
    ]  # fmt: skip
    notes = " | ".join(doc.notes)
    assert "evil.svg is an SVG image, which can carry script" in notes
    assert "page.png is not an image that can be read" in notes
    assert "gone.png is named by a note but not in the package" in notes
    assert "'../../escape.png' has a path" in notes
    html = {c.front: c.front_html for c in deck.cards.all()}
    for name in extra:
        shown = html[f"Extra ![](<media:{name}>)"]
        assert f"[image missing: {name}]" in shown and "<img" not in shown


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (0, 200, 0)).save(out, format="PNG")
    return out.getvalue()
