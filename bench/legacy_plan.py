"""The interview plan as it was before issue 24 (apps/study/plan.py and the py-fsrs memory model
of apps/study/memory.py at 0df603f), kept verbatim for bench/plan_sim.py's "SM-2 with today's
plan" column: SM-2's due and new cards first, the plan's extra reviews after them. Not the
product's: the product's interview scheduler is apps/interview/planner/.
"""

# ruff: noqa
from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import functools
import operator

import fsrs

from apps.study import scheduler
from apps.study.scheduler import CardSchedule

DEFAULT_SECONDS_PER_REVIEW = 12.0
MIN_TIMED_REVIEWS = 20
# A duration outside this range is a learner who walked away (or a clock glitch), not a review.
TIMED_RANGE_MS = (1_000, 300_000)
NOON = timedelta(hours=12)
GOOD, AGAIN = 4, 1
MAX_PASSES = 8
MIN_GAIN = 0.002
# The planner's memos (see `predicted_recall`) hold at most this many answers each (a 200-card
# learner's plan leaves about 300 and 180); when full they start afresh.
MEMO_SIZE = 10_000
_PREDICTED: dict[tuple, float] = {}
_DUE_DAYS: dict[tuple, tuple[int, ...]] = {}


def seconds_per_review(durations_ms: Iterable[int | None]) -> float:
    """The learner's median seconds per review from their own timed reviews, or a default of 12 s
    while fewer than 20 reviews were timed."""
    low, high = TIMED_RANGE_MS
    timed = [d for d in durations_ms if d is not None and low <= d <= high]
    if len(timed) < MIN_TIMED_REVIEWS:
        return DEFAULT_SECONDS_PER_REVIEW
    return statistics.median(timed) / 1000


def reviews_per_day(budget_minutes: int, seconds: float) -> int:
    """How many reviews fit a daily budget of `budget_minutes` at `seconds` per review."""
    return max(0, math.floor(budget_minutes * 60 / max(seconds, 0.1)))


@dataclass(frozen=True)
class PlanCard:
    card_id: int
    section: str
    memory: fsrs.Card | None  # None: never reviewed
    schedule: CardSchedule | None = None  # SM-2's state; None for a new card


@dataclass
class PlanDay:
    day: int  # 0 = today
    cards: list[int] = field(default_factory=list)  # SM-2's due cards first, then the plan's
    due: int = 0  # how many of `cards` SM-2 makes due
    capacity: int = 0


@dataclass(frozen=True)
class Readiness:
    """Predicted recall on the interview day: the share of cards recalled, overall and per
    section, and per card."""

    overall: float
    sections: dict[str, float]
    cards: dict[int, float]


@dataclass
class Plan:
    days: list[PlanDay]
    per_day: int
    target: float
    now: Readiness  # if nothing more is studied
    followed: Readiness  # if the plan is followed
    deferred: list[int] = field(default_factory=list)  # due today in SM-2, can wait (see above)

    @property
    def reviews(self) -> int:
        return sum(len(day.cards) for day in self.days)

    @property
    def shortfall(self) -> float:
        """How far (0..1) the predicted recall falls short of the target; 0 if it does not."""
        return max(0.0, self.target - self.followed.overall)

    @property
    def short_sections(self) -> list[tuple[str, float]]:
        """The sections predicted below the target if the plan is followed, weakest first."""
        short = [(s, r) for s, r in self.followed.sections.items() if r < self.target]
        return sorted(short, key=lambda item: item[1])


def _readiness(cards: Sequence[PlanCard], recall: dict[int, float]) -> Readiness:
    sections: dict[str, list[float]] = {}
    for card in cards:
        sections.setdefault(card.section, []).append(recall[card.card_id])
    overall = sum(recall.values()) / len(recall) if recall else 0.0
    return Readiness(
        overall=overall,
        sections={name: sum(v) / len(v) for name, v in sections.items()},
        cards=dict(recall),
    )


class _Timeline:
    def __init__(self, today_start: datetime, days_until: int):
        self.start = today_start
        self.interview = today_start + timedelta(days=days_until) + NOON
        # What the moments depend on, for the memos: the start with its zone (days are added
        # on its wall clock) and the interview day.
        self.key = (today_start, today_start.tzinfo, today_start.fold, days_until)

    def moment(self, day: int) -> datetime:
        return self.start + timedelta(days=day) + NOON

    def day_of(self, moment: datetime) -> int:
        return math.floor((moment - self.start) / timedelta(days=1))


