"""Typed answers (apps.review.typed, pure): the learner's line and the answer's line, character
by character, as Anki shows them; the comparison never grades."""

from hypothesis import given
from hypothesis import strategies as st

from apps.decks.markdown import answer_text
from apps.review.typed import BAD, GOOD, MISSED, normalise, typed_compare


def test_an_exact_answer_is_all_good():
    result = typed_compare("  object   store ", "object store")
    assert result.exact and result.typed == [(GOOD, "object store")]


def test_a_typo_shows_what_was_wrong_and_what_was_missed():
    result = typed_compare("placment group", "placement group")
    assert not result.exact
    assert result.typed == [(GOOD, "placment group")]  # every typed letter is in the answer
    assert result.expected == [(GOOD, "plac"), (MISSED, "e"), (GOOD, "ment group")]


def test_a_wrong_letter_is_bad_in_the_typed_line():
    result = typed_compare("actor", "learner")
    assert result.typed == [(GOOD, "a"), (BAD, "cto"), (GOOD, "r")]
    assert result.expected == [(MISSED, "le"), (GOOD, "ar"), (MISSED, "ner")]


def test_case_counts_as_in_anki():
    assert not typed_compare("gcs", "GCS").exact


def test_nothing_typed_shows_the_answer_missed():
    result = typed_compare("", "V-trace")
    assert result.empty and result.expected == [(MISSED, "V-trace")]


@given(st.text(max_size=60), st.text(max_size=60))
def test_the_lines_are_what_was_typed_and_the_answer(typed, expected):
    result = typed_compare(typed, expected)
    assert "".join(text for _, text in result.typed) == normalise(typed)
    assert "".join(text for _, text in result.expected) == normalise(expected)
    assert {kind for kind, _ in result.typed} <= {GOOD, BAD}
    assert {kind for kind, _ in result.expected} <= {GOOD, MISSED}
    assert result.exact == (normalise(typed) == normalise(expected))


def test_the_answer_compared_is_the_back_the_reverse_side_or_the_deletion():
    assert answer_text("basic", 1, "Q?", "**The** `GCS`") == "The GCS"
    assert answer_text("reverse", 2, "IMPALA", "An architecture") == "IMPALA"
    text = "{{c1::Ape-X}} uses a {{c2::replay buffer::where}}; {{c1::DQN}} did not."
    assert answer_text("cloze", 1, text, "") == "Ape-X, DQN"
    assert answer_text("cloze", 2, text, "") == "replay buffer"


def test_an_image_in_the_answer_is_not_part_of_what_is_typed():
    assert answer_text("basic", 1, "Q", "object store ![](<media:ring.png>)") == "object store"
