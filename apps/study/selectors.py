"""Reads of the study loop shared by the pages and the API: the queue, due counts and stats.

Every function here issues a fixed number of queries however many cards and reviews a learner has
(pinned by tests), and "today" is always the learner's local day (`profile.time_zone`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import (
    Count,
    Exists,
    F,
    FloatField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Cast, Coalesce, TruncDate
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import CARDS_IN_USE, Card, Deck, Section
from apps.decks.selectors import visible_decks
from apps.study import compiled, progress, scheduler
from apps.study.models import CardState, NewCardCursor, ReviewLog
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
        new_left=max(0, profile.new_cards_limit(scheduler.local_date(now, zone)) - done["new"]),
        reviews_left=max(0, profile.reviews_per_day - done["reviews"]),
    )


def _states(user, deck: Deck | None) -> QuerySet[CardState]:
    states = CardState.objects.filter(user=user, suspended=False, card__retired_at=None)
    if deck is not None:
        return states.filter(deck=deck)  # callers resolve the deck through visible_decks
    # Across all decks: a deck an author unpublished leaves the queue with its cards.
    return states.filter(deck__is_published=True)


def _new_cards(user, deck: Deck | None) -> QuerySet[Card]:
    """Cards the learner has no state for, in the order they were added to their deck (the
    loader adds a deck file's cards in order, so this is the lesson's order).

    The learner's NewCardCursor per deck skips the cards already known, so PostgreSQL walks the
    primary key from the cursor and stops after the first few unseen cards instead of comparing
    the whole deck with every state (100,000 cards: ~0.1 ms instead of ~100 ms)."""
    seen = CardState.objects.filter(user=user, card=OuterRef("pk"))
    cards = Card.objects.filter(deck__is_published=True)
    if deck is not None:
        cursor = NewCardCursor.objects.filter(user=user, deck=deck).values("after_card_id")[:1]
        cards = cards.filter(deck=deck, id__gt=Coalesce(Subquery(cursor), Value(0)))
    else:
        cursor = NewCardCursor.objects.filter(user=user, deck=OuterRef("deck_id"))
        cards = cards.filter(
            id__gt=Coalesce(Subquery(cursor.values("after_card_id")[:1]), Value(0))
        )
    return cards.filter(~Exists(seen)).order_by("id")


def _sized_sql(deck: bool, reviews_limit: int, new_limit: int, target: int):
    """The sized queue's one round trip, compiled from the same querysets as the whole queue:
    the day's new and review logs, the re-drills, the due reviews and the new cards (up to the
    day's limits), and the ids of the first `target` items of each list, in order.

    Compiling five querysets costs more Python than PostgreSQL spends running them, so the SQL
    is built once per shape (deck or all decks, limits, target) with sentinel values and cached
    with the slot each parameter comes from (apps.study.compiled)."""
    key = ("sized", deck, reviews_limit, new_limit, target)
    return compiled.sql(key, lambda: _sized_build(deck, reviews_limit, new_limit, target))


def _sized_build(deck: bool, reviews_limit: int, new_limit: int, target: int):
    sources = _sources(compiled.USER, compiled.DECK if deck else None, compiled.START, compiled.END)
    redrills, reviews, new, logs = sources
    parts = [
        (logs.filter(kind=ReviewLog.Kind.NEW), None),
        (logs.filter(kind=ReviewLog.Kind.REVIEW), None),
        (redrills, None),
        (reviews, reviews_limit),
        (new, new_limit),
    ]
    selects, params = [], []
    for i, (qs, limit) in enumerate(parts):
        qs = qs.values("pk") if limit is not None else qs.order_by().values("pk")
        try:
            if limit == 0:
                raise EmptyResultSet
            sql, part_params = (qs[:limit] if limit is not None else qs).query.sql_with_params()
        except EmptyResultSet:
            selects.append("0")
            continue
        selects.append(f"(SELECT COUNT(*) FROM ({sql}) AS part{i})")
        params.extend(part_params)
    for i, qs in enumerate((redrills, reviews, new)):
        for k in range(target):
            sql, part_params = qs.values("pk")[k : k + 1].query.sql_with_params()
            selects.append(f"(SELECT pk FROM ({sql}) AS first{i}_{k})")
            params.extend(part_params)
    return "SELECT " + ", ".join(selects), params


def _sources(user, deck, start: datetime, end: datetime):
    """The queue's lists as querysets: re-drills, due reviews, new cards; and today's logs."""
    due = _states(user, deck).filter(due_at__lt=end)
    # "Again today": cards flagged for a re-drill and cards failed earlier today. They come first
    # and are not held back by the daily review limit (a day's work is not done until they pass).
    # Both were made due today by today's review, so they lie in the index range [start, end);
    # a re-drill left over from an earlier day is simply due, most overdue first.
    again_today = Q(due_at__gte=start) & (Q(needs_redrill=True) | Q(last_reviewed_at__gte=start))
    redrills = due.filter(again_today).order_by("due_at", "id")
    reviews = due.exclude(again_today).order_by("due_at", "id")
    new = _new_cards(user, deck).select_related("section")
    logs = ReviewLog.objects.filter(user=user, reviewed_at__gte=start, undone_at=None)
    return redrills, reviews, new, logs


def queue(
    user, deck: Deck | None = None, *, size: int | None = None, avoid: int | None = None, now=None
) -> Queue:
    """The learner's queue, across all published decks or in one deck.

    Without `size` every item is loaded as model rows, in four queries: the reference the
    API's `queue_cards()` (the same lists as plain values, one statement) is tested against.
    With `size` only the first `size` items are (the review page needs one): the day's counts,
    the queue's counts and the ids of the first items come in one round trip, the next card
    in another (a third when the items come from both states and new cards). `avoid` (a card
    id, the one just graded) is moved behind the others unless nothing else is left, so a card
    failed a moment ago does not come straight back while other cards wait.
    """
    now = now or timezone.now()
    profile = profile_for(user)
    zone = profile.zone
    start, end = scheduler.day_start(now, zone), scheduler.day_end(now, zone)
    if size is None:
        redrills, reviews, new, _ = _sources(user, deck, start, end)
        redrills = redrills.select_related("card", "card__section")
        reviews = reviews.select_related("card", "card__section")
        day = today(user, now)
        new_left, reviews_left = day.new_left, day.reviews_left
        items = [QueueItem(s.card, s, "redrill") for s in redrills]
        items += [QueueItem(s.card, s, "due") for s in reviews[:reviews_left]]
        items += [QueueItem(c, None, "new") for c in new[:new_left]]
        counts = {
            kind: sum(1 for i in items if i.kind == kind) for kind in ("redrill", "due", "new")
        }
        limits = {"new": new_left, "due": reviews_left}
        return Queue(items, counts, now, zone, limits)
    target = size + (1 if avoid else 0)
    new_limit = profile.new_cards_limit(scheduler.local_date(now, zone))
    sized = _sized_sql(deck is not None, profile.reviews_per_day, new_limit, target)
    values = {"user": user.pk, "deck": deck.pk if deck is not None else None}
    with connection.cursor() as cursor:
        cursor.execute(sized.sql, sized.params(connection, values | {"start": start, "end": end}))
        row = [int(n) if n is not None else None for n in cursor.fetchone()]
    new_done, reviews_done, n_again, n_due, n_new = row[:5]
    first = {
        kind: row[5 + i * target : 5 + (i + 1) * target]
        for i, kind in enumerate(("redrill", "due", "new"))
    }
    new_left = max(0, new_limit - new_done)
    reviews_left = max(0, profile.reviews_per_day - reviews_done)
    counts = {"redrill": n_again, "due": min(n_due, reviews_left), "new": min(n_new, new_left)}
    picked: list[tuple[str, int]] = []
    for kind in ("redrill", "due", "new"):
        wanted = min(counts[kind], target - len(picked))
        picked += [(kind, pk) for pk in first[kind][: max(0, wanted)] if pk is not None]
    state_ids = [pk for kind, pk in picked if kind != "new"]
    card_ids = [pk for kind, pk in picked if kind == "new"]
    states = {row.pk: row for row in _by_ids(CardState, ("card", "card__section"), state_ids)}
    cards = {row.pk: row for row in _by_ids(Card, ("section",), card_ids)}
    items: list[QueueItem] = []
    for kind, pk in picked:  # a row gone since the count (an undo) is simply left out
        if kind == "new" and pk in cards:
            items.append(QueueItem(cards[pk], None, "new"))
        elif kind != "new" and pk in states:
            items.append(QueueItem(states[pk].card, states[pk], kind))
    if avoid and len(items) > 1:
        items = [item for item in items if item.card.pk != avoid] + [
            item for item in items if item.card.pk == avoid
        ]
    limits = {"new": new_left, "due": reviews_left}
    return Queue(items[:size], counts, now, zone, limits)


# --- the API's whole queue: one compiled round trip, plain rows ---------------------------------

# The sized slices' LIMIT, written into the SQL text by the ORM and replaced by the day's limit.
_LIMIT_SENTINEL = 987_654_307
_CARD_COLUMNS = ("q_card", "q_slug", "q_front", "q_back")
_STATE_FIELDS = ("repetitions", "ease_factor", "interval_days", "due_at", "needs_redrill", "lapses")


class QueueCard(NamedTuple):
    """One card of the API's queue, as plain values (no model rows): what the response shows."""

    kind: str  # "redrill", "due" or "new"
    id: int
    slug: str
    front_html: str
    back_html: str
    state: tuple | None  # _STATE_FIELDS' values; None for a new card


