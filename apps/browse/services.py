"""Writes of the card browser's bulk actions on a learner's own schedule: suspend, unsuspend,
reschedule ("due in N days") and forget (new again), for many cards at once; and what a card
moved to another of the learner's decks asks of their states.

Each is one transaction with a fixed number of queries however many cards are chosen (pinned by
tests), taken under the learner's lock (apps.study.services.learner_lock), as a grade and an undo
are, so a bulk action and a grade in another tab apply one after the other. Only cards the
learner may see are touched (selectors.visible_decks); review history is never changed: a
forgotten card keeps its past reviews, and is scheduled as new from its next one.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Min
from django.utils import timezone

from apps.decks.models import Card
from apps.decks.selectors import visible_decks
from apps.study import scheduler
from apps.study.models import CardState, NewCardCursor
from apps.study.services import StudyError, learner_lock

BULK_MAX = 1000  # cards one bulk action may name
RESCHEDULE_MAX_DAYS = scheduler.MAX_INTERVAL_DAYS
ACTIONS = ("suspend", "unsuspend", "reschedule", "forget")


def _visible(user, card_ids) -> list[tuple[int, int]]:
    """(card id, deck id) of the chosen cards the user may see."""
    ids = [int(pk) for pk in list(card_ids)[:BULK_MAX]]
    cards = Card.objects.filter(pk__in=ids, deck__in=visible_decks(user))
    return list(cards.values_list("pk", "deck_id"))


def _fresh_states(user, cards: list[tuple[int, int]], now: datetime, **fields) -> int:
    """New states (never studied: due now) for the chosen cards that have none, with `fields`."""
    known = set(
        CardState.objects.filter(user=user, card_id__in=[pk for pk, _ in cards]).values_list(
            "card_id", flat=True
        )
    )
    rows = []
    for pk, deck_id in cards:
        if pk not in known:
            row = CardState(user=user, card_id=pk, deck_id=deck_id)
            row.apply(scheduler.new_state(now))
            for name, value in fields.items():
                setattr(row, name, value)
            rows.append(row)
    CardState.objects.bulk_create(rows, batch_size=500, ignore_conflicts=True)
    return len(rows)


@transaction.atomic
def cards_suspend(*, user, card_ids, suspended: bool = True) -> int:
    """Take the chosen cards out of (or back into) the learner's queue, schedules kept; a card
    never studied gets a state, suspended. Returns how many cards were chosen and visible."""
    learner_lock(user)
    cards = _visible(user, card_ids)
    ids = [pk for pk, _ in cards]
    CardState.objects.filter(user=user, card_id__in=ids).update(suspended=suspended)
    if suspended:
        _fresh_states(user, cards, timezone.now(), suspended=True)
    return len(cards)


@transaction.atomic
def cards_reschedule(*, user, card_ids, days: int, now: datetime | None = None) -> int:
    """Make the chosen cards due `days` days from now (0: today), as Anki's "set due date":
    repetitions, easiness, interval and lapses are kept, a pending re-drill is cleared; a card
    never studied gets a state due then (it still counts as new on its first review)."""
    if not 0 <= days <= RESCHEDULE_MAX_DAYS:
        raise StudyError(f"days must be 0 to {RESCHEDULE_MAX_DAYS}, got {days}", field="days")
    learner_lock(user)
    now = now or timezone.now()
    due = now + timedelta(days=days)
    cards = _visible(user, card_ids)
    ids = [pk for pk, _ in cards]
    CardState.objects.filter(user=user, card_id__in=ids).update(
        due_at=due, needs_redrill=False, redrill_anchor=None
    )
    _fresh_states(user, cards, now, due_at=due)
    return len(cards)


@transaction.atomic
def cards_forget(*, user, card_ids) -> int:
    """Make the chosen cards new again for the learner (their states go; their review history
    stays), as Anki's "forget": they come back among the new cards in their deck's order.
    Returns how many cards had a state."""
    learner_lock(user)
    cards = _visible(user, card_ids)
    states = CardState.objects.filter(user=user, card_id__in=[pk for pk, _ in cards])
    by_deck = states.values("deck_id").annotate(low=Min("card_id"))
    lowest = dict(by_deck.values_list("deck_id", "low"))
    gone, _ = states.delete()
    _cursors_back(user, lowest)
    return gone


def _cursors_back(user, lowest: dict[int, int]) -> None:
    """The new-card cursor of each deck behind its lowest card made new again (a cursor only
    ever under-estimates: every card up to it has a state). One UPDATE per deck touched."""
    for deck_id, low in lowest.items():
        NewCardCursor.objects.filter(user=user, deck_id=deck_id, after_card_id__gte=low).update(
            after_card_id=low - 1
        )


@transaction.atomic
def states_follow_move(*, user, card_ids: list[int], deck) -> None:
    """Cards of the learner's own moved to another of their decks: their states follow (a state
    keeps its card's deck for the queue's index), and the target deck's new-card cursor goes
    behind the lowest of them, so an unseen one is still found as new."""
    CardState.objects.filter(user=user, card_id__in=card_ids).update(deck=deck)
    if card_ids:
        _cursors_back(user, {deck.pk: min(card_ids)})
