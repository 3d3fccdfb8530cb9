"""Cloze deletions are found by a scanner that reads the text once: it finds exactly the
deletions Anki's pattern describes, and hostile text of its own delimiters costs milliseconds,
where the pattern run by a backtracking engine took 30 s on 12.8 KB."""

import contextlib
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from apps.authoring.apkg import cloze_basic
from apps.decks.cloze import cloze_replace, clozes
from apps.decks.markdown import ClozeError, answer_text, cloze_indices, cloze_text
from tests.adversarial import CPU_SECONDS_MAX, cpu_seconds, repeated_delimiters

# What a deletion is, as the module docstring states it; only ever run here on short texts.
SPECIFICATION = re.compile(r"\{\{c(\d+)::(.*?)(?:::(.*?))?\}\}", re.DOTALL)
PIECES = ["{{c1::", "{{c12::", "{{c", "{{", "}}", "::", ":", "c", "1", "٣", "a", " ", "\n", "{",
          "}"]  # fmt: skip
DELIMITERS = ["{{c1::", "{{c", "{{", "}}", "::", ":", "{", "}", "c", "1", "a", "\n"]


@settings(max_examples=200)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
@example("{{c1::a}} {{c2::b::hint}} {{c1::x::y::z}}")
@example("{{c1::a:::b}}")
@example("}}{{c1::a")
def test_the_scanner_finds_what_the_pattern_describes(text):
    found = [(c.start, c.end, c.index_text, c.answer, c.hint) for c in clozes(text)]
    specified = [
        (m.start(), m.end(), m.group(1), m.group(2), m.group(3))
        for m in SPECIFICATION.finditer(text)
    ]
    assert found == specified
    assert cloze_replace(text, lambda c: f"<{c.answer}>") == SPECIFICATION.sub(
        lambda m: f"<{m.group(2)}>", text
    )


def test_a_well_formed_text_reads_as_before():
    text = "A Ray {{c1::task}} is stateless; an {{c2::actor::process}} keeps {{c1::state}}."
    assert cloze_indices(text) == [1, 2]
    assert cloze_text(text) == "A Ray task is stateless; an actor keeps state."
    assert answer_text("cloze", 1, text, "") == "task, state"
    assert cloze_basic(text, 2)[0] == "A Ray task is stateless; an [process] keeps state."


def test_an_index_too_long_to_be_a_card_is_refused_with_a_sentence():
    with pytest.raises(ClozeError, match="too large"):
        cloze_indices("{{c" + "1" * 5000 + "::a}}")
    assert cloze_text("{{c" + "1" * 5000 + "::a}}") == "a"


def _every_cloze_parser(text: str) -> None:
    with contextlib.suppress(ClozeError):  # a refusal is an answer too
        cloze_indices(text)
    cloze_text(text)
    answer_text("cloze", 1, text, "")
    cloze_basic(text, 1)


@settings(max_examples=25)
@given(repeated_delimiters(DELIMITERS))
@example("}}" * 16384 + "{{c1::" * 5461)
@example("{{c1::" * 10922)
def test_hostile_cloze_text_of_64_kib_is_read_in_bounded_time(text):
    assert cpu_seconds(lambda: _every_cloze_parser(text)) < CPU_SECONDS_MAX


def test_the_reported_card_front_is_refused_with_a_sentence():
    with pytest.raises(ClozeError, match="is not a cloze deletion"):
        cloze_indices("}}" * 1600 + "{{c1::" * 1600)