@dataclass
class QueueCards:
    cards: list[QueueCard]
    counts: dict[str, int]
    limits: dict[str, int]


def queue_cards(
    user, deck: Deck | None = None, *, limit: int | None = None, now=None
) -> QueueCards:
    """The whole queue as `queue()` orders and counts it (re-drills, due cards up to the day's
    review limit, new cards up to the day's new limit), as plain values for the API, in one
    round trip: the day's counts, the three lists and their limits are one statement compiled
    once per shape (deck or all decks) and reused with the learner's values. `limit` caps the
    cards returned; the counts stay whole.

    Building the queue as model rows with their cards and sections, from four querysets
    compiled on every call, cost several times the database's own time (issue 8's load bench)."""
    now = now or timezone.now()
    profile = profile_for(user)
    zone = profile.zone
    start, end = scheduler.day_start(now, zone), scheduler.day_end(now, zone)
    new_limit = profile.new_cards_limit(scheduler.local_date(now, zone))
    entry = compiled.sql(("cards", deck is not None), lambda: _cards_build(deck is not None))
    values = {
        "user": user.pk,
        "deck": deck.pk if deck is not None else None,
        "reviews_per_day": profile.reviews_per_day,
        "new_per_day": new_limit,
        "start": start,
        "end": end,
    }
    with connection.cursor() as cursor:
        cursor.execute(entry.sql, entry.params(connection, values))
        rows = cursor.fetchall()
    if entry.converters is None:
        entry.converters = _state_converters(connection)
    new_done, reviews_done = int(rows[0][0]), int(rows[0][1])
    kinds = ("redrill", "due", "new")
    counts = dict.fromkeys(kinds, 0)
    cards: list[QueueCard] = []
    for row in rows:
        if row[2] is None:  # the day's counts alone: nothing to study
            continue
        kind = kinds[row[2]]
        counts[kind] += 1
        if limit is not None and len(cards) >= limit:
            continue
        state = None
        if kind != "new":
            state = tuple(
                _convert(value, converters)
                for value, converters in zip(row[7:13], entry.converters, strict=True)
            )
        cards.append(QueueCard(kind, row[3], row[4], row[5], row[6], state))
    limits = {
        "new": max(0, new_limit - new_done),
        "due": max(0, profile.reviews_per_day - reviews_done),
    }
    return QueueCards(cards, counts, limits)


