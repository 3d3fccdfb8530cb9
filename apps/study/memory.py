"""The memory model: per card, the probability that a learner recalls it at a given moment, from
the card's review history. Pure: no Django import.

It is FSRS (the `fsrs` package): each review updates the card's stability and difficulty, and
retrievability R(t) = (1 + factor * t / S) ** -decay is the predicted probability of recall t whole
days after the last review. SM-2 stays the scheduler of the daily queue; this model only predicts
(and the interview planner in `apps.study.plan` plans with it).

SM-2 grades 0..5 map to FSRS ratings: 0, 1 and 2 are Again (a lapse), 3 is Hard, 4 Good, 5 Easy.
A review counts as recalled when its grade is 3 or more, SM-2's own line between pass and fail.

The parameters are FSRS's defaults until `fit_parameters` has the learner's own (it needs the
optional `fsrs[optimizer]` extra, i.e. torch, and at least `FIT_MIN_REVIEWS` reviews); without them
the defaults are kept.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import fsrs

RATINGS = {
    0: fsrs.Rating.Again,
    1: fsrs.Rating.Again,
    2: fsrs.Rating.Again,
    3: fsrs.Rating.Hard,
    4: fsrs.Rating.Good,
    5: fsrs.Rating.Easy,
}
PASS_GRADE = 3
DEFAULT_PARAMETERS: tuple[float, ...] = tuple(fsrs.Scheduler().parameters)
FIT_MIN_REVIEWS = 500
# The share of the scored reviews (the most recent ones) that calibration holds out.
HELD_OUT = 0.3
# Log loss of a prediction of exactly 0 or 1 that turns out wrong is infinite.
EPSILON = 1e-4


# Card memories memoised by MemoryModel.memory, at most this many (a 200-card learner holds
# 180 of them, about 0.4 MB with the planner's memos: bench/README-plan-cost.md); when full the
# memo starts afresh. Each web process holds its own, and an entry grows with the card's
# history (about 3 KB at 20 reviews), so the cap keeps a process's memos near 15 MB: some 25
# such learners at once, or 5 with a thousand cards; more only rebuild as before the memos.
MEMO_SIZE = 5_000
_MEMORIES: dict[tuple, fsrs.Card] = {}
_moment = operator.itemgetter(2)


@functools.lru_cache(maxsize=64)
def _scheduler(parameters: tuple[float, ...]) -> fsrs.Scheduler:
    """One fsrs scheduler per set of parameters (it holds no state between reviews)."""
    return fsrs.Scheduler(parameters=parameters, enable_fuzzing=False)


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


class MemoryModel:
    """FSRS with one set of parameters (the defaults, or a learner's own)."""

    def __init__(self, parameters: Sequence[float] | None = None):
        self.parameters = tuple(parameters) if parameters else DEFAULT_PARAMETERS
        self._scheduler = _scheduler(self.parameters)

    def memory(self, reviews: Iterable[Review], card_id: int = 0) -> fsrs.Card | None:
        """The card's memory after `reviews` (any order; one card's; reviews at the same moment
        in the order given), or None when never seen. See `replayed`."""
        return self.replayed([(r.card_id, r.grade, r.at) for r in reviews])

    def replayed(self, history: Iterable[tuple[int, int, datetime]]) -> fsrs.Card | None:
        """`memory` from (card_id, grade, moment) rows, as the database gives them.

        Memoised on the parameters and the whole history (each review's card, grade and
        moment), so a history seen before is not replayed through fsrs again: the plan is
        rebuilt on every queue request and a grade changes one card's history only. The card
        returned may be shared with other callers: never change it in place (fsrs itself
        copies a card before reviewing it)."""
        ordered = sorted(history, key=_moment)
        if not ordered:
            return None
        # In UTC (two moments of one zone an hour apart across a DST fold compare equal in
        # their zone, never in UTC); the database's UTC moments as they are.
        key = (
            self.parameters,
            tuple([(c, g, at if at.tzinfo is UTC else at.astimezone(UTC)) for c, g, at in ordered]),
        )
        card = _MEMORIES.get(key)
        if card is None:
            for card_id, grade, at in ordered:
                card = self.reviewed(card, grade, at, card_id=card_id)
            if len(_MEMORIES) >= MEMO_SIZE:
                _MEMORIES.clear()
            _MEMORIES[key] = card
        return card

    def reviewed(
        self, card: fsrs.Card | None, grade: int, at: datetime, card_id: int = 0
    ) -> fsrs.Card:
        """The memory after one more review with SM-2 `grade` at `at`."""
        if card is None:
            card = fsrs.Card(card_id=card_id or 1, due=_utc(at))
        card, _ = self._scheduler.review_card(card, RATINGS[grade], review_datetime=_utc(at))
        return card

    def recall(self, card: fsrs.Card | None, at: datetime) -> float:
        """Predicted probability of recall at `at`: 0 for a card never seen, else FSRS's
        retrievability (whole days since the last review; a moment before it counts as 0 days)."""
        if card is None:
            return 0.0
        return float(self._scheduler.get_card_retrievability(card, current_datetime=_utc(at)))

    def recall_after_days(self, stability: float, days: float) -> float:
        """Retrievability `days` after a review that left the card at `stability`."""
        return (1 + self._scheduler._FACTOR * max(0.0, days) / stability) ** self._scheduler._DECAY


def optimizer_available() -> bool:
    """Whether `fsrs.Optimizer` is the real one: fsrs replaces it by a stub that raises when any
    of its extras (torch, pandas, tqdm) is missing, and torch alone (the rllib extra brings it)
    is not enough."""
    return hasattr(fsrs.Optimizer, "compute_optimal_parameters")


def fit_parameters(reviews: Sequence[Review]) -> tuple[float, ...] | None:
    """The learner's own FSRS parameters from their reviews, or None when they have fewer than
    FIT_MIN_REVIEWS, too few for the optimizer to move off the defaults, or the optimizer (the
    `fit` extra: torch, pandas, tqdm) is missing."""
    if len(reviews) < FIT_MIN_REVIEWS or not optimizer_available():
        return None
    logs = [
        fsrs.ReviewLog(
            card_id=r.card_id,
            rating=RATINGS[r.grade],
            review_datetime=_utc(r.at),
            review_duration=r.duration_ms,
        )
        for r in reviews
    ]
    fitted = tuple(float(p) for p in fsrs.Optimizer(logs).compute_optimal_parameters())
    # The optimizer learns only from reviews in FSRS's Review state (not same-day learning
    # steps) and hands back the defaults untouched while it has fewer than 512 of them: that is
    # no fit, and the learner must not be told their own parameters are in use.
    return None if fitted == DEFAULT_PARAMETERS else fitted


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
    # cannot know how parameters were fitted; apps.study.fitting.calibration sets both):
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
    (`apps.study.fitting.memory_fit_run`) learns only from the reviews before it. One
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
) -> Calibration | None:
    """How well the model's predictions match the learner's outcomes. Every review is predicted
    from that card's earlier reviews only (never from itself or later ones); the score is taken on
    the reviews that come a day or more after the card's previous review (same-day re-drills are
    predicted as certain and tell nothing) at or after `split`, by default `holdout_split` (the
    most recent `held_out` share of them). A model fitted on reviews must be scored with the
    split its fit left out (`split=`): then it never saw the reviews it is scored on. None when
    no review is scored."""
    cards = _qualifying(reviews)
    if split is None:
        split = holdout_split(
            (r for history in cards.values() for r, _ in history), held_out=held_out
        )
        if split is None:
            return None
    test: list[tuple[datetime, float, bool, float]] = []
    for card_id, history in cards.items():
        card = None
        for review, qualifies in history:
            if qualifies and review.at >= split:
                p = model.recall(card, review.at)
                elapsed = (review.at - card.last_review).days
                test.append((review.at, p, review.recalled, elapsed / card.stability))
            card = model.reviewed(card, review.grade, review.at, card_id=card_id)
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


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)
