"""The interview scheduler: from today to the interview date, which items to practise on which
day so that the expected recall on the day is as high as the daily budget allows. Pure: no
Django import. This module is its one public face:

- `plan_build(...)` -> `Plan`: the plan, day by day, with the predicted recall on the day if
  nothing more is studied and if the plan is followed;
- `study_today(plan)` -> `Today`: what to study today, in order, and what waits;
- `plan_review(...)` -> `PlanReview`: how ready the learner will be, and what 10 more minutes
  a day or a later date would change.

An item is anything with an FSRS memory (a card today; an exercise could be one): its stability,
difficulty and the day of its last review, or none yet. Days are whole days from the learner's
local today (0); the interview is day `days_until`, and recall "on the day" is the item's
retrievability then. The optimiser gives out each day's budget to the reviews with the largest
expected gain in recall on the day (see `_allocate`): reviews concentrate as the date comes,
items that will be recalled anyway wait, unseen items are introduced when the date needs them
(past SM-2's new-card limit), and an item SM-2 makes due that the date does not need waits
(`Today.waiting`). With a target the plan stops once the predicted recall on the day reaches it:
the rest of the budget is the learner's. SM-2 itself stays untouched here: the caller decides
what a review does to its schedule.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from apps.interview.planner._allocate import MAX_REVIEWS, allocate, columns
from apps.interview.planner._forecast import recall

__all__ = [
    "MAX_PER_DAY",
    "MAX_REVIEWS",
    "MIN_GAIN",
    "Item",
    "Plan",
    "PlanDay",
    "PlanReview",
    "Readiness",
    "Today",
    "plan_build",
    "plan_review",
    "study_today",
]

# A review is planned only if it raises the expected recall on the day of its item by at least
# this much (a point of one item's recall): below it the learner's time is worth more elsewhere,
# and a generous budget is not spent on items that will be recalled anyway.
MIN_GAIN = 0.01
# No more reviews a day are planned than this (a 600-minute budget at 12 s a review would be
# 3,000): past it the plan is the same.
MAX_PER_DAY = 600


@dataclass(frozen=True)
class Item:
    """One thing to practise. Memory: stability (days), difficulty (1..10) and the day of the
    last review (0 = today, negative = before), all None for an item never practised. `due_day`:
    the day SM-2 makes it due (0 or less: due today), None when SM-2 has no schedule for it."""

    key: int
    group: str = ""
    stability: float | None = None
    difficulty: float | None = None
    last_day: int | None = None
    due_day: int | None = None

    @property
    def seen(self) -> bool:
        return self.stability is not None


@dataclass
class PlanDay:
    day: int  # 0 = today
    items: list[int] = field(default_factory=list)  # keys, in the order to practise them
    new: int = 0  # how many of them are first sights
    due: int = 0  # how many of them SM-2 makes due by then


@dataclass(frozen=True)
class Readiness:
    """Predicted recall on the day: the expected share of items recalled, overall and per group
    (items never practised count 0)."""

    overall: float
    groups: dict[str, float]


@dataclass
class Plan:
    days_until: int
    per_day: int
    days: list[PlanDay]
    now: Readiness  # if nothing more is studied
    followed: Readiness  # if the plan is followed
    waiting: list[int]  # due today in SM-2, not planned today
    waiting_after: list[int]  # of those, the ones not planned before the date at all
    kinds: dict[int, str]  # today's items: "new", "due" (SM-2 makes it due) or "extra"
    more_time: float | None = None  # followed, with `more_per_day` more reviews a day

    @property
    def reviews(self) -> int:
        return sum(len(day.items) for day in self.days)


@dataclass(frozen=True)
class Today:
    """What to study today: the items in order, what each is ("new", "due" or "extra"), and the
    items SM-2 makes due today that wait (those not planned before the date wait until after)."""

    items: list[int]
    kinds: dict[int, str]
    waiting: list[int]
    waiting_after: list[int]


@dataclass(frozen=True)
class PlanReview:
    """How ready the learner will be and what would change it: the predicted recall on the day
    now, if the plan is followed, with `extra_per_day` more reviews a day, and with the date
    `later_days` later (each plan followed)."""

    today: int  # items planned today
    now: float
    followed: float
    more_time: float | None  # None when extra_per_day is 0: no larger budget was tried
    extra_per_day: int
    later_date: float
    later_days: int


def plan_build(
    *,
    items: Sequence[Item],
    new: Sequence[Item] = (),
    unseen: Mapping[str, int] | None = None,
    parameters: Sequence[float],
    days_until: int,
    per_day: int,
    done_today: int = 0,
    min_gain: float = MIN_GAIN,
    target: float | None = None,
    more_per_day: int = 0,
) -> Plan:
    """The plan from today to the interview `days_until` days later (0: it is today; the
    reviews of the day count), with at most `per_day` reviews a day (`done_today` of today's
    already spent).

    `items`: the items practised before (with memories); `new`: the unseen items in the order
    to introduce them (as many as the plan could take; more are not looked at); `unseen`: how
    many unseen items each group has in all (those in `new` included), for readiness.
    `target`: stop planning once the predicted recall on the day reaches it (the rest of the
    budget is not needed); None: as high as the budget allows. `more_per_day`: also work out
    the predicted recall with that many more reviews a day (`Plan.more_time`)."""
    if days_until < 0:
        raise ValueError(f"days_until must be 0 or more, got {days_until}")
    per_day = max(0, min(per_day, MAX_PER_DAY))
    w = np.asarray(parameters, dtype=np.float64)
    seen = sorted((item for item in items if item.seen), key=lambda item: item.key)
    unseen_count = dict(unseen) if unseen is not None else {}
    if unseen is None:
        for item in [*items, *new]:
            if not item.seen:
                unseen_count[item.group] = unseen_count.get(item.group, 0) + 1
    new = [item for item in new if not item.seen]
    cols = columns(days_until)
    interview = max(days_until, 0)
    s0 = np.array([i.stability for i in seen], dtype=np.float64)
    d0 = np.array([i.difficulty for i in seen], dtype=np.float64)
    last0 = np.array([min(0, i.last_day or 0) for i in seen], dtype=np.float64)
    now_values = {
        item.key: float(v)
        for item, v in zip(seen, recall(w, interview - last0, s0) if seen else [], strict=True)
    }
    total_items = len(seen) + sum(unseen_count.values())
    more = min(per_day + more_per_day, MAX_PER_DAY) if more_per_day else 0
    done, reached = allocate(
        w=w,
        cols=cols,
        interview=interview,
        s0=s0,
        d0=d0,
        last0=last0,
        keys=[i.key for i in seen],
        new_keys=[i.key for i in new],
        per_day=per_day,
        done_today=done_today,
        min_gain=min_gain,
        goal=None if target is None else target * total_items,
        levels=(more,) if more else (),
    )
    followed_values = dict(now_values)
    for key, v in zip(done.keys, done.value, strict=True):
        followed_values[key] = float(v)
    by_key = {i.key: i for i in [*seen, *new]}
    horizon = max(1, days_until)
    days = [PlanDay(day=d) for d in range(horizon)]
    spread: dict[int, int] = {}  # a column's next day, for columns wider than a day
    for row, j in done.order:
        col = cols[j]
        offset = spread.get(j, 0)
        spread[j] = (offset + 1) % col.width
        day = days[col.start + offset]
        key = done.keys[row]
        day.items.append(key)
        item = by_key[key]
        if not item.seen and j == min(done.planned[row]):
            day.new += 1
        elif item.due_day is not None and item.due_day <= day.day:
            day.due += 1
    today = set(days[0].items)
    planned_at_all = {done.keys[row] for row, _ in done.order}
    due_today = [i.key for i in seen if i.due_day is not None and i.due_day <= 0]
    waiting = [k for k in due_today if k not in today]
    kinds = {}
    for key in days[0].items:
        item = by_key[key]
        kinds[key] = "new" if not item.seen else "due" if (item.due_day or 1) <= 0 else "extra"
    plan = Plan(
        days_until=days_until,
        per_day=per_day,
        days=days,
        now=_readiness_of(seen, now_values, unseen_count),
        followed=_readiness_of(
            [*seen, *(by_key[k] for k in done.keys[len(seen) :])], followed_values, unseen_count
        ),
        waiting=waiting,
        waiting_after=[k for k in waiting if k not in planned_at_all],
        kinds=kinds,
        more_time=None,
    )
    if more:  # the same plan and more layers: never below it (but for the sums' rounding)
        plan.more_time = max(plan.followed.overall, reached[more] / total_items)
    return plan


def _readiness_of(
    items: Sequence[Item], values: dict[int, float], unseen: Mapping[str, int]
) -> Readiness:
    """Readiness over the seen items and every unseen one (`unseen` per group, counting 0
    unless it is among `items` with a planned value)."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = dict(unseen)
    for item in items:
        sums[item.group] = sums.get(item.group, 0.0) + values.get(item.key, 0.0)
        if item.seen:
            counts[item.group] = counts.get(item.group, 0) + 1
    total = sum(counts.values())
    overall = sum(sums.values()) / total if total else 0.0
    groups = {g: (sums.get(g, 0.0) / n if n else 0.0) for g, n in sorted(counts.items())}
    return Readiness(overall=overall, groups=groups)