def _convert(value, converters):
    for converter, expression in converters:
        value = converter(value, expression, connection)
    return value


def _state_converters(connection) -> list[list]:
    """The database's value converters for the state columns (SQLite hands back text for
    times, integers for booleans, floats for decimals), as QuerySet iteration applies them."""
    out = []
    for name in _STATE_FIELDS:
        col = CardState._meta.get_field(name).get_col(CardState._meta.db_table)
        found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        out.append([(converter, col) for converter in found])
    return out


def _cards_build(deck: bool):
    """The statement: the day's new and review counts (one row even when nothing is left),
    joined with the three lists in order; the due and new lists are cut at what is left of the
    day's limits, in the statement itself."""
    sources = _sources(compiled.USER, compiled.DECK if deck else None, compiled.START, compiled.END)
    redrills, reviews, new, logs = sources
    params: list = []

    def sql_of(qs) -> str:
        sql, part_params = qs.query.sql_with_params()
        params.extend(part_params)
        return sql

    new_done = sql_of(logs.filter(kind=ReviewLog.Kind.NEW).order_by().values("pk"))
    reviews_done = sql_of(logs.filter(kind=ReviewLog.Kind.REVIEW).order_by().values("pk"))
    day = (
        f"WITH day AS (SELECT (SELECT COUNT(*) FROM ({new_done}) AS day_new) AS new_done,"
        f" (SELECT COUNT(*) FROM ({reviews_done}) AS day_reviews) AS reviews_done)"
    )
    state_columns = {
        "q_card": F("card_id"),
        "q_slug": F("card__slug"),
        "q_front": F("card__front_html"),
        "q_back": F("card__back_html"),
        **{f"q_{name}": F(name) for name in _STATE_FIELDS},
        "q_pos": F("id"),
    }
    card_columns = {
        "q_card": F("id"),
        "q_slug": F("slug"),
        "q_front": F("front_html"),
        "q_back": F("back_html"),
    }
    out = ", ".join(state_columns)
    new_out = ", ".join(card_columns) + ", " + ", ".join(["NULL"] * len(_STATE_FIELDS)) + ", q_card"
    left = {
        done: f"(SELECT CASE WHEN %s > {done} THEN %s - {done} ELSE 0 END FROM day)"
        for done in ("reviews_done", "new_done")
    }
    parts = []
    for k, qs, cut, per_day in (
        (0, redrills, None, None),
        (1, reviews, "reviews_done", compiled.REVIEWS_PER_DAY),
        (2, new, "new_done", compiled.NEW_PER_DAY),
    ):
        columns = card_columns if k == 2 else state_columns
        qs = qs.select_related(None).annotate(**columns).values(*columns)
        if cut is None:
            parts.append(f"SELECT {k} AS q_k, {out} FROM ({sql_of(qs)}) AS part{k}")
            continue
        sql = sql_of(qs[:_LIMIT_SENTINEL])
        literal = f"LIMIT {_LIMIT_SENTINEL}"
        if sql.count(literal) != 1 or not sql.endswith(literal):
            raise ValueError(f"the {cut} list's LIMIT is not where it was expected: {sql[-200:]}")
        sql = sql[: -len(literal)] + "LIMIT " + left[cut]
        params.extend([per_day, per_day])
        parts.append(f"SELECT {k} AS q_k, {new_out if k == 2 else out} FROM ({sql}) AS part{k}")
    union = " UNION ALL ".join(parts)
    text = (
        f"{day} SELECT day.new_done, day.reviews_done, q.q_k, {out.replace('q_', 'q.q_')}"
        f" FROM day LEFT JOIN ({union}) AS q ON 1 = 1"
        " ORDER BY q.q_k, q.q_due_at, q.q_pos"
    )
    return text, params


