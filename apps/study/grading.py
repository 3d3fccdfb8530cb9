"""The one grade of a card, from the review page and the API alike: SM-2's review
(`services.review_record`), or, for a card the interview plan serves that SM-2 has not made due,
a plan-mode review (a ReviewLog of kind "plan": the card's FSRS memory learns from it, its SM-2
schedule stays as it was, so the "not due -> 409" rule stands). A review synced from a device
(`sync.Moment`) is graded at its own moment either way. `interview` imports these names too.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.study import scheduler, selectors, services, sync
from apps.study.models import MEMORY_FIELDS, CardState, ReviewLog
from apps.study.scheduler import CardSchedule


class NoInterviewDate(services.StudyError):
    status = 409


def plan_review_record(
    *,
    user,
    card: Card | int,
    grade: int,
    client_id: uuid.UUID | None = None,
    duration_ms: int | None = None,
    now: datetime | None = None,
    moment: sync.Moment | None = None,
) -> tuple[ReviewLog, bool]:
    """Grade a card the interview queue serves: a normal review when SM-2 lets it be graded
    now (at `moment`, for a review synced from a device), else a plan-mode review that logs the
    grade, updates the card's FSRS memory and leaves its SM-2 schedule as it was. (log, created)
    as `services.review_record`; the same client_id again replays the first log. A synced review
    the device made without knowing of a later one is merged by `services.review_record`."""
    profile = profile_for(user)
    if profile.interview_date is None:
        raise NoInterviewDate("no interview date is set; set one in your profile to plan for it")
    grade = services.grade_check(grade)
    if isinstance(card, int):
        found = selectors.visible_card(user, card)
        if found is None:
            raise services.StudyError(f"no card with id {card}", field="card")
        card = found
    server_now = now or timezone.now()
    at = moment.at if moment is not None else server_now
    normal = {"user": user, "card": card, "grade": grade, "client_id": client_id,
              "duration_ms": duration_ms, "now": server_now, "moment": moment,
              "for_interview": True}  # fmt: skip
    states = CardState.objects.filter(user=user, card=card)
    found_state = states.values_list("due_at", "last_reviewed_at").first()
    due = found_state is None or scheduler.is_due(
        CardSchedule(due_at=found_state[0]), at, profile.zone
    )
    if due:
        return services.review_record(**normal)  # new, or due in SM-2: SM-2's own review
    assert found_state is not None  # a card without a state is due
    if moment is not None and moment.missed(found_state[1]):
        return services.review_record(**normal)  # reviewed elsewhere meanwhile: merged
    try:
        with transaction.atomic():
            model = services.learner_lock(user)  # as a grade: an undo sees this log whole
            row = states.select_for_update().get()
            if row.suspended:
                raise services.CardSuspended(
                    f"card {card.slug} is suspended; unsuspend it to review it"
                )
            if moment is not None:
                refusal = moment.refusal(server_now, row.last_reviewed_at)
                if refusal:
                    raise services.StudyError(refusal, field="reviewed_at")
            if scheduler.is_due(row.schedule, at, profile.zone) or (
                moment is not None and moment.missed(row.last_reviewed_at)
            ):
                log = None  # made due (an undo, a requeue) or reviewed since: services, below
            else:
                schedule = row.schedule.as_json()
                log = ReviewLog(
                    user=user,
                    card=card,
                    grade=grade,
                    kind=ReviewLog.Kind.PLAN,
                    reviewed_at=at,
                    duration_ms=duration_ms,
                    state_before=schedule,
                    state_after=schedule,
                    client_id=client_id,
                )
                services.memory_review(row, log, grade, at, profile.zone, model)
                CardState.objects.filter(pk=row.pk).update(
                    **{name: getattr(row, name) for name in MEMORY_FIELDS}
                )
                log.save(force_insert=True)
    except IntegrityError:
        replayed = services._replay(user, client_id, card, grade)
        if replayed is None:
            raise
        return replayed, False
    except services.StudyError:
        replayed = services._replay(user, client_id, card, grade)
        if replayed is None:
            raise
        return replayed, False
    if log is None:
        return services.review_record(**normal)
    return log, True


def review_submit(
    *,
    user,
    card: Card | int,
    grade: object,
    client_id: uuid.UUID | None = None,
    duration_ms: int | None = None,
    for_interview: bool = False,
    moment: sync.Moment | None = None,
) -> tuple[ReviewLog, bool]:
    """The one grade of a card, from the review page (ReviewForm) and the API (its serializer's
    validated data) alike: a card the queue lists for the interview plan is graded by
    `plan_review_record` (logged, its schedule kept if not due), any other by SM-2's
    `services.review_record`. `card`: a Card the caller may see, or a card id to look up among
    those. `moment`: a review made on a device and synced later (apps.study.sync). The grade is
    checked first, so a bad one is refused with the scheduler's sentence before anything else
    is asked."""
    grade = services.grade_check(grade)
    common = {"user": user, "card": card, "grade": grade, "client_id": client_id,
              "duration_ms": duration_ms, "moment": moment}  # fmt: skip
    if for_interview:
        return plan_review_record(**common)
    return services.review_record(**common)
