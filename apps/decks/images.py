"""Images a deck may hold: checked with Pillow and re-encoded before anything is stored.

Pure: no Django import (apps.authoring.services.media stores what this returns). Only PNG, JPEG,
GIF and WebP are taken, up to a size and a pixel count given by the caller (the settings). The
dimensions are read from the header and checked before a pixel is decoded, so a small file that
declares a huge image (a decompression bomb) is refused at once. The image is then decoded whole
and written again by Pillow: a file that is also something else (an image with HTML or a zip
after its end, a "polyglot") keeps only its picture, and metadata (EXIF, GPS) is dropped. SVG is
refused, not sanitised: it is a document that can carry script. Every refusal is an ImageRefused
whose message says what is wrong and what to do.
"""

from __future__ import annotations

import hashlib
import io
import re
import warnings
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError

CONTENT_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
NAME_MAX = 120
MAX_FRAMES = 100  # an animated GIF or WebP; its frames count against the pixel limit together
# No path, no control character, nothing a file system or a URL would read as structure.
_BAD_NAME = re.compile(r"[/\\\x00-\x1f\x7f<>:\"|?*]")


class ImageRefused(ValueError):
    """The image was not stored; the message is fit to show to the person who sent it."""


@dataclass(frozen=True)
class CheckedImage:
    data: bytes  # as re-encoded by Pillow: what is stored and served
    content_type: str
    width: int
    height: int

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def _size_text(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{max(1, n // 1024)} KiB"


def media_name_check(name: str) -> str:
    """The name card text gives an image (`![](<media:NAME>)`), or ImageRefused: a name with a
    path in it (`../x.png`, `a/b.png`), a control character, a leading dot, or too long."""
    name = (name or "").strip()
    if not name:
        raise ImageRefused("the image has no name; name it like diagram.png")
    if _BAD_NAME.search(name) or name.startswith("."):
        raise ImageRefused(
            f"the name {name[:60]!r} has a path or a character a file name may not have;"
            " name images like diagram.png"
        )
    if len(name) > NAME_MAX:
        raise ImageRefused(f"the name {name[:40]!r}... is longer than {NAME_MAX} characters")
    return name


def _looks_like_svg(data: bytes, name: str) -> bool:
    head = data[:2048].lstrip().lower()
    return name.lower().endswith((".svg", ".svgz")) or (
        head.startswith((b"<?xml", b"<svg", b"<!doctype svg")) and b"<svg" in head
    )


def image_check(data: bytes, *, name: str, max_bytes: int, max_pixels: int) -> CheckedImage:
    """The image re-encoded, with its type and size, or ImageRefused (see the module docstring)."""
    if len(data) > max_bytes:
        raise ImageRefused(
            f"{name} is {_size_text(len(data))}; an image may be at most {_size_text(max_bytes)}"
        )
    if _looks_like_svg(data, name):
        raise ImageRefused(
            f"{name} is an SVG image, which can carry script: SVG is not accepted. Save it as PNG."
        )
    with warnings.catch_warnings():
        # Pillow's own bomb check warns above its limit; ours below is the one that decides.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data)) as probe:
                kind = probe.format
                width, height = probe.size
                frames = getattr(probe, "n_frames", 1)
                if kind not in CONTENT_TYPES:
                    raise ImageRefused(
                        f"{name} is a {kind or 'unknown'} image; use PNG, JPEG, GIF or WebP"
                    )
                if width * height * min(frames, MAX_FRAMES) > max_pixels or frames > MAX_FRAMES:
                    raise ImageRefused(
                        f"{name} is {width} x {height} pixels"
                        + (f" in {frames} frames" if frames > 1 else "")
                        + f": more than the {max_pixels:,} pixels an image may have"
                        " (a decompression bomb, or simply too large: scale it down)"
                    )
                probe.verify()
            return _reencode(data, kind, frames)
        except ImageRefused:
            raise
        except Image.DecompressionBombError:
            raise ImageRefused(
                f"{name} declares more pixels than any picture needs: refused as a"
                " decompression bomb"
            ) from None
        except UnidentifiedImageError:
            raise ImageRefused(
                f"{name} is not an image that can be read (PNG, JPEG, GIF or WebP)"
            ) from None
        except (OSError, SyntaxError, ValueError, EOFError) as exc:
            raise ImageRefused(f"{name} is a damaged image ({exc})") from None


def _reencode(data: bytes, kind: str, frames: int) -> CheckedImage:
    out = io.BytesIO()
    with Image.open(io.BytesIO(data)) as image:
        if frames > 1 and kind in ("GIF", "WEBP"):
            image.save(out, format=kind, save_all=True, loop=image.info.get("loop", 0))
            width, height = image.size
        else:
            image.load()
            picture = ImageOps.exif_transpose(image) or image  # EXIF is dropped: apply it first
            if kind == "JPEG":
                if picture.mode not in ("RGB", "L", "CMYK"):
                    picture = picture.convert("RGB")
                picture.save(out, format="JPEG", quality=90)
            else:
                picture.save(out, format=kind)
            width, height = picture.size
    return CheckedImage(out.getvalue(), CONTENT_TYPES[kind], width, height)