def predicted_recall(
    model: MemoryModel, memory: fsrs.Card | None, days: Sequence[int], timeline: _Timeline
) -> float:
    """Predicted recall on the interview day if the card is reviewed on `days` (sorted).

    Memoised on everything the answer depends on (the parameters, the card's memory, the days
    and the timeline): the planner asks it again for the same card and days across its passes,
    and the next request asks it again for every card the last grade did not touch."""
    key = (model.parameters, _memory_key(memory), tuple(days), timeline.key)
    recall = _PREDICTED.get(key)
    if recall is None:
        recall = _predicted_recall(model, memory, days, timeline)
        _remember(_PREDICTED, key, recall)
    return recall


def _memory_key(memory: fsrs.Card | None) -> tuple | None:
    """What fsrs reads of a card to review it or predict its recall (not its id or due date)."""
    if memory is None:
        return None
    last = memory.last_review
    if last is not None and last.tzinfo is not UTC:
        last = last.astimezone(UTC)
    return (memory.state, memory.step, memory.stability, memory.difficulty, last)


def _remember(memo: dict, key, value) -> None:
    if len(memo) >= MEMO_SIZE:
        memo.clear()
    memo[key] = value


def _predicted_recall(
    model: MemoryModel, memory: fsrs.Card | None, days: Sequence[int], timeline: _Timeline
) -> float:
    if not days:
        return model.recall(memory, timeline.interview)
    for day in days[:-1]:
        at = timeline.moment(day)
        memory = model.reviewed(memory, GOOD if model.recall(memory, at) >= 0.5 else AGAIN, at)
    at = timeline.moment(days[-1])
    p = model.recall(memory, at)
    good = model.recall(model.reviewed(memory, GOOD, at), timeline.interview)
    again = model.recall(model.reviewed(memory, AGAIN, at), timeline.interview)
    return p * good + (1 - p) * again


def _sm2_due_days(schedule: CardSchedule, timeline: _Timeline, horizon: int) -> list[int]:
    """The days before `horizon` on which SM-2 makes the card due, projected with Good reviews
    (memoised like `predicted_recall`; a re-drill's anchor is kept with its zone, days are added
    to it on its wall clock)."""
    anchor = schedule.redrill_anchor
    key = (schedule, anchor and anchor.tzinfo, anchor and anchor.fold, timeline.key, horizon)
    days = _DUE_DAYS.get(key)
    if days is None:
        days = _sm2_projected(schedule, timeline, horizon)
        _remember(_DUE_DAYS, key, days)
    return list(days)


def _sm2_projected(schedule: CardSchedule, timeline: _Timeline, horizon: int) -> tuple[int, ...]:
    days = []
    if schedule.due_at is None:
        return ()
    day = max(0, timeline.day_of(schedule.due_at))
    while day < horizon:
        days.append(day)
        at = timeline.moment(day)
        schedule = scheduler.review(schedule, GOOD, at)
        day = max(day + 1, timeline.day_of(schedule.due_at))
    return tuple(days)


def plan_build(
    *,
    cards: Sequence[PlanCard],
    model: MemoryModel,
    today_start: datetime,
    days_until: int,
    per_day: int,
    target: float,
    done_today: int = 0,
    defer: str | None = "card",
) -> Plan:
    """The plan from local today (`today_start`, its midnight) to the interview `days_until` days
    later, with at most `per_day` reviews a day (`done_today` of today's already spent). With
    `defer` None every SM-2 due card is planned, even those the date does not need."""
    timeline = _Timeline(today_start, days_until)
    horizon = max(1, days_until)
    capacity = [per_day] * horizon
    capacity[0] = max(0, per_day - done_today)
    days = [PlanDay(day=d, capacity=capacity[d]) for d in range(horizon)]
    free = list(capacity)
    planned: dict[int, list[int]] = {card.card_id: [] for card in cards}
    by_id = {card.card_id: card for card in cards}

    now = {card.card_id: model.recall(card.memory, timeline.interview) for card in cards}
    # 1. SM-2's due cards, most overdue first; a day's overflow moves to the next day. A card
    # already predicted at the target on the day waits (its recall only falls until then, and
    # the prediction is taken at the interview, so it holds on every day before it).
    due_days = {
        card.card_id: _sm2_due_days(card.schedule, timeline, horizon)
        for card in cards
        if card.schedule is not None
    }
    due_days = {cid: d for cid, d in due_days.items() if d}
    waits = _waits(model, by_id, due_days, now, target, timeline, defer) if defer else set()
    deferred = sorted(cid for cid in waits if due_days[cid][0] == 0)
    due_on: dict[int, list[tuple[datetime, int]]] = {}
    for card_id, on in due_days.items():
        if card_id not in waits:
            for day in on:
                due_on.setdefault(day, []).append((by_id[card_id].schedule.due_at, card_id))
    carry: list[tuple[datetime, int]] = []
    for d in range(horizon):
        waiting = carry + sorted(due_on.get(d, []))
        carry = []
        for key in waiting:
            card_id = key[1]
            if d in planned[card_id]:
                continue
            if free[d] > 0:
                free[d] -= 1
                planned[card_id].append(d)
                days[d].cards.append(card_id)
                days[d].due += 1
            else:
                carry.append(key)

    # 2. For the interview: lowest predicted recall on the day first, in the latest free day.
    recall = {
        cid: predicted_recall(model, by_id[cid].memory, d, timeline) for cid, d in planned.items()
    }
    total = sum(recall.values())
    goal = target * len(cards)
    for _ in range(MAX_PASSES):
        if total >= goal or not any(free):
            break
        added = 0
        for card_id in sorted(recall, key=lambda cid: (recall[cid], cid)):
            if total >= goal:
                break
            memory = by_id[card_id].memory
            seen_on = timeline.day_of(memory.last_review) if memory is not None else None
            best = _best_slot(model, memory, planned[card_id], seen_on, free, timeline)
            if best is None:
                continue
            day, trial, better = best
            if better - recall[card_id] < MIN_GAIN:
                continue
            free[day] -= 1
            planned[card_id] = trial
            days[day].cards.append(card_id)
            total += better - recall[card_id]
            recall[card_id] = better
            added += 1
        if not added:
            break
    return Plan(
        days=days,
        per_day=per_day,
        target=target,
        now=_readiness(cards, now),
        followed=_readiness(cards, recall),
        deferred=deferred,
    )


