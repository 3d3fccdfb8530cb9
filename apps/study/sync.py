"""Reviews made on a device and sent later (issue 32): the moment a review happened, its bounds,
and the replay of a card's logged reviews when they did not arrive in time order.

A device sends each waiting review with `reviewed_at` (when the learner graded) and `based_on`
(the `last_reviewed_at` of the state it graded from; null for a card it had never seen). When the
server holds a review of that card the device did not know of, the card was reviewed on another
device meanwhile: the synced review is kept, put in the log at its moment, and the card's state
becomes the replay of its reviews in time order (`scheduler.replay`, no due check: Anki's rule).

Known limit: a plan-mode review (interview mode) does not move `last_reviewed_at`, so a synced
review made before another device's later plan-mode review is not seen as crossed: it is graded
on the state as it is, and its FSRS memory counts from the later review's day (no elapsed days).

The log rows after that moment are rewritten to the replay (their state_before, state_after,
memory_before and kind), so each row says what it did in the order things happened, and undoing
any of them restores what the rest replay to. The same replay runs when an undo takes out a
review that others came after.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Q

from apps.study import scheduler
from apps.study.memory import Memory, MemoryModel
from apps.study.models import CardState, ReviewLog
from apps.study.scheduler import CardSchedule

REPLAYED_FIELDS = ["state_before", "state_after", "memory_before", "kind"]


@dataclass(frozen=True, slots=True)
class Moment:
    """When a device says a review happened and what it knew of the card: `based_on` is the last
    review of the state it graded from (None: a card new to the device); `based_on_sent` is False
    when the client sent no based_on at all (then the card's last review is the bound)."""

    at: datetime
    based_on: datetime | None = None
    based_on_sent: bool = False

    def refusal(self, now: datetime, last_reviewed_at: datetime | None) -> str | None:
        return scheduler.moment_refusal(
            self.at,
            now,
            hold_days=settings.RAYDECK_OFFLINE_HOLD_DAYS,
            based_on=self.based_on if self.based_on_sent else None,
            last_reviewed_at=None if self.based_on_sent else last_reviewed_at,
        )

    def missed(self, last_reviewed_at: datetime | None) -> bool:
        """True when the server holds a review of the card later than what the device knew.
        Compared to the millisecond: a device that kept `last_reviewed_at` as a JavaScript Date
        sends it back without the server's microseconds, and that is the same review."""
        if not self.based_on_sent or last_reviewed_at is None:
            return False
        if self.based_on is None:
            return True
        last = last_reviewed_at
        return last.replace(microsecond=last.microsecond // 1000 * 1000) > self.based_on


def conflict_message(card_id: int, slug: str) -> str:
    return (
        f"card {slug} (id {card_id}) was also reviewed on another device; both reviews are kept"
        " and its schedule is their replay in time order"
    )


def _kind(log: ReviewLog, before: CardSchedule | None, zone) -> str:
    """A replayed review's kind as `services` gives it at the moment of the review."""
    if log.kind == ReviewLog.Kind.PLAN:
        return log.kind
    if before is None or before.last_reviewed_at is None:
        return ReviewLog.Kind.NEW
    if before.needs_redrill or before.last_reviewed_at >= scheduler.day_start(
        log.reviewed_at, zone
    ):
        return ReviewLog.Kind.REDRILL
    return ReviewLog.Kind.REVIEW


def card_replay(
    *,
    row: CardState,
    logs: Sequence[ReviewLog],
    start: CardSchedule | None,
    memory: Memory | None,
    model: MemoryModel,
    zone,
    threshold: int,
) -> None:
    """Replay `logs` (one card's standing reviews, in time order) from `start` and `memory`, the
    card's schedule and FSRS memory just before the first of them: each log's state_before,
    state_after, memory_before and kind are set to the replay's, and the (unsaved) row gets the
    final schedule and memory. Leech: the card is one when the replay's lapses reach the
    threshold and it was one already or a replayed lapse made it one."""
    steps = scheduler.replay(
        start, [(log.reviewed_at, None if log.kind == ReviewLog.Kind.PLAN else log.grade)
                for log in logs]
    )  # fmt: skip
    made_leech = False
    introduced = None
    for log, (before, after) in zip(logs, steps, strict=True):
        log.kind = _kind(log, before, zone)
        if log.kind == ReviewLog.Kind.NEW and introduced is None:
            introduced = log.reviewed_at
        log.state_before = before.as_json() if before is not None else None
        log.state_after = after.as_json()
        log.memory_before = memory.as_json() if memory else {}
        memory = model.reviewed(memory, log.grade, scheduler.local_date(log.reviewed_at, zone))
        lapses_before = before.lapses if before is not None else 0
        made_leech = made_leech or scheduler.leech_reached(lapses_before, after.lapses, threshold)
    final = steps[-1][1]
    row.apply(final)
    row.memory_apply(memory)
    row.leech = threshold > 0 and final.lapses >= threshold and (row.leech or made_leech)
    if introduced is not None:
        row.introduced_at = introduced


def standing_after(user_id: int, card_id: int, at: datetime, log_id: int | None = None):
    """The card's reviews not undone that come after `at` (and, at the same instant, after the
    log `log_id`; without it, every one at that instant comes first), in time order."""
    later = (
        Q(reviewed_at__gt=at) | Q(reviewed_at=at, id__gt=log_id)
        if log_id
        else Q(reviewed_at__gt=at)
    )
    logs = ReviewLog.objects.filter(later, user_id=user_id, card_id=card_id, undone_at=None)
    return list(logs.order_by("reviewed_at", "id"))


def memory_before(log: ReviewLog, model: MemoryModel, zone) -> Memory | None:
    """The card's memory before `log`: from the log, or (a log made before memories were
    stored) replayed from the card's standing reviews before it."""
    if log.memory_before is not None:
        return Memory.from_json(log.memory_before)
    earlier = ReviewLog.objects.filter(
        user_id=log.user_id, card_id=log.card_id, undone_at=None, reviewed_at__lt=log.reviewed_at
    )
    history = earlier.order_by("reviewed_at", "id").values_list("grade", "reviewed_at")
    return model.replayed((grade, scheduler.local_date(at, zone)) for grade, at in history)


def review_merge(
    *, row: CardState, log: ReviewLog, model: MemoryModel, zone, threshold: int, plan: bool
) -> list[ReviewLog]:
    """Put the (unsaved) `log` of a synced review into its card's history at its moment and
    replay the reviews from there (`card_replay`); returns the later logs it rewrote, for the
    caller to save with the row and the new log. `plan`: an interview review, logged in plan
    mode (its schedule kept) when SM-2 had not made the card due at that moment."""
    later = standing_after(row.user_id, row.card_id, log.reviewed_at)
    if later:
        first = later[0]
        start = CardSchedule.from_json(first.state_before) if first.state_before else None
        memory = memory_before(first, model, zone)
    else:
        start, memory = row.schedule, row.memory
    due = start is None or scheduler.is_due(start, log.reviewed_at, zone)
    log.kind = ReviewLog.Kind.PLAN if plan and not due else ReviewLog.Kind.REVIEW
    log.conflict = True
    card_replay(
        row=row, logs=[log, *later], start=start, memory=memory, model=model, zone=zone,
        threshold=threshold,
    )  # fmt: skip
    return later
