"""Typed answers compared with the card's answer, character by character, as Anki shows them:
the learner's line with what matched and what did not, and the answer's line with what they
missed. Pure: no Django import. Grading stays the learner's; this only shows the difference."""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass

MAX_TYPED = 1000  # characters of a typed answer that are compared
MAX_EXPECTED = 2000

GOOD, BAD, MISSED = "good", "bad", "missed"


@dataclass(frozen=True)
class TypedComparison:
    exact: bool
    typed: list[tuple[str, str]]  # (GOOD | BAD, text): the learner's line
    expected: list[tuple[str, str]]  # (GOOD | MISSED, text): the answer's line

    @property
    def empty(self) -> bool:
        return not self.typed


def normalise(text: str) -> str:
    """What is compared: Unicode NFC, runs of white space as one space, the ends trimmed (case
    and punctuation count, as in Anki)."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text or "")).strip()


def _append(segments: list[tuple[str, str]], kind: str, text: str) -> None:
    if not text:
        return
    if segments and segments[-1][0] == kind:
        segments[-1] = (kind, segments[-1][1] + text)
    else:
        segments.append((kind, text))


def typed_compare(typed: str, expected: str) -> TypedComparison:
    """The two lines of the comparison (see the module docstring). Joined, the learner's line
    is what they typed and the answer's line is the answer (both normalised)."""
    typed = normalise(typed)[:MAX_TYPED]
    expected = normalise(expected)[:MAX_EXPECTED]
    mine: list[tuple[str, str]] = []
    answer: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, typed, expected, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            _append(mine, GOOD, typed[i1:i2])
            _append(answer, GOOD, expected[j1:j2])
        else:
            _append(mine, BAD, typed[i1:i2])
            _append(answer, MISSED, expected[j1:j2])
    return TypedComparison(exact=typed == expected, typed=mine, expected=answer)
