"""Writes of the study loop: recording and undoing reviews (apps.study.reviews, whose names
are imported from here), suspending and requeueing cards, new cards for today, sections read.

The one place a grade turns into a new schedule (through the pure `scheduler`), so the pages, the
API and other apps all schedule the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.study import scheduler
from apps.study.memory import MemoryModel
from apps.study.models import MEMORY_FIELDS, CardState, MemoryFit, ReviewLog, SectionProgress
from apps.study.reviews import (  # the review loop's public names, re-exported
    UNDO_DEPTH,
    CardGone,
    CardNotDue,
    CardSuspended,
    ClientIdReused,
    NothingToUndo,
    StudyError,
    _replay,
    deck_learners_lock,
    grade_check,
    learner_lock,
    leech_reached,
    log_made_leech,
    memory_model,
    memory_review,
    review_record,
    review_undo,
)

__all__ = [
    "UNDO_DEPTH", "CardGone", "CardNotDue", "CardSuspended", "ClientIdReused", "NothingToUndo",
    "StudyError", "_replay", "deck_learners_lock", "grade_check", "learner_lock",
    "leech_reached", "log_made_leech", "memory_model", "memory_review", "review_record",
    "review_undo", "card_memories_fill", "card_suspend", "card_learners_requeue",
    "cards_requeue", "new_cards_add", "MORE_NEW_CARDS_MAX", "section_read",
    "checkpoint_answer_record",
]  # fmt: skip


def card_memories_fill(*, user_id: int, models: dict | None = None, zone=None) -> int:
    """Work out the stored FSRS memory of every card of one learner from their review log (not
    undone reviews, in time order) with their parameters: the backfill for learners who reviewed
    before memories were stored (migration 0008 and `manage.py study_memory_fill`) and the
    worker's refresh after it fitted new parameters. Locks the learner's states first, so a
    grade at the same time waits and is never overwritten. Returns how many states changed.
    `models` lets the migration pass its historical models; `zone` its learner's zone."""
    m = models or {
        "CardState": CardState, "ReviewLog": ReviewLog, "MemoryFit": MemoryFit,
    }  # fmt: skip
    if zone is None:
        from django.contrib.auth import get_user_model

        zone = profile_for(get_user_model().objects.get(pk=user_id)).zone
    fit = m["MemoryFit"].objects.filter(user_id=user_id).values_list("parameters", flat=True)
    model = MemoryModel(fit.first() or None)
    with transaction.atomic():
        states = {
            s.card_id: s for s in m["CardState"].objects.select_for_update().filter(user_id=user_id)
        }
        logs = m["ReviewLog"].objects.filter(user_id=user_id, undone_at=None)
        by_card: dict[int, list] = {}
        for card_id, grade, at in logs.order_by("reviewed_at", "id").values_list(
            "card_id", "grade", "reviewed_at"
        ):
            by_card.setdefault(card_id, []).append((grade, scheduler.local_date(at, zone)))
        changed = []
        for card_id, row in states.items():
            memory = model.replayed(by_card.get(card_id, ()))
            fields = (row.stability, row.difficulty, row.memory_day)
            row.stability = memory.stability if memory else None
            row.difficulty = memory.difficulty if memory else None
            row.memory_day = memory.day if memory else None
            if (row.stability, row.difficulty, row.memory_day) != fields:
                changed.append(row)
        m["CardState"].objects.bulk_update(changed, MEMORY_FIELDS, batch_size=1000)
    return len(changed)


@transaction.atomic
def card_suspend(*, user, card: Card, suspended: bool = True) -> CardState:
    """Take a card out of (or back into) the user's queue; its schedule is kept."""
    row = CardState.objects.select_for_update().filter(user=user, card=card).first()
    if row is None:
        row = CardState(user=user, card=card, deck_id=card.deck_id)
        row.apply(scheduler.new_state(timezone.now()))
    row.suspended = suspended
    row.save()
    return row


@transaction.atomic
def card_learners_requeue(*, card: Card) -> int:
    """Make `card` due now for every learner who has studied it (an author changed its answer);
    their schedules are otherwise unchanged. One UPDATE whatever the number of learners.
    Returns how many learners have the card."""
    now = timezone.now()
    states = CardState.objects.filter(card=card)
    states.filter(due_at__gt=now).update(due_at=now)
    return states.count()


def cards_requeue(*, user, cards: Iterable[Card]) -> int:
    """Make `cards` due now for `user` (e.g. "review these" after a quiz); everything else in
    their schedules is unchanged. Cards the user never studied get a new state, due now.
    Returns how many cards were requeued."""
    cards = list(cards)
    now = timezone.now()
    known = set(
        CardState.objects.filter(user=user, card__in=cards).values_list("card_id", flat=True)
    )
    CardState.objects.filter(user=user, card__in=cards, due_at__gt=now).update(due_at=now)
    fresh = []
    for card in cards:
        if card.pk not in known:
            row = CardState(user=user, card=card, deck_id=card.deck_id)
            row.apply(scheduler.new_state(now))
            fresh.append(row)
            known.add(card.pk)
    CardState.objects.bulk_create(fresh, ignore_conflicts=True)
    return len(cards)


MORE_NEW_CARDS_MAX = 100


def new_cards_add(*, user, count: int, now: datetime | None = None) -> int:
    """ "Learn N more new cards today": allow `count` more new cards on the learner's local
    today only (tomorrow the daily setting applies again). Returns today's extra in all."""
    if not 1 <= count <= MORE_NEW_CARDS_MAX:
        raise StudyError(f"count must be 1 to {MORE_NEW_CARDS_MAX}, got {count}")
    now = now or timezone.now()
    with transaction.atomic():
        profile = profile_for(user)
        profile = type(profile).objects.select_for_update().get(pk=profile.pk)
        today = scheduler.local_date(now, profile.zone)
        already = profile.extra_new_cards if profile.extra_new_cards_on == today else 0
        profile.extra_new_cards = min(already + count, 500)
        profile.extra_new_cards_on = today
        profile.save(update_fields=["extra_new_cards", "extra_new_cards_on"])
    user.profile = profile
    return profile.extra_new_cards


def section_read(*, user, section) -> None:
    """The learner opened the section's lesson: remember the first time (idempotent)."""
    progress, created = SectionProgress.objects.get_or_create(
        user=user, section=section, defaults={"read_at": timezone.now()}
    )
    if not created and progress.read_at is None:  # a checkpoint answered before the page was read
        SectionProgress.objects.filter(pk=progress.pk, read_at=None).update(read_at=timezone.now())


def checkpoint_answer_record(*, user, section, key: str, right: bool) -> None:
    """A checkpoint question answered on the section page: answered (the checkpoint is done once
    each question was), and right when it was. Racing tabs lose nothing: the row is locked while
    its keys change."""
    with transaction.atomic():
        progress, _ = SectionProgress.objects.select_for_update().get_or_create(
            user=user, section=section
        )
        fields = []
        if key not in progress.checkpoint_answered:
            progress.checkpoint_answered = [*progress.checkpoint_answered, key]
            fields.append("checkpoint_answered")
        if right and key not in progress.checkpoint_right:
            progress.checkpoint_right = [*progress.checkpoint_right, key]
            fields.append("checkpoint_right")
        if fields:
            progress.save(update_fields=fields)