def _by_ids(model, related: tuple[str, ...], ids: list[int]) -> list:
    """Rows of `model` (with `related`) by primary key: the queue's next items. One or two ids,
    so each count has its compiled query."""
    if not ids:
        return []
    sentinels = [compiled.CARD, compiled.CARD2][: len(ids)]
    if len(ids) > len(sentinels):
        return list(model.objects.select_related(*related).filter(pk__in=ids))
    return compiled.objects(
        ("by_ids", model._meta.label, related, len(ids)),
        lambda: model.objects.select_related(*related).filter(pk__in=sentinels),
        {"card": ids[0], "card2": ids[-1]},
    )


def due_counts(
    user, now: datetime | None = None, *, card_counts: dict[int, int] | None = None
) -> dict[int, dict[str, int]]:
    """{deck id: {"due": n, "new": n}} for the home page, each within today's limits.
    Pass `card_counts` ({deck id: cards}) when the caller has them, to save a query."""
    day = today(user, now)
    per_deck = (
        CardState.objects.filter(user=user, card__retired_at=None)
        .values("deck_id")
        .annotate(due=Count("id", filter=Q(suspended=False, due_at__lt=day.end)), seen=Count("id"))
    )
    known = {row["deck_id"]: row for row in per_deck}
    counts = {}
    if card_counts is None:
        card_counts = dict(Card.objects.values_list("deck_id").annotate(n=Count("id")))
    for deck_id, total in card_counts.items():
        row = known.get(deck_id, {"due": 0, "seen": 0})
        counts[deck_id] = {
            "due": min(row["due"], day.reviews_left),
            "new": min(max(0, total - row["seen"]), day.new_left),
        }
    return counts


