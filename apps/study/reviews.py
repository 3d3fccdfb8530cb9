"""Grading and undoing: the one place a grade turns into a new schedule (through the pure
`scheduler`), for the review page, the API and other apps alike, and where a review synced from a
device is merged into its card's history (apps.study.sync). `services` is its public face: callers
import these names from there.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q, Subquery
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.decks.selectors import visible_decks
from apps.study import scheduler, selectors, sync
from apps.study.memory import Memory, MemoryModel
from apps.study.models import (
    MEMORY_FIELDS,
    SCHEDULE_FIELDS,
    CardState,
    MemoryFit,
    NewCardCursor,
    ReviewLog,
)
from apps.study.scheduler import CardSchedule, leech_reached
from config.errors import ServiceError

UNDO_DEPTH = 30


class StudyError(ServiceError):
    """A refused study action; `status` is the HTTP status, the message is fit to show."""

    status = 400


class CardNotDue(StudyError):
    status = 409


class CardSuspended(StudyError):
    status = 409


class NothingToUndo(StudyError):
    status = 409


class ClientIdReused(StudyError):
    status = 409


class CardGone(StudyError):
    status = 404


def grade_check(grade: object) -> int:
    """The grade as an int 0..5, or a StudyError with the scheduler's sentence (the pure
    scheduler's GradeError stops here, so pages and the API see one kind of refusal)."""
    try:
        return scheduler.check_grade(grade)
    except scheduler.GradeError as exc:
        raise StudyError(str(exc), field="grade") from None


def log_made_leech(log: ReviewLog, threshold: int) -> bool:
    """True when this review is the lapse that made its card a leech (the one the learner is
    told about)."""
    before = (log.state_before or {}).get("lapses", 0)
    return leech_reached(before, log.state_after["lapses"], threshold)


def _replay(user, client_id: uuid.UUID | None, card: Card | int, grade: int) -> ReviewLog | None:
    if client_id is None:
        return None
    card_id = card if isinstance(card, int) else card.pk
    log = ReviewLog.objects.filter(user=user, client_id=client_id).select_related("card").first()
    if log is not None and (log.card_id != card_id or log.grade != grade):
        raise ClientIdReused(
            f"client_id {client_id} was already used to grade card {log.card_id} "
            f"with {log.grade}; send a new client_id for a new review"
        )
    return log


def review_record(
    *,
    user,
    card: Card | int,
    grade: int,
    client_id: uuid.UUID | None = None,
    duration_ms: int | None = None,
    now: datetime | None = None,
    moment: sync.Moment | None = None,
    for_interview: bool = False,
) -> tuple[ReviewLog, bool]:
    """Grade `card` for `user` and return (log, created). The same client_id again returns the
    first log with created=False and changes nothing, so a double click or a retry counts once.

    `card` is a Card the caller may see, or the id a client sent (looked up among the cards the
    learner may see, with the state's lock: one query for a card already studied). `moment`: a
    review made on a device and sent later (apps.study.sync), graded at its own moment; one the
    device made without knowing of a later review of the card is merged (`sync.review_merge`)
    and the log says `conflict`. `for_interview`: such a merged review is a plan-mode one when
    SM-2 had not made the card due then (grading.plan_review_record's rule).

    Each attempt is one atomic transaction that locks the learner and the state row (SELECT ...
    FOR NO KEY UPDATE on PostgreSQL; SQLite serialises writers), so two concurrent grades of one
    card apply one after the other and the second sees the first. (No outer transaction: a retry
    after a unique violation needs a fresh one, and a savepoint per review would cost two round
    trips.)
    """
    grade = grade_check(grade)
    if isinstance(client_id, str):
        client_id = uuid.UUID(client_id)
    card_id = card if isinstance(card, int) else card.pk
    # The happy path never looks for a replay: the (user, client_id) unique constraint catches a
    # second use, and the log is looked up only when something failed.
    for attempt in range(3):
        try:
            with transaction.atomic():
                return _review_apply(
                    user, card, grade, client_id, duration_ms, now, moment, for_interview
                )
        except IntegrityError:
            # This client_id was used, or a concurrent request created the state row: replay
            # the first review, or try again (READ COMMITTED sees the other commit).
            replayed = _replay(user, client_id, card_id, grade)
            if replayed is not None:
                return replayed, False
            if not Card.all_objects.filter(pk=card_id).exists():  # its deck was deleted
                raise CardGone(
                    f"card {card_id} was deleted while it was graded; nothing was recorded"
                ) from None
            if attempt == 2:
                raise
        except StudyError:
            # A retry that waited for the first request's lock finds the card no longer due (or
            # a synced review resent after a later one: its moment is before the last review).
            replayed = _replay(user, client_id, card_id, grade)
            if replayed is not None:
                return replayed, False
            raise
    raise AssertionError("unreachable")


