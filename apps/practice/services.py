"""Scheduling practice items that are not cards (code exercises, drills) with the same SM-2.

Study sits below the apps that own those items, so it knows an item only by its kind and key; the
owner app decides when an outcome is graded and calls `practice_record`. The grade follows one
rule for every kind (DESIGN.md, "Exercises and drills"): a pass is Good, a pass after a failure
since the item fell due is Hard, anything else is Again.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Subquery
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.practice.models import PracticeLog, PracticeState
from apps.study import scheduler

AGAIN, HARD, GOOD = 1, 3, 4


def practice_grade(*, passed: bool, failed_since_due: bool) -> int:
    """Good for a clean pass, Hard for a pass after a failure, Again for a failure."""
    if not passed:
        return AGAIN
    return HARD if failed_since_due else GOOD


def practice_record(
    *, user, kind: str, key: str, ref: str, grade: int, now: datetime | None = None
) -> tuple[PracticeLog, bool]:
    """Grade one practice item for `user` and return (log, created). `ref` names the outcome in
    its owner app (a submission id): the same ref again returns the first log and changes
    nothing, so a task that runs twice records once. Unlike a card, an item that is not due can
    still be practised: it is then logged with its schedule unchanged (as cramming is)."""
    grade = scheduler.check_grade(grade)
    now = now or timezone.now()
    try:
        with transaction.atomic():
            return _record(user, kind, key, str(ref), grade, now), True
    except IntegrityError:
        log = PracticeLog.objects.filter(kind=kind, key=key, ref=str(ref)).first()
        if log is None:
            raise
        return log, False


def _record(user, kind, key, ref, grade, now) -> PracticeLog:
    row = PracticeState.objects.select_for_update().filter(user=user, kind=kind, key=key).first()
    if row is None:
        row = PracticeState(user=user, kind=kind, key=key)
        row.apply(scheduler.new_state(now))
        before = None
    else:
        before = row.schedule.as_json()
    schedule = row.schedule
    if scheduler.is_due(schedule, now, profile_for(user).zone):
        row.apply(scheduler.review(schedule, grade, now))
        row.save()
    elif row.pk is None:
        row.save()
    log = PracticeLog(
        user=user,
        kind=kind,
        key=key,
        ref=ref,
        grade=grade,
        reviewed_at=now,
        state_before=before,
        state_after=row.schedule.as_json(),
    )
    log.save(force_insert=True)
    return log


def practice_failed_since_due(*, user, kind: str, key: str) -> bool:
    """Whether the learner failed this item since it fell due and has not passed it since: what
    `practice_grade` needs to tell a pass after a failure (Hard) from a clean pass (Good). A
    failure from before the item fell due (practised early) does not count; after an Again the
    item is due from that moment, so the failure does. One query."""
    due_at = PracticeState.objects.filter(user=user, kind=kind, key=key).values("due_at")[:1]
    last = (
        PracticeLog.objects.filter(user=user, kind=kind, key=key, reviewed_at__gte=Subquery(due_at))
        .order_by("-reviewed_at", "-id")
        .values_list("grade", flat=True)
        .first()
    )
    return last is not None and last < 3


def practice_states(
    *, user, kind: str, keys: Iterable[str] | None = None
) -> dict[str, PracticeState]:
    """The learner's states of `kind` by key (all of them, or only `keys`), in one query."""
    rows = PracticeState.objects.filter(user=user, kind=kind)
    if keys is not None:
        rows = rows.filter(key__in=list(keys))
    return {row.key: row for row in rows}


def practice_due(*, user, kind: str, now: datetime | None = None) -> list[PracticeState]:
    """The learner's items of `kind` due by the end of their local today, soonest first (a new
    item, never practised, has no row: its owner app lists those)."""
    now = now or timezone.now()
    end = scheduler.day_end(now, profile_for(user).zone)
    return list(
        PracticeState.objects.filter(user=user, kind=kind, due_at__lt=end).order_by("due_at")
    )
