"""Anki's cloze markup, `{{c1::answer}}` or `{{c1::answer::hint}}`, found by a scanner that reads
the text once: the one definition of a deletion that the card pages, the imports and the .apkg
reader share.

A deletion is what the pattern `\\{\\{c(\\d+)::(.*?)(?:::(.*?))?\\}\\}` (DOTALL) matches, left to
right: `{{c`, decimal digits, `::`, then up to the first `}}`; a `::` before that `}}` splits
the answer from the hint. Read with a backtracking regex engine that pattern costs cubic time
on hostile text (`}}` x1600 then `{{c1::` x1600 took 30 s of CPU); this scanner finds the same
deletions by looking at each character a bounded number of times, so any text costs time in
proportion to its length.

Pure: no Django import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

OPEN, SEPARATOR, CLOSE = "{{c", "::", "}}"
# An index longer than this is no card of any note (Anki numbers deletions c1, c2, ...); it is
# kept as written but numbered 0, which no card has, and int() never reads thousands of digits.
INDEX_DIGITS_MAX = 9


@dataclass(frozen=True, slots=True)
class Cloze:
    """One deletion in a text: `text[start:end]` is the whole `{{cN::answer::hint}}`."""

    start: int
    end: int
    index_text: str  # the digits as written ("1", "01")
    answer: str
    hint: str | None  # None without a `::hint`

    @property
    def index(self) -> int:
        """The card this deletion belongs to (c1 -> 1); 0 for an index too long to be one."""
        return int(self.index_text) if len(self.index_text) <= INDEX_DIGITS_MAX else 0


def clozes(text: str) -> Iterator[Cloze]:
    """The deletions of `text`, left to right, never overlapping."""
    at = 0
    while (start := text.find(OPEN, at)) >= 0:
        digits_end = start + len(OPEN)
        while digits_end < len(text) and text[digits_end].isdecimal():  # what re's \d matches
            digits_end += 1
        if digits_end == start + len(OPEN) or not text.startswith(SEPARATOR, digits_end):
            at = start + 1
            continue
        body = digits_end + len(SEPARATOR)
        close = text.find(CLOSE, body)
        if close < 0:
            return  # no `}}` from here on: no later `{{c` can end either
        separator = text.find(SEPARATOR, body, close)
        if separator < 0:
            answer, hint = text[body:close], None
        else:
            answer, hint = text[body:separator], text[separator + len(SEPARATOR) : close]
        yield Cloze(start, close + len(CLOSE), text[start + len(OPEN) : digits_end], answer, hint)
        at = close + len(CLOSE)


def cloze_first(text: str) -> Cloze | None:
    """The first deletion of `text`, or None when it has none."""
    return next(clozes(text), None)


def cloze_replace(text: str, replacement: Callable[[Cloze], str]) -> str:
    """`text` with each deletion replaced by what `replacement` returns for it."""
    parts: list[str] = []
    at = 0
    for cloze in clozes(text):
        parts += (text[at : cloze.start], replacement(cloze))
        at = cloze.end
    parts.append(text[at:])
    return "".join(parts)
