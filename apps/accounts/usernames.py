"""Usernames that read alike are one name: "аlice" (a Cyrillic а) is not a second alice. A name is
compared by its skeleton, as Unicode's UTS #39 does: NFKC, case folded, each character that is
confusable with an ASCII one replaced by it, from the confusables data that confusable-homoglyphs
ships (Unicode's confusables.txt). Every user's skeleton is kept (UsernameSkeleton, written when
the user is saved), so a sign-up looks one up in an index."""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources


@functools.cache
def _to_ascii() -> dict[str, str]:
    data = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text()
    )
    table = {}
    for char, glyphs in data.items():  # a character and the ones it is confused with
        plain = [g["c"] for g in glyphs if g["c"].isascii() and g["c"].isprintable()]
        if len(char) == 1 and not char.isascii() and plain:
            table[char] = min(plain, key=lambda c: (not c.isalnum(), c))
    return table


def username_skeleton(username: str) -> str:
    """The name as it reads: two usernames with one skeleton are the same to a person."""
    table = _to_ascii()

    def plain(text: str) -> str:
        return "".join(table.get(ch, ch) for ch in text)

    # Mapped before and after case folding: "Ь" reads as "b", its lower case "ь" as nothing.
    text = plain(unicodedata.normalize("NFKC", username)).casefold()
    return unicodedata.normalize("NFKC", plain(text))