def memory_model(user) -> MemoryModel:
    """FSRS with the learner's own fitted parameters, or the defaults before a fit. One query."""
    fit = MemoryFit.objects.filter(user=user).values_list("parameters", flat=True).first()
    return MemoryModel(fit or None)


def memory_review(
    row: CardState, log: ReviewLog, grade: int, now: datetime, zone, model: MemoryModel | None
) -> None:
    """The FSRS memory a review leaves, onto the (unsaved) state row, and the memory before it
    onto its (unsaved) log for undo: the one place a grade changes a card's memory, for SM-2's
    reviews and the interview's alike. `model`: the learner's, as `learner_lock` read it (None:
    read here, one query)."""
    before = row.memory
    log.memory_before = before.as_json() if before else {}
    model = model or memory_model(log.user)
    row.memory_apply(model.reviewed(before, grade, scheduler.local_date(now, zone)))


def _state_update_and_log(row: CardState, log: ReviewLog) -> None:
    """Save the locked row's new schedule and memory in place (the row is locked: nothing else
    changed it meanwhile, so no re-read) and insert the review's log."""
    fields = [*SCHEDULE_FIELDS, *MEMORY_FIELDS, "introduced_at", "leech"]
    CardState.objects.filter(pk=row.pk).update(**{name: getattr(row, name) for name in fields})
    log.save(force_insert=True)


def learner_lock(user) -> MemoryModel:
    """Serialise this learner's grades and undos until the transaction ends: an undo must see
    every grade committed before it, and a grade the state an undo restored, or the undo restores
    a state older than an acknowledged review (or deletes the state that review left). One row
    lock on the learner (FOR NO KEY UPDATE on PostgreSQL, so rows that merely reference the user
    are still inserted freely; SQLite serialises writers anyway).

    Returns the learner's memory model (`memory_model`), read by the same statement: every grade
    needs both, and one round trip fewer is a tenth of a grade's time (issue 30)."""
    fit = MemoryFit.objects.filter(user=OuterRef("pk")).values("parameters")[:1]
    users = get_user_model().objects.select_for_update(no_key=True, of=("self",))
    rows = users.filter(pk=user.pk).annotate(fit=Subquery(fit)).values_list("pk", "fit")
    found = [params for _, params in rows]
    return MemoryModel(found[0] if found and found[0] else None)


def deck_learners_lock(deck) -> None:
    """learner_lock for every learner with a state or a review in `deck`, in id order (as two
    such calls lock): what deleting the deck does first, so a grade or an undo in flight ends
    before, and one that comes later finds its card gone."""
    rows = Q(pk__in=CardState.objects.filter(deck=deck).values("user")) | Q(
        pk__in=ReviewLog.objects.filter(card__deck=deck).values("user")
    )
    users = get_user_model().objects.filter(rows).order_by("pk").select_for_update(no_key=True)
    list(users.values_list("pk"))


