"""The interview planner's reference copy: `apps.study.plan.plan_build` and the memory model's
replay as they were at 816885c (before the plan was made cheaper), for
tests/study/test_plan_identity.py to prove the faster code decides exactly the same plans. Do not
speed this file up: it is the yardstick."""

# ruff: noqa

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import fsrs

from apps.study import scheduler
from apps.study.memory import RATINGS, MemoryModel
from apps.study.plan import (
    AGAIN,
    GOOD,
    MAX_PASSES,
    MIN_GAIN,
    NOON,
    Plan,
    PlanCard,
    PlanDay,
    Readiness,
)
from apps.study.scheduler import CardSchedule


class ReferenceModel:
    """MemoryModel's reviewed and recall at 816885c, straight on fsrs."""

    def __init__(self, parameters):
        self.parameters = tuple(parameters)
        self._scheduler = fsrs.Scheduler(parameters=self.parameters, enable_fuzzing=False)

    def reviewed(self, card, grade, at, card_id=0):
        if card is None:
            card = fsrs.Card(card_id=card_id or 1, due=_utc(at))
        card, _ = self._scheduler.review_card(card, RATINGS[grade], review_datetime=_utc(at))
        return card

    def recall(self, card, at):
        if card is None:
            return 0.0
        return float(self._scheduler.get_card_retrievability(card, current_datetime=_utc(at)))


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC)


def reference_memory(model: MemoryModel, reviews, card_id: int = 0) -> fsrs.Card | None:
    """MemoryModel.memory at 816885c: every review replayed through fsrs, every time."""
    model = ReferenceModel(model.parameters)
    card = None
    for review in sorted(reviews, key=lambda r: r.at):
        card = model.reviewed(card, review.grade, review.at, card_id=review.card_id)
    return card


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

    def moment(self, day: int) -> datetime:
        return self.start + timedelta(days=day) + NOON

    def day_of(self, moment: datetime) -> int:
        return math.floor((moment - self.start) / timedelta(days=1))


def predicted_recall(
    model: MemoryModel, memory: fsrs.Card | None, days: Sequence[int], timeline: _Timeline
) -> float:
    """Predicted recall on the interview day if the card is reviewed on `days` (sorted)."""
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
    """The days before `horizon` on which SM-2 makes the card due, projected with Good reviews."""
    days = []
    if schedule.due_at is None:
        return days
    day = max(0, timeline.day_of(schedule.due_at))
    while day < horizon:
        days.append(day)
        at = timeline.moment(day)
        schedule = scheduler.review(schedule, GOOD, at)
        day = max(day + 1, timeline.day_of(schedule.due_at))
    return days


def reference_plan_build(
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
    model = ReferenceModel(model.parameters)
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