def suspended_cards(user, limit: int = 200) -> list[CardState]:
    return list(
        CardState.objects.filter(user=user, suspended=True)
        .select_related("card", "card__deck")
        .order_by("card__deck__title", "card_id")[:limit]
    )


def visible_card(user, card_id: int) -> Card | None:
    """The card with its deck, if the user may see it (visible_decks), as a grade needs it.
    Compiled once per shape of visible_decks() (its own SQL is the key): composing the query
    cost more than running it."""
    visible = visible_decks(user)
    try:
        key = ("visible_card", *visible.query.sql_with_params())
    except EmptyResultSet:
        return None
    rows = compiled.objects(
        key,
        lambda: Card.objects.select_related("deck").filter(pk=compiled.CARD, deck__in=visible),
        {"card": card_id},
    )
    return rows[0] if rows else None


def visible_deck(user, slug: str) -> Deck | None:
    """The deck with this slug, if the user may see it (visible_decks): the queue API's deck.
    Compiled once per shape of visible_decks(), as visible_card() is."""
    visible = visible_decks(user)
    try:
        key = ("visible_deck", *visible.query.sql_with_params())
    except EmptyResultSet:
        return None
    rows = compiled.objects(
        key, lambda: visible.filter(slug=compiled.SLUG).order_by("pk")[:1], {"slug": slug}
    )
    return rows[0] if rows else None


CARD_SET_MAX = 200


def card_set_queue(user, card_ids: list[int], *, avoid: int | None = None, now=None) -> Queue:
    """A queue of exactly these cards (e.g. a quiz's misses, "review these"): the ones still due
    today, or never studied, in the order given; suspended cards and cards the user may not see
    are left out. Counts are {"relearn": how many are left}. Two queries."""
    now = now or timezone.now()
    zone = profile_for(user).zone
    start = scheduler.day_start(now, zone)
    ids = list(dict.fromkeys(card_ids))[:CARD_SET_MAX]
    cards = {
        c.pk: c
        for c in Card.objects.filter(pk__in=ids, deck__in=visible_decks(user)).select_related(
            "section", "deck"
        )
    }
    states = {s.card_id: s for s in CardState.objects.filter(user=user, card_id__in=list(cards))}
    items = []
    for pk in ids:
        card, state = cards.get(pk), states.get(pk)
        if card is None or (state is not None and state.suspended):
            continue
        if state is None:
            items.append(QueueItem(card, None, "new"))
        elif scheduler.is_due(state.schedule, now, zone):
            seen_today = state.last_reviewed_at and state.last_reviewed_at >= start
            items.append(QueueItem(card, state, "redrill" if seen_today else "due"))
    if avoid and len(items) > 1:
        items = [i for i in items if i.card.pk != avoid] + [i for i in items if i.card.pk == avoid]
    return Queue(items, {"relearn": len(items)}, now, zone)


MORE_NEW_CARDS = 10


@dataclass
class NextSteps:
    """What a learner can do when the queue is empty: learn more new cards today (`unseen` cards
    were never studied), cram, or take a knowledge check."""

    unseen: int
    more: int  # what the "learn N more new cards today" button offers
    knowledge_checks: list = field(default_factory=list)


def next_steps(user, deck: Deck | None) -> NextSteps:
    """Two queries (one without a deck)."""
    from apps.quizzes.selectors import deck_knowledge_checks

    cards = Card.objects.filter(deck=deck) if deck else Card.objects.filter(deck__is_published=True)
    unseen = cards.exclude(states__user=user).count()
    # The sections' own checks in lesson order first, the deck-wide final check last.
    checks = sorted(deck_knowledge_checks(deck), key=lambda q: q.section_id is None) if deck else []
    return NextSteps(unseen, min(unseen, MORE_NEW_CARDS), checks)


def card_state(user, card: Card) -> CardState | None:
    return CardState.objects.filter(user=user, card=card).first()


def queue_item(user, card: Card, now: datetime | None = None) -> QueueItem:
    """The card as the review page shows it (e.g. right after an undo brings it back)."""
    now = now or timezone.now()
    state = CardState.objects.filter(user=user, card=card).first()
    if state is None:
        return QueueItem(card, None, "new")
    start = scheduler.day_start(now, profile_for(user).zone)
    seen_today = state.last_reviewed_at and state.last_reviewed_at >= start
    again = state.due_at >= start and (state.needs_redrill or seen_today)
    return QueueItem(card, state, "redrill" if again else "due")


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


