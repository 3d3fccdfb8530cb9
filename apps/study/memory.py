"""The memory model: per card, the probability that a learner recalls it on a given day. Pure: no
Django import.

It is FSRS-6, computed by `fsrs-rs-python` (the Rust FSRS that Anki itself runs, and its
optimizer; bench/README-fsrs.md compares it with the `fsrs` package on the same histories). A
card's memory is its stability S (days), difficulty D (1..10) and the learner's local day of its
last review; each review updates it (`MemoryModel.reviewed`), and the app stores it on the card
state, so nothing replays a card's history to predict it. Retrievability
R(t) = (1 + factor * t / S) ** -decay is the predicted probability of recall t whole days after
the last review, days counted between the learner's local dates as Anki counts them.

SM-2 grades 0..5 map to FSRS ratings: 0, 1 and 2 are Again (a lapse), 3 is Hard, 4 Good, 5 Easy.
A review counts as recalled when its grade is 3 or more, SM-2's own line between pass and fail.

The parameters are FSRS's defaults until `fit_parameters` has the learner's own (from at least
`FIT_MIN_REVIEWS` reviews; the optimizer comes with fsrs-rs-python, nothing else to install).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, tzinfo

import fsrs_rs_python as fsrs_rs
import numpy as np

AGAIN, HARD, GOOD, EASY = 1, 2, 3, 4
RATINGS = {0: AGAIN, 1: AGAIN, 2: AGAIN, 3: HARD, 4: GOOD, 5: EASY}
RATING_NAMES = {AGAIN: "Again", HARD: "Hard", GOOD: "Good", EASY: "Easy"}
PASS_GRADE = 3
DEFAULT_PARAMETERS: tuple[float, ...] = tuple(float(p) for p in fsrs_rs.DEFAULT_PARAMETERS)
FIT_MIN_REVIEWS = 500
# The share of the scored reviews (the most recent ones) that calibration holds out.
HELD_OUT = 0.3
# Log loss of a prediction of exactly 0 or 1 that turns out wrong is infinite.
EPSILON = 1e-4
# next_states wants a desired retention; the memory states it returns do not depend on it.
_ANY_RETENTION = 0.9


@dataclass(frozen=True, slots=True)
class Memory:
    """A card's FSRS memory after its last review: stability in days, difficulty 1..10, and the
    learner's local date of that review."""

    stability: float
    difficulty: float
    day: date

    def as_json(self) -> dict:
        return {"stability": self.stability, "difficulty": self.difficulty, "day": str(self.day)}

    @classmethod
    def from_json(cls, data: dict | None) -> Memory | None:
        if not data:
            return None
        return cls(
            float(data["stability"]), float(data["difficulty"]), date.fromisoformat(data["day"])
        )


@dataclass(frozen=True, slots=True)
class Review:
    """One grade of one card, as the model needs it."""

    card_id: int
    grade: int
    at: datetime  # timezone-aware
    duration_ms: int | None = None

    @property
    def recalled(self) -> bool:
        return self.grade >= PASS_GRADE


@functools.lru_cache(maxsize=64)
def _fsrs(parameters: tuple[float, ...]) -> fsrs_rs.FSRS:
    """One Rust FSRS per set of parameters (it holds no state between calls)."""
    return fsrs_rs.FSRS(list(parameters))


def factor_of(decay: float) -> float:
    """FSRS-6's factor: R(S) = 0.9 by definition of stability."""
    return 0.9 ** (-1 / decay) - 1


def retrievability(days, stability, decay: float):
    """R after `days` whole days at `stability` (floats or numpy arrays alike)."""
    days = np.maximum(days, 0) if isinstance(days, np.ndarray) else max(days, 0)
    return (1 + factor_of(decay) * days / stability) ** -decay