def _waits(model, by_id, due_days, now, target, timeline, mode: str) -> set[int]:
    """The due cards that can wait: "card", those predicted at the target on the day already;
    "total" (an experiment of bench/plan_sim.py, not the product's), also the due cards whose
    SM-2 reviews add least, while the predicted overall recall stays at the target."""
    waits = {cid for cid in due_days if now[cid] >= target}
    if mode != "total":
        return waits
    kept = {
        cid: predicted_recall(model, by_id[cid].memory, on, timeline)
        for cid, on in due_days.items()
        if cid not in waits
    }
    total = sum(now.values()) + sum(kept[cid] - now[cid] for cid in kept)
    goal = target * len(now)
    for cid in sorted(kept, key=lambda c: (kept[c] - now[c], c)):
        if total - (kept[cid] - now[cid]) < goal:
            break
        total -= kept[cid] - now[cid]
        waits.add(cid)
    return waits


def _best_slot(model, memory, days: list[int], seen_on: int | None, free: list[int], timeline):
    """Where one more review of a card helps most: (day, its days with that one, predicted recall).

    A card never seen is introduced on the earliest free day: a first sight is nearly always a
    miss, and what it leaves depends on the same-day re-drills the plan cannot see, so it must
    not wait for the end. Otherwise the candidates are the latest free day (the last review close
    to the date) and the free day nearest the middle of the longest gap between the card's
    reviews (spacing); the one that raises the predicted recall on the day most wins."""
    taken = {*days, seen_on}
    open_days = [d for d in range(len(free)) if free[d] > 0 and d not in taken]
    if not open_days:
        return None
    if memory is None and not days:
        candidates = {open_days[0]}
    else:
        points = sorted(d for d in taken if d is not None)
        gaps = [(b - a, (a + b) / 2) for a, b in zip(points, points[1:], strict=False)]
        candidates = {open_days[-1]}
        if gaps:
            width, middle = max(gaps)
            if width >= 2:
                candidates.add(min(open_days, key=lambda d: (abs(d - middle), -d)))
    best = None
    for day in candidates:
        trial = sorted([*days, day])
        recall = predicted_recall(model, memory, trial, timeline)
        if best is None or recall > best[2]:
            best = (day, trial, recall)
    return best


# --- the memory model of the time (py-fsrs, each card replayed from its history) ---

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
MEMO_SIZE_MEMORIES = 5_000
_MEMORIES: dict[tuple, fsrs.Card] = {}
_moment = operator.itemgetter(2)


@functools.lru_cache(maxsize=64)
def _scheduler(parameters: tuple[float, ...]) -> fsrs.Scheduler:
    """One fsrs scheduler per set of parameters (it holds no state between reviews)."""
    return fsrs.Scheduler(parameters=parameters, enable_fuzzing=False)


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
            if len(_MEMORIES) >= MEMO_SIZE_MEMORIES:
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


def _utc(moment):
    return moment.astimezone(UTC)
