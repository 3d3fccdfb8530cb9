"""Quiz scoring and per-attempt shuffling, in plain Python (no Django import).

Everything here speaks in the public ids the API and the pages show. An answer, and the
right answer ("key") of a question, have one of four shapes depending on the kind:

- ``single``: a choice id, ``"c1"``
- ``multi``: a list of choice ids, ``["c1", "c3"]``
- ``true_false``: a map of statement id to mark, ``{"s1": True, "s2": False}``
- ``match``: a map of left id to right id, ``{"l1": "r2", "l2": "r1"}``
- ``numeric`` (a sizing drill): a number, ``12800``; right when within the question's
  tolerance, a share of the right value (0.05: 5% either way)

``None`` (or a question left out) means unanswered and scores 0. Scores are exact
``Fraction``s; callers round only for display and storage.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, TypeGuard, TypeVar

SINGLE = "single"
MULTI = "multi"
T = TypeVar("T")
TRUE_FALSE = "true_false"
MATCH = "match"
NUMERIC = "numeric"
KINDS = (SINGLE, MULTI, TRUE_FALSE, MATCH, NUMERIC)

Answer = Any  # str | list[str] | dict[str, bool] | dict[str, str] | None


@dataclass(frozen=True)
class Question:
    """What scoring needs to know about one question.

    ``key`` is the right answer in the same shape as an answer. ``choice_ids`` lists every
    choice of a single/multi question (the right ones and the distractors); for true/false
    and matching the ids come from the key itself. A numeric question's key is this attempt's
    right value, ``tolerance`` how far from it an answer may be (a share of it), and ``numbers``
    the numbers it came from (drawn, derived and the answer), kept with the result for the
    worked solution.
    """

    id: str
    kind: str
    key: Answer
    points: int = 1
    choice_ids: tuple[str, ...] = ()
    tolerance: float = 0.0
    numbers: Mapping[str, float] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"question {self.id}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.points < 0:
            raise ValueError(f"question {self.id}: points must be 0 or more, got {self.points}")
        if self.kind in (MULTI, TRUE_FALSE, MATCH) and not self.key:
            raise ValueError(f"question {self.id}: a {self.kind} question needs a non-empty key")
        if self.kind == NUMERIC and not is_number(self.key):
            raise ValueError(f"question {self.id}: a numeric question needs a number as its key")

    @property
    def option_ids(self) -> frozenset[str]:
        """Ids an answer to this question may use (left and right ids for matching)."""
        if self.kind in (SINGLE, MULTI):
            return frozenset(self.choice_ids)
        if self.kind == TRUE_FALSE:
            return frozenset(self.key)
        if self.kind == NUMERIC:
            return frozenset()
        return frozenset(self.key) | frozenset(self.key.values())


@dataclass(frozen=True)
class QuestionResult:
    id: str
    fraction: Fraction  # 0..1, the share of the question got right
    points: Fraction  # fraction x max_points
    max_points: int
    correct_answer: Answer
    answered: bool

    @property
    def missed(self) -> bool:
        """Anything short of full marks: the cards behind it are worth reviewing."""
        return self.fraction < 1


@dataclass(frozen=True)
class QuizResult:
    score: Fraction
    max_score: int
    questions: tuple[QuestionResult, ...]

    @property
    def ratio(self) -> Fraction:
        return self.score / self.max_score if self.max_score else Fraction(0)

    def passed(self, pass_mark: float | Decimal) -> bool:
        return self.ratio >= Fraction(str(pass_mark))


def is_unanswered(answer: Answer) -> bool:
    return answer is None or (isinstance(answer, (list, tuple, dict, str)) and not answer)


def is_number(value: Any) -> TypeGuard[int | float]:
    """A real, finite number (a boolean is not one, whatever Python says)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def within_tolerance(answer: float, key: float, tolerance: float) -> bool:
    """Whether `answer` is within `tolerance` (a share of `key`) of `key`; the slack of a few
    parts in a billion keeps binary floats from refusing an answer typed exactly."""
    return abs(answer - key) <= tolerance * abs(key) + 1e-9 * max(1.0, abs(key))


def fraction_right(question: Question, answer: Answer) -> Fraction:
    """The share of ``question`` that ``answer`` gets right, per DESIGN.md "Quiz scoring".

    Anything not in the expected shape counts as unanswered (0); rejecting malformed input
    with a useful message is :func:`answer_problems`' job, not scoring's.
    """
    key = question.key
    if is_unanswered(answer):
        return Fraction(0)
    if question.kind == SINGLE:
        return Fraction(1 if isinstance(answer, str) and answer == key else 0)
    if question.kind == NUMERIC:
        hit = is_number(answer) and within_tolerance(answer, key, question.tolerance)
        return Fraction(1 if hit else 0)
    if question.kind == MULTI:
        if not isinstance(answer, (list, tuple)):
            return Fraction(0)
        right_options = set(key)
        picks = {pick for pick in answer if isinstance(pick, str)}
        right = len(picks & right_options)
        wrong = len(picks - right_options)
        return max(Fraction(0), Fraction(right - wrong, len(right_options)))
    if not isinstance(answer, Mapping):
        return Fraction(0)
    if question.kind == TRUE_FALSE:
        # ``is`` keeps 1/0 or "true" from passing for a mark: only real booleans count.
        right = sum(1 for sid, mark in key.items() if answer.get(sid) is mark)
        return Fraction(right, len(key))
    right = sum(
        1
        for left, right_id in key.items()
        if isinstance(answer.get(left), str) and answer[left] == right_id
    )
    return Fraction(right, len(key))