def _state_locked(user, card: Card | int) -> tuple[CardState | None, MemoryModel | None]:
    """The learner's lock, their memory model and the card's state row (locked), in one
    statement when the learner has studied the card (a Card given by the caller, or an id of a
    card they may see); (None, None) when there is no such row."""
    fit = MemoryFit.objects.filter(user=OuterRef("user_id")).values("parameters")[:1]
    # The learner first, then the state (the order of OF is the order rows are locked): as
    # learner_lock then a state lock do in undo and plan-mode grades, so the two never deadlock.
    rows = CardState.objects.select_for_update(no_key=True, of=("user", "self"))
    rows = rows.select_related("user", "card").annotate(fit=Subquery(fit))
    if isinstance(card, int):
        rows = rows.filter(card_id=card, card__retired_at=None, card__deck__in=visible_decks(user))
    else:
        rows = rows.filter(card=card)
    row = rows.filter(user=user).first()
    if row is None:
        return None, None
    row.user = user  # with its cached profile
    return row, MemoryModel(row.fit or None)


def _review_apply(
    user, card, grade, client_id, duration_ms, now, moment, for_interview
) -> tuple[ReviewLog, bool]:
    row, model = _state_locked(user, card)
    if row is not None:
        card = row.card
    else:
        if isinstance(card, int):
            found = selectors.visible_card(user, card)
            if found is None:
                raise StudyError(f"no card with id {card}", field="card")
            card = found
        # A card new to the learner: their lock alone. A state made meanwhile (a concurrent
        # grade, a requeue) makes the insert below fail on the unique constraint, and the retry
        # finds it.
        model = learner_lock(user)
    server_now = now or timezone.now()
    now = moment.at if moment is not None else server_now
    profile = profile_for(user)
    zone = profile.zone
    if moment is not None:
        refusal = moment.refusal(server_now, row.last_reviewed_at if row else None)
        if refusal:
            raise StudyError(refusal, field="reviewed_at")
    if row is None:
        before, kind = None, ReviewLog.Kind.NEW
        schedule = scheduler.new_state(now)
        row = CardState(user=user, card=card, deck_id=card.deck_id)
    else:
        if row.suspended:
            raise CardSuspended(f"card {card.slug} is suspended; unsuspend it to review it")
        if moment is not None and moment.missed(row.last_reviewed_at):
            return _review_merged(row, card, grade, client_id, duration_ms, moment, model,
                                  profile, for_interview)  # fmt: skip
        schedule = row.schedule
        before = schedule.as_json()
    if before is not None:
        seen_today = row.last_reviewed_at and row.last_reviewed_at >= scheduler.day_start(now, zone)
        if row.needs_redrill or seen_today:
            kind = ReviewLog.Kind.REDRILL  # again today: not counted against the review limit
        elif row.introduced_at is None:
            kind = ReviewLog.Kind.NEW
        else:
            kind = ReviewLog.Kind.REVIEW
    if not scheduler.is_due(schedule, now, zone):
        assert schedule.due_at is not None  # a schedule without a due time is due
        due_day = scheduler.local_date(schedule.due_at, zone)
        raise CardNotDue(
            f"card {card.slug} is not due until {due_day:%Y-%m-%d}; "
            "cram mode practises it without changing its schedule"
        )
    after = scheduler.review(schedule, grade, now)
    row.apply(after)
    if leech_reached(schedule.lapses, after.lapses, profile.leech_threshold):
        row.leech = True
    if row.introduced_at is None:
        row.introduced_at = now
    created = row.pk is None
    log = ReviewLog(
        user=user,
        card=card,
        grade=grade,
        kind=kind,
        reviewed_at=now,
        duration_ms=duration_ms,
        state_before=before,
        state_after=after.as_json(),
        client_id=client_id,
    )
    memory_review(row, log, grade, now, zone, model)
    if created:
        row.save()
        _cursor_advance(user, card)
        log.save(force_insert=True)
    else:
        _state_update_and_log(row, log)
    return log, True


