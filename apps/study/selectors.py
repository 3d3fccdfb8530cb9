"""Reads of the study loop shared by the pages and the API: due counts, cards, sessions, stats.

Every function here issues a fixed number of queries however many cards and reviews a learner has
(pinned by tests), and "today" is always the learner's local day (`profile.time_zone`). The queue
itself is `apps.study.queue`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.db.models import (
    Count,
    Exists,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card, Deck
from apps.decks.selectors import studied_decks, visible_decks
from apps.study import queue_sql, scheduler
from apps.study.models import CardState, NewCardCursor, ReviewLog, SectionProgress
from apps.study.queue_sql import CountOf


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
        new_left=max(0, profile.new_cards_limit(scheduler.local_date(now, zone)) - done["new"]),
        reviews_left=max(0, profile.reviews_per_day - done["reviews"]),
    )


def due_counts(
    user, now: datetime | None = None, *, card_counts: dict[int, int] | None = None
) -> dict[int, dict[str, int]]:
    """{deck id: {"due": n, "new": n}} for the home page, each within today's limits, as the
    queue counts them: new cards of a published deck, without the siblings the queue buries
    (`queue_sql.unburied`). `card_counts` ({deck id: cards}) names the decks when the caller has
    them; else every deck with cards. Two queries (plus the profile, once per user object)."""
    day = today(user, now)
    states = CardState.objects.filter(
        user=user, card__retired_at=None, deck_id=OuterRef("pk"), suspended=False,
        due_at__lt=day.end,
    )  # fmt: skip
    # The deck's cursor once more, as a bound of the outer deck: new_cards() across decks reads
    # each card's own deck's cursor, which the database cannot start an index range from, so it
    # walked every card the learner had seen (100,000 for a whole big deck).
    cursor = NewCardCursor.objects.filter(user=user, deck=OuterRef(OuterRef("pk")))
    after = Coalesce(Subquery(cursor.values("after_card_id")[:1]), Value(0))
    new = queue_sql.unburied(
        user,
        queue_sql.new_cards(user, None).filter(deck_id=OuterRef("pk"), id__gt=after),
        queue_sql.day_logs(user, day.start),
    )
    # Each count stops at the day's limit, so the database reads no more than the queue would.
    decks = Deck.objects.annotate(
        # In the queue index's order: the count is the same, and the database reads the
        # learner's due states from the index instead of the table (a learner with 100,000
        # states: 15 ms, not 100 ms).
        due=CountOf(states.order_by("due_at").values("pk")[: day.reviews_left])
        if day.reviews_left
        else Value(0),
        new=CountOf(new.values("pk")[: day.new_left]) if day.new_left else Value(0),
    )
    if card_counts is None:
        decks = decks.filter(Exists(Card.objects.filter(deck=OuterRef("pk"))))
    else:
        decks = decks.filter(pk__in=list(card_counts))
    return {pk: {"due": due, "new": n} for pk, due, n in decks.values_list("pk", "due", "new")}


def suspended_cards(user, limit: int = 200) -> list[CardState]:
    return list(
        CardState.objects.filter(user=user, suspended=True)
        .select_related("card", "card__deck")
        .order_by("card__deck__title", "card_id")[:limit]
    )


def suspended_ids(user, card_ids) -> set[int]:
    """Which of `card_ids` the learner suspended (a quiz's "review these" leaves them out, as
    the review of its set does). One query."""
    return set(
        CardState.objects.filter(user=user, suspended=True, card_id__in=list(card_ids)).values_list(
            "card_id", flat=True
        )
    )


def visible_card(user, card_id: int | str | None) -> Card | None:
    """The card with its deck, if the user may see it (visible_decks); None for an id that is
    not a whole number in range. The one lookup of a card the learner names (a grade, a
    suspension, the API's card state)."""
    if isinstance(card_id, str):
        card_id = int(card_id) if card_id.isascii() and card_id.isdigit() else None
    if not isinstance(card_id, int) or not 0 < card_id < 2**63:
        return None
    cards = Card.objects.select_related("deck").filter(deck__in=visible_decks(user))
    return cards.filter(pk=card_id).first()


def visible_deck(user, slug: str) -> Deck | None:
    """The deck with this slug, if the user may see it (visible_decks)."""
    return visible_decks(user).filter(slug=slug).first()


MORE_NEW_CARDS = 10


@dataclass
class NextSteps:
    """What a learner can do when the queue is empty: learn more new cards today (`unseen` cards
    were never studied, `more` of them the queue would serve now; the rest are siblings of notes
    studied today, buried until tomorrow) or cram; the knowledge check to take comes from
    quizzes' template tag `next_knowledge_check`, as study sits below quizzes."""

    unseen: int
    more: int  # what the "learn N more new cards today" button offers

    @property
    def buried_only(self) -> bool:
        """Unseen cards are left, but every one waits until tomorrow as a sibling."""
        return self.unseen > 0 and self.more == 0


def next_steps(user, deck: Deck | None, now: datetime | None = None) -> NextSteps:
    """One query."""
    cards = Card.objects.filter(Q(deck=deck) if deck else studied_decks(user.pk))
    unseen = cards.exclude(states__user=user)
    start = scheduler.day_start(now or timezone.now(), profile_for(user).zone)
    open_ = queue_sql.unburied(user, unseen, queue_sql.day_logs(user, start))
    row = unseen.order_by().aggregate(
        unseen=Count("id"),
        more=Count("id", filter=Q(pk__in=open_.order_by("id").values("pk")[:MORE_NEW_CARDS])),
    )
    return NextSteps(row["unseen"], row["more"])


def card_state(user, card: Card) -> CardState | None:
    return CardState.objects.filter(user=user, card=card).first()


@dataclass
class SessionSummary:
    reviews: int
    again: int  # grades 0-2
    hard: int  # grade 3
    good: int  # grade 4
    easy: int  # grade 5
    seconds: int

    @property
    def passed_share(self) -> int:
        return round(100 * (self.reviews - self.again) / self.reviews) if self.reviews else 0


def session_summary(user, since: datetime) -> SessionSummary:
    """What the learner did since `since` (reviews not undone). One query."""
    row = ReviewLog.objects.filter(user=user, reviewed_at__gte=since, undone_at=None).aggregate(
        reviews=Count("id"),
        again=Count("id", filter=Q(grade__lt=3)),
        hard=Count("id", filter=Q(grade=3)),
        good=Count("id", filter=Q(grade=4)),
        easy=Count("id", filter=Q(grade=5)),
        ms=Sum("duration_ms"),
    )
    ms = row.pop("ms") or 0
    return SessionSummary(**row, seconds=ms // 1000)


# --- stats -----------------------------------------------------------------------------------


def cards_started(user, card_ids) -> set[int]:
    """Which of `card_ids` the learner has begun (has a schedule for). One query; for apps above
    study that pace their own items by the cards they build on (exercises)."""
    return set(
        CardState.objects.filter(user=user, card_id__in=list(card_ids)).values_list(
            "card_id", flat=True
        )
    )


def deck_study_rows(deck: Deck) -> dict[str, QuerySet]:
    """Every learner's study rows of `deck` (what deleting it deletes): their card states,
    review logs and read sections, by name."""
    return {
        "states": CardState.objects.filter(deck=deck),
        "reviews": ReviewLog.objects.filter(card__deck=deck),
        "sections": SectionProgress.objects.filter(section__deck=deck),
    }
