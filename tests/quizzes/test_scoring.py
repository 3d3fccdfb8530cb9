"""Scoring vectors per kind (full, partial, zero, over-selection) and properties."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.quizzes.scoring import (
    MATCH,
    MULTI,
    SINGLE,
    TRUE_FALSE,
    Question,
    answer_problems,
    score_question,
    score_quiz,
    shuffled,
)

single = Question(id="q1", kind=SINGLE, key="b", choice_ids=("a", "b", "c", "d"))
multi = Question(id="q2", kind=MULTI, key=["a", "c", "d"], choice_ids=("a", "b", "c", "d", "e"))
tf = Question(id="q3", kind=TRUE_FALSE, key={"s1": True, "s2": False, "s3": False, "s4": True})
match = Question(id="q4", kind=MATCH, key={"l1": "r1", "l2": "r2", "l3": "r3"}, points=3)


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        # single choice: 1 or 0
        (single, "b", 1),
        (single, "a", 0),
        (single, None, 0),
        # multi: max(0, (right - wrong) / number of right options)
        (multi, ["a", "c", "d"], 1),
        (multi, ["d", "a", "c"], 1),
        (multi, ["a", "c"], Fraction(2, 3)),
        (multi, ["a"], Fraction(1, 3)),
        (multi, ["a", "c", "b"], Fraction(1, 3)),  # two right, one wrong
        (multi, ["a", "c", "d", "b"], Fraction(2, 3)),  # over-selection costs
        (multi, ["a", "b", "c", "d", "e"], Fraction(1, 3)),  # select everything
        (multi, ["a", "b", "e"], 0),  # floored at 0, not -1/3
        (multi, ["b", "e"], 0),
        (multi, [], 0),
        # true/false: right marks / statements; an unmarked statement is not right
        (tf, {"s1": True, "s2": False, "s3": False, "s4": True}, 1),
        (tf, {"s1": True, "s2": False, "s3": True, "s4": False}, Fraction(1, 2)),
        (tf, {"s1": True}, Fraction(1, 4)),
        (tf, {"s1": False, "s2": True, "s3": True, "s4": False}, 0),
        (tf, {"s1": 1, "s2": 0, "s3": 0, "s4": 1}, 0),  # only real booleans are marks
        # matching: right pairs / pairs, times the question's points
        (match, {"l1": "r1", "l2": "r2", "l3": "r3"}, 3),
        (match, {"l1": "r1", "l2": "r3", "l3": "r2"}, 1),
        (match, {"l1": "r1", "l2": "r1", "l3": "r1"}, 1),  # one right used for every left
        (match, {"l1": "r2", "l2": "r3", "l3": "r1"}, 0),
        (match, {}, 0),
    ],
)
def test_vectors(question, answer, expected):
    result = score_question(question, answer)
    assert result.points == expected
    assert result.max_points == question.points


def test_correct_answer_has_the_shape_of_an_answer_and_scores_full_marks():
    for question in (single, multi, tf, match):
        result = score_question(question)
        assert result.points == 0 and not result.answered and result.missed
        assert type(result.correct_answer) is type(question.key) or isinstance(
            result.correct_answer, list
        )
        assert score_question(question, result.correct_answer).points == question.points


def test_quiz_total_is_exact_and_left_out_questions_score_zero():
    thirds = Question(id="t", kind=MULTI, key=["a", "b", "c"], choice_ids=("a", "b", "c"))
    result = score_quiz([thirds, single, match], {"t": ["a", "b"], "q4": {"l1": "r1"}})
    assert result.score == Fraction(2, 3) + 1
    assert result.max_score == 5
    assert [r.points for r in result.questions] == [Fraction(2, 3), 0, 1]
    assert result.ratio == Fraction(1, 3)
    assert not result.passed(0.7)
    assert score_quiz([single], {"q1": "b"}).passed(0.7)


def test_bad_key_is_refused_up_front():
    with pytest.raises(ValueError, match="kind must be one of"):
        Question(id="x", kind="essay", key="a")
    with pytest.raises(ValueError, match="non-empty key"):
        Question(id="x", kind=MULTI, key=[], choice_ids=("a",))


QUIZ = [single, multi, tf, match, Question(id="q5", kind=SINGLE, key="z", choice_ids=("y", "z"))]


def test_well_formed_answers_have_no_problems():
    answers = {"q1": "a", "q2": ["b"], "q3": {"s1": False}, "q4": {"l1": "r3"}, "q5": None}
    assert answer_problems(QUIZ, answers) == []
    assert answer_problems(QUIZ, {}) == []


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ([], "answers must be an object"),
        ({"nope": "a"}, 'question "nope" is not in this quiz'),
        ({"q1": "z"}, 'question "q1" (single): "z" belongs to question "q5", not to this one'),
        ({"q1": "zz"}, '"zz" is not a choice of this question'),
        ({"q1": ["a"]}, "the answer must be one choice id (a string), got a list"),
        ({"q2": "a"}, "the answer must be a list of choice ids, got a string"),
        ({"q2": ["a", "a"]}, 'choice "a" is listed twice'),
        ({"q2": ["a", 3]}, "choice ids are strings, got a number 3"),
        ({"q3": ["s1"]}, "object of statement id to true or false, got a list"),
        ({"q3": {"s1": "yes"}}, "statement \"s1\" must be marked true or false, got 'yes'"),
        ({"q3": {"l1": True}}, '"l1" belongs to question "q4"'),
        ({"q4": ["r1", "r2"]}, "the matching must be an object of left id to right id, got a list"),
        ({"q4": {"r1": "l1"}}, '"r1" is a right-hand item; keys must be left ids'),
        ({"q4": {"l1": "l2"}}, '"l2" is a left item; values must be right-hand ids'),
        ({"q4": {"l1": "x"}}, '"x" is not a right-hand item of this question'),
        ({"q4": {"l1": 2}}, "right-hand item ids are strings, got a number 2"),
    ],
)
def test_malformed_answers_say_which_question_and_why(answers, message):
    problems = answer_problems(QUIZ, answers)
    assert problems, answers
    assert any(message in text for _, text in problems), problems


# --- properties ------------------------------------------------------------------------

ids = st.text(alphabet="abcdefgh", min_size=1, max_size=3)


@st.composite
def question_and_answer(draw):
    kind = draw(st.sampled_from([SINGLE, MULTI, TRUE_FALSE, MATCH]))
    points = draw(st.integers(min_value=0, max_value=5))
    if kind in (SINGLE, MULTI):
        choice_ids = draw(st.lists(ids, min_size=1, max_size=6, unique=True))
        if kind == SINGLE:
            key = draw(st.sampled_from(choice_ids))
        else:
            key = draw(st.lists(st.sampled_from(choice_ids), min_size=1, unique=True))
        question = Question(id="q", kind=kind, key=key, points=points, choice_ids=tuple(choice_ids))
        noise = st.one_of(st.sampled_from(choice_ids), ids)
        answer = draw(st.one_of(st.none(), noise, st.lists(noise, max_size=8)))
    elif kind == TRUE_FALSE:
        key = draw(st.dictionaries(ids, st.booleans(), min_size=1, max_size=6))
        question = Question(id="q", kind=kind, key=key, points=points)
        answer = draw(
            st.one_of(
                st.none(),
                st.dictionaries(
                    st.one_of(st.sampled_from(sorted(key)), ids),
                    st.one_of(st.booleans(), st.none(), st.integers()),
                ),
            )
        )
    else:
        lefts = draw(st.lists(ids, min_size=1, max_size=6, unique=True))
        rights = [f"r{left}" for left in draw(st.permutations(lefts))]
        key = dict(zip(lefts, rights, strict=True))
        question = Question(id="q", kind=kind, key=key, points=points)
        answer = draw(
            st.one_of(
                st.none(),
                st.dictionaries(
                    st.one_of(st.sampled_from(lefts), ids),
                    st.one_of(st.sampled_from(rights), ids, st.none()),
                ),
            )
        )
    return question, answer


@given(question_and_answer())
def test_score_stays_within_zero_and_points(qa):
    question, answer = qa
    result = score_question(question, answer)
    assert 0 <= result.fraction <= 1
    assert 0 <= result.points <= question.points


@given(question_and_answer())
def test_the_right_answer_always_scores_full_marks(qa):
    question, _ = qa
    assert score_question(question, score_question(question).correct_answer).fraction == 1


@given(question_and_answer())
def test_scoring_never_raises_on_any_answer_and_problems_are_messages(qa):
    question, answer = qa
    score_question(question, answer)
    for qid, message in answer_problems([question], {"q": answer}):
        assert qid == "q" and message.startswith('question "q"')


@given(st.lists(ids, unique=True), st.integers(), st.text())
def test_shuffle_is_a_permutation_stable_for_one_seed(items, seed, salt):
    once = shuffled(items, seed=seed, salt=salt)
    assert sorted(once) == sorted(items)
    assert shuffled(items, seed=seed, salt=salt) == once


def test_shuffle_differs_between_attempts_and_puts_the_right_choice_anywhere():
    items = list("abcdef")
    orders = {tuple(shuffled(items, seed=seed, salt="q1")) for seed in range(200)}
    assert len(orders) > 100
    first_positions = {shuffled(items, seed=seed, salt="q1").index("a") for seed in range(200)}
    assert first_positions == set(range(6))
    # the salt separates questions within one attempt
    assert shuffled(items, seed=7, salt="q1") != shuffled(items, seed=7, salt="q2") or (
        shuffled(items, seed=8, salt="q1") != shuffled(items, seed=8, salt="q2")
    )


@pytest.mark.parametrize("right", [["r1"], {"r1": True}])
def test_a_list_or_object_as_a_right_hand_id_is_a_message_not_a_crash(right):
    problems = answer_problems(QUIZ, {"q4": {"l1": right}})
    assert any("right-hand item ids are strings" in text for _, text in problems), problems
