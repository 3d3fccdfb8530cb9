"""What a name people read (a team's, a username) may be: some visible character, and no bidi
control. Invisible-only names ("\u200b\u2060") look blank in every list; a right-to-left override
(U+202E) makes "moc.elgoog" read as "google.com" and turns the rest of a line around. One rule
for every name, each refusal a sentence."""

from __future__ import annotations

import unicodedata

# Embeddings, overrides and isolates (and the marks): text direction is the reader's to pick.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


# Letters and signs that show nothing (Unicode's default-ignorable fillers, the blank braille).
BLANK_GLYPHS = frozenset("\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0")


def _visible(ch: str) -> bool:
    # Format (Cf: zero-width spaces and joiners, word joiners, BOM), control, separator and
    # unassigned characters show nothing; combining marks show only on a letter.
    return unicodedata.category(ch)[0] not in "CZM" and not ch.isspace() and ch not in BLANK_GLYPHS


def name_problem(name: str, what: str = "A name") -> str | None:
    """Why `name` cannot be a name, or None."""
    bidi = next((ch for ch in name if ch in BIDI_CONTROLS), None)
    if bidi is not None:
        return (
            f"{what} cannot hold the direction control U+{ord(bidi):04X} "
            f"({unicodedata.name(bidi, 'bidi control')}): it changes how the text around it "
            "reads. Remove it."
        )
    if not any(_visible(ch) for ch in name):
        return f"{what} needs at least one visible letter, digit or sign."
    return None