def score_question(question: Question, answer: Answer = None) -> QuestionResult:
    fraction = fraction_right(question, answer)
    return QuestionResult(
        id=question.id,
        fraction=fraction,
        points=fraction * question.points,
        max_points=question.points,
        correct_answer=_copy_key(question),
        answered=not is_unanswered(answer),
    )


def score_quiz(questions: Sequence[Question], answers: Mapping[str, Answer]) -> QuizResult:
    """Score every question of a quiz; a question missing from ``answers`` scores 0."""
    results = tuple(score_question(q, answers.get(q.id)) for q in questions)
    return QuizResult(
        score=sum((r.points for r in results), Fraction(0)),
        max_score=sum(q.points for q in questions),
        questions=results,
    )


def answer_problems(questions: Sequence[Question], answers: Any) -> list[tuple[str | None, str]]:
    """Why ``answers`` cannot be accepted for this quiz, as ``(question id, message)`` pairs.

    An empty list means the answers are well-formed (which says nothing about being right).
    Messages name the question and say what is wrong, for a person to act on.
    """
    if not isinstance(answers, Mapping):
        return [(None, f"answers must be an object of question id to answer, got {_kind(answers)}")]
    by_id = {q.id: q for q in questions}
    owner = {oid: q.id for q in questions for oid in q.option_ids}
    problems: list[tuple[str | None, str]] = []
    for qid, answer in answers.items():
        question = by_id.get(qid)
        if question is None:
            problems.append((qid, f'question "{qid}" is not in this quiz'))
            continue
        for message in _question_problems(question, answer, owner):
            problems.append((qid, f'question "{qid}" ({question.kind}): {message}'))
    return problems


def _question_problems(
    question: Question, answer: Answer, owner: Mapping[str, str]
) -> Iterator[str]:
    if answer is None:
        return

    def unknown(oid: Any, what: str) -> str:
        if not isinstance(oid, str):
            return f"{what} ids are strings, got {_kind(oid)} {oid!r}"
        if oid in owner and owner[oid] != question.id:
            return f'"{oid}" belongs to question "{owner[oid]}", not to this one'
        return f'"{oid}" is not a {what} of this question'

    kind = question.kind
    if kind == NUMERIC:
        if not is_number(answer):
            yield f"the answer must be a number, got {_kind(answer)} {answer!r}"[:200]
    elif kind == SINGLE:
        if not isinstance(answer, str):
            yield f"the answer must be one choice id (a string), got {_kind(answer)}"
        elif answer not in question.choice_ids:
            yield unknown(answer, "choice")
    elif kind == MULTI:
        if not isinstance(answer, (list, tuple)):
            yield f"the answer must be a list of choice ids, got {_kind(answer)}"
            return
        seen: set[str] = set()
        for pick in answer:
            if not isinstance(pick, str) or pick not in question.choice_ids:
                yield unknown(pick, "choice")
            elif pick in seen:
                yield f'choice "{pick}" is listed twice'
            else:
                seen.add(pick)
    elif kind == TRUE_FALSE:
        if not isinstance(answer, Mapping):
            yield (
                "the answer must be an object of statement id to true or false, "
                f"got {_kind(answer)}"
            )
            return
        for sid, mark in answer.items():
            if sid not in question.key:
                yield unknown(sid, "statement")
            elif not isinstance(mark, bool) and mark is not None:
                yield f'statement "{sid}" must be marked true or false, got {mark!r}'
    else:
        if not isinstance(answer, Mapping):
            yield f"the matching must be an object of left id to right id, got {_kind(answer)}"
            return
        rights = set(question.key.values())
        for left, right in answer.items():
            if left not in question.key:
                yield (
                    unknown(left, "left item")
                    if left not in rights
                    else (f'"{left}" is a right-hand item; keys must be left ids')
                )
            elif right is None:
                continue
            elif not isinstance(right, str):  # a list or an object cannot be looked up
                yield unknown(right, "right-hand item")
            elif right in question.key:
                yield f'"{right}" is a left item; values must be right-hand ids'
            elif right not in rights:
                yield unknown(right, "right-hand item")


def shuffled(items: Iterable[T], *, seed: int | str, salt: str = "") -> list[T]:
    """``items`` in an order fixed by ``(seed, salt)``: the same attempt always sees the same
    order, another attempt (another seed) a different one. Never depends on what is right."""
    ordered = list(items)
    random.Random(f"{seed}/{salt}").shuffle(ordered)
    return ordered


def _copy_key(question: Question) -> Answer:
    key = question.key
    if isinstance(key, Mapping):
        return dict(key)
    if isinstance(key, (list, tuple)):
        return list(key)
    return key


def _kind(value: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)