def study_today(plan: Plan) -> Today:
    """What to study today, from the plan."""
    return Today(
        items=list(plan.days[0].items),
        kinds=dict(plan.kinds),
        waiting=list(plan.waiting),
        waiting_after=list(plan.waiting_after),
    )


def plan_review(
    *,
    items: Sequence[Item],
    new: Sequence[Item] = (),
    unseen: Mapping[str, int] | None = None,
    parameters: Sequence[float],
    days_until: int,
    per_day: int,
    done_today: int = 0,
    extra_per_day: int,
    later_days: int = 7,
    plan: Plan | None = None,
    target: float | None = None,
) -> PlanReview:
    """The plan (given, built with `more_per_day=extra_per_day`, or built here) reviewed: how
    ready on the day, and with `extra_per_day` more reviews a day or the date `later_days`
    later. The caller passes as many `new` items as the larger budget and the later date could
    take."""
    build = functools.partial(
        plan_build, items=items, new=new, unseen=unseen, parameters=parameters, target=target,
        per_day=per_day, done_today=done_today,
    )  # fmt: skip
    if plan is None or plan.more_time is None:
        plan = build(days_until=days_until, more_per_day=extra_per_day)
    later = build(days_until=days_until + later_days)
    return PlanReview(
        today=len(plan.days[0].items),
        now=plan.now.overall,
        followed=plan.followed.overall,
        more_time=plan.more_time,
        extra_per_day=extra_per_day,
        later_date=later.followed.overall,
        later_days=later_days,
    )