def _review_merged(
    row, card, grade, client_id, duration_ms, moment, model, profile, for_interview
) -> tuple[ReviewLog, bool]:
    """A synced review the device made without knowing of a later one: kept at its moment and
    the card's reviews replayed in time order (sync.review_merge); the rows it rewrote saved."""
    log = ReviewLog(
        user=row.user, card=card, grade=grade, reviewed_at=moment.at, duration_ms=duration_ms,
        client_id=client_id, state_after={},
    )  # fmt: skip
    later = sync.review_merge(
        row=row, log=log, model=model, zone=profile.zone, threshold=profile.leech_threshold,
        plan=for_interview,
    )  # fmt: skip
    _state_update_and_log(row, log)
    if later:
        ReviewLog.objects.bulk_update(later, sync.REPLAYED_FIELDS)
    return log, True


def _cursor_advance(user, card: Card) -> None:
    """Move the learner's new-card cursor past `card` when no unseen card of the deck lies
    between the cursor and it (the usual case: new cards are taken in order)."""
    NewCardCursor.objects.bulk_create(
        [NewCardCursor(user=user, deck_id=card.deck_id)], ignore_conflicts=True
    )
    unseen = CardState.objects.filter(user=user, card=OuterRef("pk"))
    gap = Card.objects.filter(
        deck_id=card.deck_id, id__gt=OuterRef("after_card_id"), id__lt=card.pk
    ).filter(~Exists(unseen))
    NewCardCursor.objects.filter(user=user, deck_id=card.deck_id, after_card_id__lt=card.pk).filter(
        ~Exists(gap)
    ).update(after_card_id=card.pk)


@transaction.atomic
def review_undo(*, user, now: datetime | None = None) -> ReviewLog:
    """Undo the user's most recently recorded review that is not undone yet, among their last
    30 (synced or not), restoring the card's schedule from before it; when the card has reviews
    after it in time (a review synced late), its state is the replay of the ones left
    (sync.card_replay). Returns the undone log, with `restored`: the card's state now (None: the
    card is new again)."""
    now = now or timezone.now()
    model = learner_lock(user)  # a grade in flight commits first, so its log is the one undone
    # Each log is claimed before its state is restored, so two undo presses at once undo two
    # reviews, never one review twice: the one that loses the claim takes the next log.
    for _ in range(UNDO_DEPTH):
        recent = ReviewLog.objects.filter(user=user).order_by("-id")[:UNDO_DEPTH]
        log = next((log for log in recent if log.undone_at is None), None)
        if log is None:
            raise NothingToUndo(f"nothing to undo: undo reaches back {UNDO_DEPTH} reviews")
        if ReviewLog.objects.filter(pk=log.pk, undone_at=None).update(undone_at=now):
            break
    else:
        raise NothingToUndo("other undos are running; try again")
    log.undone_at = now
    log.restored = log.state_before
    row = CardState.objects.select_for_update().filter(user=user, card_id=log.card_id).first()
    if row is None:
        return log
    profile = profile_for(user)
    later = sync.standing_after(user.pk, log.card_id, log.reviewed_at, log.pk)
    if later:
        start = CardSchedule.from_json(log.state_before) if log.state_before else None
        sync.card_replay(
            row=row, logs=later, start=start, memory=_memory_before(user, log, model), model=model,
            zone=profile.zone, threshold=profile.leech_threshold,
        )  # fmt: skip
        row.save()
        ReviewLog.objects.bulk_update(later, sync.REPLAYED_FIELDS)
        log.restored = row.schedule.as_json()
        return log
    row.memory_apply(_memory_before(user, log, model))
    if log.state_before is None:
        row.delete()  # the review made the card known; undone, it is new again
        NewCardCursor.objects.filter(
            user=user, deck_id=row.deck_id, after_card_id__gte=log.card_id
        ).update(after_card_id=log.card_id - 1)
        return log
    row.apply(CardSchedule.from_json(log.state_before))
    if row.leech and log_made_leech(log, profile.leech_threshold):
        row.leech = False  # the undone review is the lapse that made it a leech
    if log.kind == ReviewLog.Kind.NEW:
        row.introduced_at = None
    row.save()
    return log


def _memory_before(user, log: ReviewLog, model: MemoryModel) -> Memory | None:
    """The card's memory before an undone review (sync.memory_before)."""
    return sync.memory_before(log, model, profile_for(user).zone)
