"""Reads of the study loop shared by the pages and the API: the queue, due counts and stats.

Every function here issues a fixed number of queries however many cards and reviews a learner has
(pinned by tests), and "today" is always the learner's local day (`profile.time_zone`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card, Deck
from apps.study import scheduler
from apps.study.models import CardState, ReviewLog
from apps.study.scheduler import CardSchedule


@dataclass
class QueueItem:
    card: Card
    state: CardState | None  # None: a new card
    kind: str  # "redrill", "due" or "new"

    @property
    def schedule(self) -> CardSchedule | None:
        return self.state.schedule if self.state is not None else None


@dataclass
class Queue:
    """What a learner should study now: re-drills, then due cards (most overdue first), then new
    cards, each list within the day's limits. `counts` are the full lengths even when only the
    first `size` items were loaded."""

    items: list[QueueItem]
    counts: dict[str, int]
    now: datetime
    zone: ZoneInfo
    limits: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def next(self) -> QueueItem | None:
        return self.items[0] if self.items else None


@dataclass
class Today:
    """The learner's local day and what they have already done in it."""

    now: datetime
    zone: ZoneInfo
    start: datetime
    end: datetime
    new_done: int
    reviews_done: int
    new_left: int
    reviews_left: int


def today(user, now: datetime | None = None) -> Today:
    """One query (plus the profile, once per user object)."""
    now = now or timezone.now()
    profile = profile_for(user)
    zone = profile.zone
    start, end = scheduler.day_start(now, zone), scheduler.day_end(now, zone)
    done = ReviewLog.objects.filter(user=user, reviewed_at__gte=start, undone_at=None).aggregate(
        new=Count("id", filter=Q(kind=ReviewLog.Kind.NEW)),
        reviews=Count("id", filter=Q(kind=ReviewLog.Kind.REVIEW)),
    )
    return Today(
        now=now,
        zone=zone,
        start=start,
        end=end,
        new_done=done["new"],
        reviews_done=done["reviews"],
        new_left=max(0, profile.new_cards_per_day - done["new"]),
        reviews_left=max(0, profile.reviews_per_day - done["reviews"]),
    )


def _states(user, deck: Deck | None) -> QuerySet[CardState]:
    states = CardState.objects.filter(user=user, suspended=False)
    return states.filter(deck=deck) if deck is not None else states


def _new_cards(user, deck: Deck | None) -> QuerySet[Card]:
    """Cards the learner has no state for, in deck order."""
    cards = Card.objects.filter(deck=deck) if deck is not None else Card.objects.all()
    seen = CardState.objects.filter(user=user, card=OuterRef("pk"))
    return (
        cards.filter(deck__is_published=True)
        .filter(~Exists(seen))
        .order_by("deck__title", "deck_id", "section__order", "order", "id")
    )


def queue(user, deck: Deck | None = None, *, size: int | None = None, now=None) -> Queue:
    """The learner's queue, across all published decks or in one deck.

    With `size`, only the first `size` items are loaded (the review page needs one) and the
    counts come from bounded COUNT queries; without it every item is loaded.
    """
    day = today(user, now)
    due = _states(user, deck).filter(due_at__lt=day.end).select_related("card", "card__section")
    # "Again today": cards flagged for a re-drill and cards failed earlier today. They come first
    # and are not held back by the daily review limit (a day's work is not done until they pass).
    again_today = Q(needs_redrill=True) | Q(last_reviewed_at__gte=day.start)
    redrills = due.filter(again_today).order_by("due_at", "id")
    reviews = due.exclude(again_today).order_by("due_at", "id")[: day.reviews_left]
    new = _new_cards(user, deck).select_related("section")[: day.new_left]
    limits = {"new": day.new_left, "due": day.reviews_left}
    if size is None:
        items = [QueueItem(s.card, s, "redrill") for s in redrills]
        items += [QueueItem(s.card, s, "due") for s in reviews]
        items += [QueueItem(c, None, "new") for c in new]
        counts = {
            kind: sum(1 for i in items if i.kind == kind) for kind in ("redrill", "due", "new")
        }
        return Queue(items, counts, day.now, day.zone, limits)
    counts = {"redrill": redrills.count(), "due": reviews.count(), "new": new.count()}
    items: list[QueueItem] = []
    for kind, source in (("redrill", redrills), ("due", reviews), ("new", new)):
        wanted = min(counts[kind], size - len(items))
        if wanted <= 0:
            continue
        for row in source[:wanted]:
            items.append(
                QueueItem(row, None, "new") if kind == "new" else QueueItem(row.card, row, kind)
            )
    return Queue(items, counts, day.now, day.zone, limits)


def due_counts(user, now: datetime | None = None) -> dict[int, dict[str, int]]:
    """{deck id: {"due": n, "new": n}} for the home page, each within today's limits."""
    day = today(user, now)
    per_deck = (
        CardState.objects.filter(user=user)
        .values("deck_id")
        .annotate(due=Count("id", filter=Q(suspended=False, due_at__lt=day.end)), seen=Count("id"))
    )
    known = {row["deck_id"]: row for row in per_deck}
    counts = {}
    for deck_id, total in Card.objects.values_list("deck_id").annotate(n=Count("id")):
        row = known.get(deck_id, {"due": 0, "seen": 0})
        counts[deck_id] = {
            "due": min(row["due"], day.reviews_left),
            "new": min(max(0, total - row["seen"]), day.new_left),
        }
    return counts


def card_state(user, card: Card) -> CardState | None:
    return CardState.objects.filter(user=user, card=card).first()