class MemoryModel:
    """FSRS-6 with one set of parameters (the defaults, or a learner's own)."""

    def __init__(self, parameters: Sequence[float] | None = None):
        self.parameters = tuple(float(p) for p in parameters) if parameters else DEFAULT_PARAMETERS
        self._fsrs = _fsrs(self.parameters)

    @property
    def decay(self) -> float:
        return self.parameters[20]

    def reviewed(self, memory: Memory | None, grade: int, day: date) -> Memory:
        """The memory after one more review with SM-2 `grade` on the learner's local `day` (a
        review on the day of the last one is a same-day review: FSRS's short-term rule)."""
        elapsed = 0 if memory is None else max(0, (day - memory.day).days)
        state = None if memory is None else fsrs_rs.MemoryState(memory.stability, memory.difficulty)
        states = self._fsrs.next_states(state, _ANY_RETENTION, elapsed)
        after = (states.again, states.hard, states.good, states.easy)[RATINGS[grade] - 1].memory
        return Memory(float(after.stability), float(after.difficulty), day)

    def replayed(self, history: Iterable[tuple[int, date]]) -> Memory | None:
        """The memory after (grade, local day) reviews in time order, or None without any. For
        filling stored memories and for undoing a review made before they were stored; nothing
        else replays a history."""
        memory = None
        for grade, day in history:
            memory = self.reviewed(memory, grade, day)
        return memory

    def recall(self, memory: Memory | None, day: date) -> float:
        """Predicted probability of recall on the learner's local `day`: 0 for a card never seen,
        else retrievability after the whole days since the last review (0 before it)."""
        if memory is None:
            return 0.0
        return float(retrievability((day - memory.day).days, memory.stability, self.decay))


def local_day(moment: datetime, zone: tzinfo) -> date:
    return moment.astimezone(zone).date()


def optimizer_available() -> bool:
    """Whether parameters can be fitted: always, the optimizer is part of fsrs-rs-python (kept
    as a function for the callers that ask)."""
    return True


def _fsrs_items(reviews: Sequence[Review], zone: tzinfo) -> list:
    """The optimizer's training items as Anki makes them: per card, every prefix of its history
    (in time order, days between local dates) that ends in a review a day or more after the
    previous one."""
    by_card: dict[int, list[Review]] = {}
    for review in reviews:
        by_card.setdefault(review.card_id, []).append(review)
    items = []
    for history in by_card.values():
        history.sort(key=lambda r: r.at)
        steps, previous = [], None
        for review in history:
            day = local_day(review.at, zone)
            elapsed = 0 if previous is None else (day - previous).days
            previous = day
            steps.append(fsrs_rs.FSRSReview(RATINGS[review.grade], elapsed))
            if len(steps) > 1 and elapsed > 0:
                items.append(fsrs_rs.FSRSItem(list(steps)))
    return items


def fit_parameters(reviews: Sequence[Review], zone: tzinfo = UTC) -> tuple[float, ...] | None:
    """The learner's own FSRS parameters from their reviews, or None when they have fewer than
    FIT_MIN_REVIEWS or too few a day or more apart for the optimizer to move off the defaults."""
    if len(reviews) < FIT_MIN_REVIEWS:
        return None
    items = _fsrs_items(reviews, zone)
    if not items:
        return None
    fitted = tuple(float(p) for p in _fsrs(DEFAULT_PARAMETERS).compute_parameters(items))
    # The optimizer hands back the defaults when the items are too few to learn from: that is
    # no fit, and the learner must not be told their own parameters are in use.
    if all(
        math.isclose(a, b, rel_tol=1e-6) for a, b in zip(fitted, DEFAULT_PARAMETERS, strict=True)
    ):
        return None
    return fitted


# Which parameters a calibration scored (`Calibration.model`).
DEFAULTS, HOLDOUT = "defaults", "holdout"


@dataclass(frozen=True)
class CalibrationBin:
    low: float
    high: float
    count: int
    predicted: float  # mean predicted recall in the bin
    observed: float  # share actually recalled


@dataclass(frozen=True)
class Calibration:
    bins: list[CalibrationBin]
    log_loss: float
    count: int  # held-out reviews scored
    base_rate_log_loss: float  # a constant prediction of the observed share, for comparison
    test_start: datetime | None = None  # the first held-out review
    # (predicted, recalled, days since the card's last review / its stability) per held-out one
    test_pairs: tuple[tuple[float, bool, float], ...] = ()
    # Which parameters were scored, as the caller who chose them says (`calibration` itself
    # cannot know how parameters were fitted; apps.interview.fitting.calibration sets both):
    # DEFAULTS (FSRS's), or HOLDOUT (the learner's own, fitted on the reviews before `split`
    # only, so on none of the scored ones); `defaults_reason` says why the defaults.
    model: str = ""
    defaults_reason: str = ""
    split: datetime | None = None  # held out: the qualifying reviews at or after this moment


