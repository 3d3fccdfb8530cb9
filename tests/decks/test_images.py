"""Images a deck may hold (apps.decks.images, pure): real pictures are re-encoded and kept;
SVG, files that are not images, decompression bombs, damaged files and names with a path are
refused with a sentence saying what to do."""

import io
import struct
import zlib

import pytest
from PIL import Image

from apps.decks.images import ImageRefused, image_check, media_name_check

LIMITS = {"max_bytes": 256 * 1024, "max_pixels": 4_000_000}


def png(size=(40, 30), color=(30, 120, 200), fmt="PNG", **save) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format=fmt, **save)
    return out.getvalue()


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def bomb(width=50_000, height=50_000) -> bytes:
    """A few hundred bytes of PNG that declare a 2.5-gigapixel image."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = zlib.compress(b"\x00" * 64)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", rows)
        + _chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "WEBP"])
def test_a_real_picture_is_kept_as_its_type(fmt):
    checked = image_check(png(fmt=fmt), name=f"x.{fmt.lower()}", **LIMITS)
    assert checked.content_type == f"image/{fmt.lower()}" and (checked.width, checked.height) == (
        40,
        30,
    )
    assert Image.open(io.BytesIO(checked.data)).format == fmt


def test_a_polyglot_keeps_only_its_picture():
    """A PNG with a page of HTML after its end is a PNG to Pillow and a page to a browser that
    sniffs: only the picture is stored."""
    payload = b"<html><script>alert(document.cookie)</script></html>"
    checked = image_check(png() + payload, name="cat.png", **LIMITS)
    assert b"<script" not in checked.data and checked.content_type == "image/png"


def test_metadata_does_not_survive_the_reencoding():
    exif = Image.Exif()
    exif[0x010E] = "taken at home, 51.5N 0.1W"  # ImageDescription
    data = png(fmt="JPEG", exif=exif.tobytes())
    assert b"taken at home" in data
    assert b"taken at home" not in image_check(data, name="a.jpg", **LIMITS).data


@pytest.mark.parametrize(
    ("data", "name", "says"),
    [
        (b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "a.svg",
         "SVG is not accepted"),
        (b'<?xml version="1.0"?><svg onload="alert(1)"/>', "innocent.png", "SVG is not accepted"),
        (b"<html><script>alert(1)</script></html>", "page.png", "not an image that can be read"),
        (b"GIF89a<script>alert(1)</script>", "fake.gif", "not an image that can be read"),
        (bomb(), "bomb.png", "decompression bomb"),
        (png()[:60], "cut.png", "damaged image"),
        (png(fmt="BMP"), "old.bmp", "use PNG, JPEG, GIF or WebP"),
        (png(size=(600, 600)) + b"\x00" * 300_000, "huge.png", "an image may be at most"),
    ],
    ids=["svg-script", "svg-named-png", "html-as-png", "gif-script", "bomb", "truncated", "bmp",
         "too-large"],
)  # fmt: skip
def test_hostile_or_unusable_files_are_refused_with_a_sentence(data, name, says):
    with pytest.raises(ImageRefused, match=says):
        image_check(data, name=name, **LIMITS)


def test_an_animation_past_the_pixel_limit_is_refused():
    frames = [Image.new("RGB", (500, 500), (i, 0, 0)) for i in range(20)]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:])
    with pytest.raises(ImageRefused, match="in 20 frames"):
        image_check(out.getvalue(), name="spin.gif", **LIMITS)


@pytest.mark.parametrize(
    "name", ["../../etc/passwd", "a/b.png", "..\\evil.png", ".hidden.png", "nul\x00.png", ""]
)
def test_a_name_with_a_path_or_a_bad_character_is_refused(name):
    with pytest.raises(ImageRefused):
        media_name_check(name)


def test_an_ordinary_name_is_kept():
    assert media_name_check(" paste-1f3a (2).png ") == "paste-1f3a (2).png"
