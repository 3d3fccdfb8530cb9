"""The study queue's lists and statements as querysets on Django's public API: the one
definition of what is due, new, a re-drill or planned today, for one learner, deck and day.
`apps.study.queue` puts them in order and turns their rows into queue items. The interview
scheduler's queue (`ChosenLists`) is the cards it chose, as its caller passes them."""

from __future__ import annotations

from datetime import datetime
from functools import cache, cached_property

from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import (
    BigAutoField,
    BooleanField,
    Case,
    CharField,
    Exists,
    ExpressionWrapper,
    F,
    Field,
    ForeignKey,
    IntegerField,
    Lookup,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.expressions import BaseExpression
from django.db.models.functions import Cast, Coalesce

from apps.decks.models import Card, Deck, Section
from apps.decks.selectors import studied_decks
from apps.study.models import CardState, NewCardCursor, ReviewLog


class CountOf(Subquery):
    """How many rows a queryset gives, as an expression (Subquery with its own template, the
    documented way to write an expression): a sliced queryset counts at most its slice."""

    template = "(SELECT COUNT(*) FROM (%(subquery)s) AS counted)"
    output_field = IntegerField()


def day_logs(user, start: datetime) -> QuerySet[ReviewLog]:
    return ReviewLog.objects.filter(user=user, reviewed_at__gte=start, undone_at=None)


def learner_states(user, deck: Deck | None, *, probed: bool = False) -> QuerySet[CardState]:
    """The learner's active states (not suspended, their card in use) in the deck or in every
    published deck. `probed`: for a list read up to a LIMIT (the queue's), each state's card is
    looked up by its key (a scalar subquery) instead of joined: PostgreSQL, which over-estimates
    one learner's due rows, hashed the whole cards table for a join to 2,000 of them (issue 30)."""
    if probed:
        # `WHERE (SELECT retired_at IS NULL ...)`, a boolean, not `(SELECT retired_at) IS NULL`:
        # the planner guesses half the rows pass a boolean it cannot see into, and 0.5% an IS
        # NULL, and with 0.5% it read and sorted every due row instead of stopping at the limit.
        live = ExpressionWrapper(Q(retired_at=None), output_field=BooleanField())
        card = Card.all_objects.filter(pk=OuterRef("card_id")).order_by()
        in_use = Subquery(card.annotate(in_use=live).values("in_use")[:1])
        states = CardState.objects.filter(in_use, user=user, suspended=False)
    else:
        states = CardState.objects.filter(user=user, suspended=False, card__retired_at=None)
    if deck is not None:
        return states.filter(deck=deck)  # callers resolve the deck through visible_decks
    # Across all decks: a deck an author unpublished leaves the queue with its cards; the
    # learner's own decks are in it.
    return states.filter(studied_decks(getattr(user, "pk", user)))


def new_cards(user, deck: Deck | None, *, probed: bool = False) -> QuerySet[Card]:
    """Cards the learner has no state for, in the order they were added to their deck (the
    loader adds a deck file's cards in order, so this is the lesson's order). The learner's
    NewCardCursor per deck skips the cards already known, so the database walks the primary key
    from the cursor and stops after the first unseen cards (bench/README-study.md).

    `probed`: for a list read up to a LIMIT (the queue's), each card's state looked up by the
    (user, card) key, as a scalar subquery, not NOT EXISTS: PostgreSQL turns NOT EXISTS into an
    anti join, and with the cards read in id order it picked a merge anti join that walks the
    card states' card_id index, every learner's states of those cards (issue 30). Without it
    (counting every unseen card: the interview's plan), the anti join hashes the learner's
    states, cheaper than a lookup per card."""
    seen = CardState.objects.filter(user=user, card=OuterRef("pk"))
    cards = Card.objects.filter(studied_decks(getattr(user, "pk", user)))
    if deck is not None:
        cursor = NewCardCursor.objects.filter(user=user, deck=deck).values("after_card_id")[:1]
        cards = cards.filter(deck=deck, id__gt=Coalesce(Subquery(cursor), Value(0)))
    else:
        cursors = NewCardCursor.objects.filter(user=user, deck=OuterRef("deck_id"))
        cards = cards.filter(
            id__gt=Coalesce(Subquery(cursors.values("after_card_id")[:1]), Value(0))
        )
    if probed:
        state = Subquery(seen.values("pk")[:1])
        return cards.alias(learner_state=state).filter(learner_state=None).order_by("id")
    return cards.filter(~Exists(seen)).order_by("id")


def earlier_siblings() -> QuerySet[Card]:
    """The cards in use of the outer card's note (same deck and note_slug) with a lower id, as a
    correlated subquery. A card without a note_slug (a row made without Card.save) has none."""
    return Card.objects.filter(
        deck_id=OuterRef("deck_id"), note_slug=OuterRef("note_slug"), pk__lt=OuterRef("pk")
    ).exclude(note_slug="")


def note_studied(logs: QuerySet[ReviewLog]) -> QuerySet[ReviewLog]:
    """The outer card's note among these logs' cards (a review of the card or a sibling)."""
    return logs.filter(
        card__deck_id=OuterRef("deck_id"), card__note_slug=OuterRef("note_slug")
    ).exclude(card__note_slug="")


def unburied(user, cards: QuerySet[Card], logs: QuerySet[ReviewLog]) -> QuerySet[Card]:
    """New cards without the ones buried as siblings: a card of a note reviewed today (any card
    of it, in `logs`), and every unseen card of a note but its first (lowest id), so a note
    introduces one card a day. The next note's card takes a buried card's place.

    Only reverse and cloze notes have siblings. Written as `basic OR NOT (...)` on purpose: the
    database then runs the two checks as subqueries on the few cards the list reads (its LIMIT),
    by the note's index, and never for a basic card; as plain NOT EXISTS it folds them into
    anti-joins, and PostgreSQL's plan for those on tables without statistics (a fresh test
    database) re-read every card for every card, seconds for 150 cards."""
    seen = CardState.objects.filter(user=user, card=OuterRef("pk"))
    earlier_new = earlier_siblings().filter(~Exists(seen))
    alone = ~Exists(earlier_new) & ~Exists(note_studied(logs))
    return cards.filter(Q(kind=Card.Kind.BASIC) | alone)


class QueueLists:
    """SM-2's queue lists as querysets, for one learner, deck and day, each built when first
    asked for (the next card needs one or two of them)."""

    def __init__(self, user, deck, start: datetime, end: datetime):
        self.user, self.deck, self.start, self.end = user, deck, start, end
        self.user_id = getattr(user, "pk", user)
        # "Again today": cards flagged for a re-drill and cards failed earlier today. They come
        # first and are not held back by the daily review limit (a day's work is not done until
        # they pass). Both were made due today by today's review, so they lie in the index range
        # [start, end); a re-drill left over from an earlier day is simply due, most overdue first.
        self.again_today = Q(due_at__gte=start) & (
            Q(needs_redrill=True) | Q(last_reviewed_at__gte=start)
        )

    @cached_property
    def due(self) -> QuerySet[CardState]:
        return learner_states(self.user, self.deck, probed=True).filter(due_at__lt=self.end)

    @cached_property
    def redrills(self) -> QuerySet[CardState]:
        return self.due.filter(self.again_today).order_by("due_at", "id")

    @cached_property
    def reviews(self) -> QuerySet[CardState]:
        return self.due.exclude(self.again_today).order_by("due_at", "id")

    @cached_property
    def new(self) -> QuerySet[Card]:
        return unburied(self.user, new_cards(self.user, self.deck, probed=True), self.logs)

    @cached_property
    def buried(self) -> QuerySet[Card]:
        """New cards that wait for tomorrow because a card of their note was reviewed today."""
        cards = new_cards(self.user, self.deck).exclude(kind=Card.Kind.BASIC)
        return cards.filter(Exists(note_studied(self.logs)))

    @cached_property
    def logs(self) -> QuerySet[ReviewLog]:
        return day_logs(self.user, self.start)


@ForeignKey.register_lookup
@BigAutoField.register_lookup
class AnyOf(Lookup):
    """`field__any_of=ids`: the field is one of these ids, as one array parameter on PostgreSQL
    (`= ANY(%s)`: psycopg binds a list of hundreds of ids as one value, where IN (...) costs it a
    placeholder each, more than the rest of the whole queue's request) and IN elsewhere."""

    lookup_name = "any_of"

    def get_prep_lookup(self):
        return [int(pk) for pk in self.rhs]

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        if connection.vendor == "postgresql":
            return f"{lhs} = ANY(%s)", [*lhs_params, list(self.rhs)]
        if not self.rhs:
            return "1 = 0", list(lhs_params)
        return f"{lhs} IN ({', '.join(['%s'] * len(self.rhs))})", [*lhs_params, *self.rhs]


class ChosenLists:
    """The interview scheduler's queue for one learner, deck and day. What is left of its
    choice for today is the chosen cards less the learner's cards reviewed today (by any
    review: their memory's day) or suspended, read without naming the chosen ones (`done`,
    one statement whatever their number); `states` and `new` read the chosen cards themselves."""

    def __init__(self, user, deck, today):
        self.user, self.deck, self.today = user, deck, today

    def done(self) -> QuerySet:
        states = CardState.objects.filter(user=self.user)
        done = states.filter(Q(memory_day=self.today) | Q(suspended=True))
        return done.values_list("card_id")

    def states(self, ids: list[int]) -> QuerySet:
        """These chosen cards' states with their cards and sections, as state_rows gives them."""
        states = learner_states(self.user, self.deck).filter(card_id__in=ids)
        card = [f"card__{name}" for name in model_columns(Card)]
        section = [f"card__section__{name}" for name in model_columns(Section)]
        return states.values_list(*model_columns(CardState), *card, *section)

    def whole(self, ids: list[int]) -> tuple[QuerySet, QuerySet]:
        """These chosen cards as the whole queue shows them (plain values): the seen ones'
        card and state columns, and the new ones' card columns."""
        card = ("card_id", "card__slug", "card__front_html", "card__back_html", "deck_id",
                "card__note_slug")  # fmt: skip
        states = learner_states(self.user, self.deck).filter(card__any_of=ids)
        cards = Card.objects.filter(
            studied_decks(getattr(self.user, "pk", self.user)), pk__any_of=ids
        )
        if self.deck is not None:
            cards = cards.filter(deck=self.deck)
        new = ("pk", "slug", "front_html", "back_html", "deck_id", "note_slug")
        return states.values_list(*card, "pk", *STATE_COLUMNS), cards.values_list(*new)

    def new(self, ids: list[int]) -> QuerySet:
        """These chosen cards (never seen) with their sections, as new_rows gives them."""
        cards = Card.objects.filter(studied_decks(getattr(self.user, "pk", self.user)), pk__in=ids)
        if self.deck is not None:
            cards = cards.filter(deck=self.deck)
        section = [f"section__{name}" for name in model_columns(Section)]
        return cards.values_list(*model_columns(Card), *section)


# The state columns the API shows, with their model fields (a typed NULL for a new card's row).
def _state_field(name: str) -> Field:
    field = CardState._meta.get_field(name)
    assert isinstance(field, Field)  # a plain column, not a relation
    return field


STATE_NULLS = {
    name: _state_field(name)
    for name in ["repetitions", "ease_factor", "interval_days", "due_at", "needs_redrill", "lapses"]
}


STATE_COLUMNS = tuple(STATE_NULLS)


def whole_rows(
    lists: QueueLists, reviews_per_day: int, new_limit: int, first: int | None = None
) -> QuerySet:
    """The whole queue's statement: one row per item, and the row of the day's done counts.
    `first`: only the first `first` items of each list are read (the queue's first `first`
    items are among them), and the day's row has each list's length as well (`count_row`'s)."""
    no_count = Cast(Value(None), IntegerField())  # typed: the day's counts are in a later part
    lengths = ("q_redrill_n", "q_due_n", "q_new_n")

    def of_states(k: int, states: QuerySet[CardState], order=()) -> QuerySet:
        columns = {
            "q_k": Value(k),
            "q_card": F("card_id"),
            "q_slug": F("card__slug"),
            "q_front": F("card__front_html"),
            "q_back": F("card__back_html"),
            "q_deck": F("deck_id"),
            "q_note": F("card__note_slug"),
            **{f"q_{name}": F(name) for name in STATE_COLUMNS},
            "q_pos": F("id"),
            "q_new_done": no_count,
            "q_reviews_done": no_count,
            "q_buried": no_count,
            **dict.fromkeys(lengths, no_count),
        }
        return states.order_by(*order).annotate(**columns).values(*columns)

    new_columns = {
        "q_k": Value(2),
        "q_card": F("id"),
        "q_slug": F("slug"),
        "q_front": F("front_html"),
        "q_back": F("back_html"),
        "q_deck": F("deck_id"),
        "q_note": F("note_slug"),
        **{f"q_{name}": Value(None, output_field=f) for name, f in STATE_NULLS.items()},
        "q_pos": F("id"),
        "q_new_done": no_count,
        "q_reviews_done": no_count,
        "q_buried": no_count,
        **dict.fromkeys(lengths, no_count),
    }
    day: dict[str, BaseExpression] = {
        name: Value(None, output_field=column_field(name)) for name in new_columns
    }
    day |= {
        "q_k": Value(9),
        "q_new_done": CountOf(lists.logs.filter(kind=ReviewLog.Kind.NEW).values("pk")),
        "q_reviews_done": CountOf(lists.logs.filter(kind=ReviewLog.Kind.REVIEW).values("pk")),
        "q_buried": CountOf(lists.buried.values("pk")),
    }
    redrills = of_states(0, lists.redrills)
    if first is not None:
        day |= {
            "q_redrill_n": CountOf(lists.redrills.order_by().values("pk")),
            "q_due_n": CountOf(lists.reviews.order_by().values("pk")[:reviews_per_day]),
            "q_new_n": CountOf(lists.new.values("pk")[:new_limit]),
        }
        reviews_per_day, new_limit = min(reviews_per_day, first), min(new_limit, first)
    if connection.features.supports_slicing_ordering_in_compound:
        # PostgreSQL: each list a part of its own with its ORDER BY and LIMIT, read by the
        # learner's index and stopped at the limit. (As `pk IN (the list LIMIT n)` it picked a
        # hash semi join over a sequential scan of every learner's card states: issue 30.)
        due = of_states(1, lists.reviews, ("due_at", "id"))[:reviews_per_day]
        new = lists.new.annotate(**new_columns).values(*new_columns)[:new_limit]
        if first is not None:
            redrills = of_states(0, lists.redrills, ("due_at", "id"))[:first]
    else:  # SQLite allows no ORDER BY or LIMIT in a part of a UNION: the list as a subquery
        reviews = CardState.objects.filter(pk__in=lists.reviews.values("pk")[:reviews_per_day])
        due = of_states(1, reviews)
        new = Card.objects.filter(pk__in=lists.new.values("pk")[:new_limit]).order_by()
        new = new.annotate(**new_columns).values(*new_columns)
        if first is not None:
            firsts = lists.redrills.values("pk")[:first]
            redrills = of_states(0, CardState.objects.filter(pk__in=firsts))
    parts = [
        redrills,
        due,
        new,
        get_user_model().objects.filter(pk=lists.user_id).order_by().annotate(**day).values(*day),
    ]
    rows = parts[0].union(*parts[1:], all=True).order_by("q_k", "q_due_at", "q_pos")
    return rows.values_list(*new_columns)


def column_field(name: str):
    ints = ("q_k", "q_card", "q_pos", "q_deck", "q_new_done", "q_reviews_done", "q_buried",
            "q_redrill_n", "q_due_n", "q_new_n")  # fmt: skip
    return IntegerField() if name in ints else STATE_NULLS.get(name[2:], CharField())


def count_row(lists: QueueLists, reviews_per_day: int, new_limit: int) -> QuerySet:
    """The next card's first query: the day's done counts and each list's length."""
    counts = {
        "new_done": CountOf(lists.logs.filter(kind=ReviewLog.Kind.NEW).values("pk")),
        "reviews_done": CountOf(lists.logs.filter(kind=ReviewLog.Kind.REVIEW).values("pk")),
        "redrill": CountOf(lists.redrills.values("pk")),
        "due": CountOf(lists.reviews.order_by().values("pk")[:reviews_per_day]),
        "new": CountOf(lists.new.values("pk")[:new_limit]),
        "buried": CountOf(lists.buried.values("pk")),
    }
    user = get_user_model().objects.filter(pk=lists.user_id)
    return user.annotate(**counts).values_list(*counts)


@cache
def model_columns(model) -> tuple[str, ...]:
    """A model's columns (attnames), in the order its rows are read below."""
    return tuple(f.attname for f in model._meta.get_fields() if f.concrete and not f.many_to_many)


def state_rows(lists: QueueLists, which: str, n: int) -> QuerySet:
    """The first `n` states of a list with their cards and sections, as values (what
    select_related("card", "card__section") reads, in one row per state)."""
    if which == "both":
        first = Case(When(lists.again_today, then=Value(0)), default=Value(1))
        states = lists.due.order_by(first, "due_at", "id")
    else:
        states = lists.redrills if which == "redrill" else lists.reviews
    card = [f"card__{name}" for name in model_columns(Card)]
    section = [f"card__section__{name}" for name in model_columns(Section)]
    return states.values_list(*model_columns(CardState), *card, *section)[:n]


def new_rows(lists: QueueLists, n: int) -> QuerySet:
    section = [f"section__{name}" for name in model_columns(Section)]
    return lists.new.values_list(*model_columns(Card), *section)[:n]


def card_models(rows) -> list[Card]:
    """Cards with their sections from new_rows' values (Model.from_db, as a queryset does)."""
    n = len(model_columns(Card))
    cards = []
    for row in rows:
        card = Card.from_db(DEFAULT_DB_ALIAS, model_columns(Card), row[:n])
        card.section = Section.from_db(DEFAULT_DB_ALIAS, model_columns(Section), row[n:])
        cards.append(card)
    return cards


def state_models(rows) -> list[CardState]:
    n = len(model_columns(CardState))
    states = []
    for row, card in zip(rows, card_models(row[n:] for row in rows), strict=True):
        state = CardState.from_db(DEFAULT_DB_ALIAS, model_columns(CardState), row[:n])
        state.card = card
        states.append(state)
    return states