def _qualifying(reviews: Iterable[Review]) -> dict[int, list[tuple[Review, bool]]]:
    """Each card's reviews in time order, each with whether it can be scored: it comes a day or
    more (24 hours) after the card's previous review. Which reviews qualify depends on the
    times only, never on the model's parameters."""
    by_card: dict[int, list[Review]] = {}
    for review in reviews:
        by_card.setdefault(review.card_id, []).append(review)
    out = {}
    for card_id, history in by_card.items():
        history.sort(key=lambda r: r.at)
        out[card_id] = [
            (r, i > 0 and (r.at - history[i - 1].at).days >= 1) for i, r in enumerate(history)
        ]
    return out


def holdout_split(reviews: Iterable[Review], *, held_out: float = HELD_OUT) -> datetime | None:
    """The moment the held-out reviews begin: the time of the first of the most recent
    `held_out` share of the qualifying reviews (those a day or more after the card's previous
    one). `calibration` scores the qualifying reviews at or after it; the worker's held-out fit
    (`apps.interview.fitting.memory_fit_run`) learns only from the reviews before it. One
    function for both, so the fit and the score can never disagree on the split. None when no
    review qualifies."""
    times = sorted(r.at for history in _qualifying(reviews).values() for r, ok in history if ok)
    if not times:
        return None
    return times[len(times) - max(1, round(len(times) * held_out))]


def calibration(
    reviews: Sequence[Review],
    model: MemoryModel,
    *,
    bins: int = 5,
    held_out: float = HELD_OUT,
    split: datetime | None = None,
    zone: tzinfo = UTC,
) -> Calibration | None:
    """How well the model's predictions match the learner's outcomes. Every review is predicted
    from that card's earlier reviews only (never from itself or later ones); the score is taken on
    the reviews that come a day or more after the card's previous review (same-day re-drills are
    predicted as certain and tell nothing) at or after `split`, by default `holdout_split` (the
    most recent `held_out` share of them). A model fitted on reviews must be scored with the
    split its fit left out (`split=`): then it never saw the reviews it is scored on. None when
    no review is scored. (A report of the model over the learner's whole history: it replays
    it, on the stats page only.)"""
    cards = _qualifying(reviews)
    if split is None:
        split = holdout_split(
            (r for history in cards.values() for r, _ in history), held_out=held_out
        )
        if split is None:
            return None
    test: list[tuple[datetime, float, bool, float]] = []
    for history in cards.values():
        memory = None
        for review, qualifies in history:
            day = local_day(review.at, zone)
            if qualifies and review.at >= split and memory is not None:
                p = model.recall(memory, day)
                elapsed = (day - memory.day).days
                test.append((review.at, p, review.recalled, elapsed / memory.stability))
            memory = model.reviewed(memory, review.grade, day)
    if not test:
        return None
    test.sort(key=lambda s: s[0])
    loss = _log_loss([(p, y) for _, p, y, _ in test])
    share = sum(y for _, _, y, _ in test) / len(test)
    base = _log_loss([(share, y) for _, _, y, _ in test])
    edges = [i / bins for i in range(bins + 1)]
    out = []
    for low, high in zip(edges, edges[1:], strict=False):
        inside = [(p, y) for _, p, y, _ in test if low <= p < high or (high == 1.0 and p == 1.0)]
        if inside:
            out.append(
                CalibrationBin(
                    low=low,
                    high=high,
                    count=len(inside),
                    predicted=sum(p for p, _ in inside) / len(inside),
                    observed=sum(y for _, y in inside) / len(inside),
                )
            )
    return Calibration(
        bins=out,
        log_loss=loss,
        count=len(test),
        base_rate_log_loss=base,
        test_start=test[0][0],
        test_pairs=tuple((p, y, ratio) for _, p, y, ratio in test),
        split=split,
    )


def _log_loss(pairs: Sequence[tuple[float, bool]]) -> float:
    total = 0.0
    for p, y in pairs:
        p = min(1 - EPSILON, max(EPSILON, p))
        total -= math.log(p) if y else math.log(1 - p)
    return total / len(pairs)
