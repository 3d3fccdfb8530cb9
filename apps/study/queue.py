"""The study queue, one definition for the review page, its htmx fragment, the API and the
re-learn sets: what a learner should study now.

SM-2's queue, in order: re-drills (cards failed or flagged today; not held back by the daily
review limit), due cards (most overdue first) up to what is left of the day's review limit, new
cards in lesson order up to what is left of the day's new-card limit. "Today" is always the
learner's local day (`profile.time_zone`).

The interview scheduler's queue, when the caller passes its choice for today (`Chosen`; the
caller is `apps.interview.plan.study_queue`, this module imports nothing of the planner): the
chosen cards not yet reviewed today, in the order chosen, each "due" (SM-2 makes it due), "new"
or "plan" (for your interview: SM-2 has not made it due); SM-2's due cards it did not choose
wait (`counts["waiting"]`), and SM-2's limits do not apply (the plan's budget does).

Built from querysets on Django's public API (the lists and statements are in queue_sql.py). A
fixed number of queries whatever the number of cards, states and planned cards (pinned by tests):
the whole queue is one statement (a UNION of the lists), the next card two (the interview
scheduler's: one for what is left, one for the next card).

One exception to the public API, kept in apps/study/compiled_sql.py (one function): the next
card's two statements and the whole queue's UNION are compiled to SQL once per shape and run
with the real user, deck and day (see there, and bench/README-queue.md for the figures). The
querysets here stay the one definition of the queue; the next card's rows become model
instances through the documented `Model.from_db()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import NamedTuple
from zoneinfo import ZoneInfo

from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card, Deck
from apps.decks.selectors import visible_decks
from apps.study import compiled_sql, scheduler
from apps.study.models import CardState
from apps.study.queue_sql import (
    STATE_COLUMNS,
    ChosenLists,
    QueueLists,
    card_models,
    count_row,
    new_rows,
    state_models,
    state_rows,
    whole_rows,
)
from apps.study.scheduler import CardSchedule

KINDS = ("redrill", "due", "new", "plan")
FOR_INTERVIEW = "plan"  # the kind of a planned card SM-2 has not made due


@dataclass
class QueueItem:
    """One card to study. The review page's items carry model rows (the card with its section);
    the whole queue's carry plain values (QueueCard, QueueState), what the API shows."""

    card: Card | QueueCard
    state: CardState | QueueState | None  # None: a new card
    kind: str  # "redrill", "due", "new" or "plan" (for your interview)

    @property
    def schedule(self) -> CardSchedule | None:
        return self.state.schedule if isinstance(self.state, CardState) else None

    @property
    def for_interview(self) -> bool:
        return self.kind == FOR_INTERVIEW


@dataclass(frozen=True)
class Chosen:
    """A scheduler's choice for today, as its caller passes it: card ids in the order to study
    them, each with what it is and its deck (the queue leaves out those reviewed today,
    suspended or no longer published), and how many of SM-2's due cards it lets wait."""

    cards: list[int]
    kinds: list[str] = field(default_factory=list)  # "due", "new" or "extra" (SM-2 not due)
    decks: list[int | None] = field(default_factory=list)
    waiting: int = 0
    scheduler: str = "interview"


@dataclass
class Queue:
    """The items to study, in order; `counts` are the full lengths of each list even when only
    the first `size` items were loaded, and "buried" (only when there are some) the new cards
    that wait for tomorrow because a card of their note was reviewed today; they are in no list.
    With the interview scheduler's choice the lists are "due", "new" and "plan", and "waiting"
    counts SM-2's due cards it lets wait. `scheduler`: "sm2" or "interview"."""

    items: list[QueueItem]
    counts: dict[str, int]
    now: datetime
    zone: ZoneInfo
    limits: dict[str, int] = field(default_factory=dict)
    scheduler: str = "sm2"

    @property
    def total(self) -> int:
        """The cards left to study today (not the buried ones, which wait for tomorrow)."""
        return sum(n for kind, n in self.counts.items() if kind in KINDS)

    @property
    def next(self) -> QueueItem | None:
        return self.items[0] if self.items else None


@dataclass(frozen=True)
class _Shape:
    """What one learner's SM-2 queue depends on: the user and deck (ids), the local day's
    bounds."""

    user: int
    deck: int | None
    start: datetime
    end: datetime

    def lists(self) -> QueueLists:
        return QueueLists(self.user, self.deck, self.start, self.end)


def _rows(key: tuple, shape: _Shape, build, *args) -> list:
    """The rows of the queryset `build(lists, *args)` gives for `shape`: from SQL compiled once
    per `key` (apps.study.compiled_sql, the one exception to the public API)."""
    return compiled_sql.rows(
        (*key, shape.deck is None),
        lambda user, deck, start, end: build(QueueLists(user, deck, start, end), *args),
        user=shape.user,
        deck=shape.deck,
        start=shape.start,
        end=shape.end,
    )


def queue(
    user,
    deck: Deck | None = None,
    *,
    size: int | None = None,
    avoid: int | Card | None = None,
    now=None,
    chosen: Chosen | None = None,
    first: int | None = None,
) -> Queue:
    """The learner's queue, across all published decks or in one deck: SM-2's, or the cards a
    scheduler chose for today when the caller passes its choice (`chosen`).

    Without `size`, every item (one statement), or with `first` the first `first` items only
    (still one statement, and the same counts: what the API's `?limit=` asks). With `size`, the
    first `size` items with their
    sections, as the review page shows them (two queries, three when they come from both states
    and new cards). `avoid` (the card just graded, or its id) is moved behind the others unless
    nothing else is left, so a card failed a moment ago does not come straight back; given the
    card, its siblings are kept from coming next as well (`_spaced`).

    Siblings (the cards of one reverse or cloze note) are buried as Anki does: a new card waits
    for tomorrow when a card of its note was reviewed today, and a note introduces one new card a
    day (its first unseen one); the next note's new card takes the place of a buried one, so the
    daily new-card limit is still met. Due cards are never buried (SM-2 serves what is due)."""
    now = now or timezone.now()
    note = _note(avoid)
    avoid = avoid.pk if isinstance(avoid, Card) else avoid
    profile = profile_for(user)
    zone = profile.zone
    start, end = scheduler.day_start(now, zone), scheduler.day_end(now, zone)
    if chosen is not None:
        shape = _Shape(user.pk, deck.pk if deck else None, start, end)
        today = scheduler.local_date(now, zone)
        return _chosen_queue(
            shape, today, chosen, size=size, avoid=avoid, note=note, now=now, zone=zone
        )
    new_limit = profile.new_cards_limit(scheduler.local_date(now, zone))
    shape = _Shape(user.pk, deck.pk if deck else None, start, end)
    if size is None:
        # With `first`, as many more as the card to avoid and its siblings may push back.
        cap = first if first is None else first + bool(avoid) + (SIBLING_WINDOW if note else 0)
        items, done = _whole(shape, profile.reviews_per_day, new_limit, cap)
    else:
        target = size + bool(avoid) + (SIBLING_WINDOW if note else 0)
        items, done = _first(shape, profile.reviews_per_day, new_limit, target)
    new_left = max(0, new_limit - done["new_done"])
    reviews_left = max(0, profile.reviews_per_day - done["reviews_done"])
    if size is None:
        # Rows beyond what is left of today's limits were read up to the whole limit: cut them.
        items = _cut(items, {"due": reviews_left, "new": new_left})
        counts = {kind: sum(1 for i in items if i.kind == kind) for kind in KINDS[:3]}
        if first is not None:  # the lists' lengths came with the day's counts
            counts = {
                "redrill": done["redrill"],
                "due": min(done["due"], reviews_left),
                "new": min(done["new"], new_left),
            }
    else:
        counts = {
            "redrill": done["redrill"],
            "due": min(done["due"], reviews_left),
            "new": min(done["new"], new_left),
        }
        items = _cut(items, counts)
    if done["buried"]:
        counts["buried"] = done["buried"]
    if avoid and len(items) > 1:
        items = [i for i in items if i.card.pk != avoid] + [i for i in items if i.card.pk == avoid]
        items = _spaced(items, note)
    limits = {"new": new_left, "due": reviews_left}
    shown = size if size is not None else first
    return Queue(items[:shown] if shown is not None else items, counts, now, zone, limits)


# How far past the card just graded the next card is looked for among cards not of its note.
SIBLING_WINDOW = 3


def _note(card) -> tuple[int, str] | None:
    """The (deck, note) whose cards are siblings of `card`; None for a card that has none."""
    if not isinstance(card, Card) or card.kind == Card.Kind.BASIC or not card.note_slug:
        return None
    return card.deck_id, card.note_slug


def _spaced(items: list[QueueItem], note: tuple[int, str] | None) -> list[QueueItem]:
    """`items` with the first card not of `note` among the next 1 + SIBLING_WINDOW brought to the
    front, so a reverse card does not follow its forward (nor one cloze deletion another) and give
    the answer away; the rest keep their order. The same rule in the whole and the sized queue
    (which loads that many items more), so both serve the same next card."""
    if note is None:
        return items
    for n, item in enumerate(items[: 1 + SIBLING_WINDOW]):
        if (item.card.deck_id, item.card.note_slug) != note:
            return [item, *items[:n], *items[n + 1 :]]
    return items


def _cut(items: list[QueueItem], left: dict[str, int]) -> list[QueueItem]:
    taken = dict.fromkeys(KINDS, 0)
    out = []
    for item in items:
        if item.kind in left and taken[item.kind] >= left[item.kind]:
            continue
        taken[item.kind] += 1
        out.append(item)
    return out


def _chosen_queue(shape: _Shape, today, chosen: Chosen, *, size, avoid, note, now, zone) -> Queue:
    """The cards the scheduler chose for today that are left, in its order, each of the kind it
    was chosen as: what is left in one query (`ChosenLists.done`), then the first `size` items
    with their cards and sections (a query for states, one for new cards; `size=0`: the counts
    only), or every item. A chosen card retired or unpublished since is left out. The next
    card's statements are compiled once per shape, as SM-2's (apps.study.compiled_sql)."""
    extra = {"today": (compiled_sql.SENTINEL_DAY, today)}
    done = {
        row[0]
        for row in _chosen_rows(("chosen-done",), shape, extra, lambda lists, **_: lists.done())
    }
    entries = zip(chosen.cards, chosen.kinds or [], chosen.decks or [], strict=False)
    kinds, left = {}, []
    for card_id, kind, deck in entries:
        if card_id in done or card_id in kinds:
            continue
        if shape.deck is not None and deck is not None and deck != shape.deck:
            continue
        kinds[card_id] = {"extra": FOR_INTERVIEW}.get(kind, kind)
        left.append(card_id)
    counts = dict.fromkeys(("due", "new", FOR_INTERVIEW), 0)
    for card_id in left:
        counts[kinds[card_id]] += 1
    counts["waiting"] = chosen.waiting
    if avoid and len(left) > 1:
        left = [c for c in left if c != avoid] + [c for c in left if c == avoid]
    wanted = left if size is None else left[: size + (SIBLING_WINDOW if note and size else 0)]
    # Plain values for the whole queue (size None), model rows for the review page.
    by_state: dict[int, tuple[Card | QueueCard, CardState | QueueState]] = {}
    by_card: dict[int, Card | QueueCard] = {}
    if size is None:  # every item, as plain values (what the API shows), compiled afresh
        states, cards = ChosenLists(shape.user, shape.deck, today).whole(wanted)
        for card_id, slug, front, back, deck_id, note, pk, *state in states:
            plain = QueueCard(card_id, slug, front, back, deck_id, note)
            by_state[card_id] = (plain, QueueState(pk, *state))
        for row in cards if any(kinds[c] == "new" for c in wanted) else ():
            by_card[row[0]] = QueueCard(*row)
    for kind, build in (
        ("seen", lambda lists, ids: lists.states(ids)),
        ("new", lambda lists, ids: lists.new(ids)),
    ):
        ids = [c for c in wanted if (kinds[c] == "new") == (kind == "new")]
        if not ids or size is None:
            continue
        marks = {f"id{n}": (compiled_sql.SENTINEL_ID - n, pk) for n, pk in enumerate(ids)}

        def with_ids(lists, build=build, **given):
            return build(lists, _ids_of(given))

        rows = _chosen_rows(("chosen", kind, len(ids)), shape, extra | marks, with_ids)
        if kind == "new":
            by_card |= {card.pk: card for card in card_models(rows)}
        else:
            by_state |= {state.card_id: (state.card, state) for state in state_models(rows)}
    items = []
    for card_id in wanted:
        if card_id in by_state:
            card, state = by_state[card_id]
            items.append(QueueItem(card, state, kinds[card_id]))
        elif card_id in by_card:
            items.append(QueueItem(by_card[card_id], None, "new"))
    items = _spaced(items, note)
    if size is not None:
        items = items[:size]
    return Queue(items, counts, now, zone, {}, scheduler=chosen.scheduler)


def _ids_of(given: dict) -> list:
    """The card ids among a compiled statement's parameters (id0, id1, ...), in order."""
    return [given[f"id{n}"] for n in range(sum(1 for name in given if name.startswith("id")))]


def _chosen_rows(key: tuple, shape: _Shape, extra: dict, build) -> list:
    """The rows of `build(ChosenLists, **extra values)` for the learner and deck of `shape`,
    from SQL compiled once per key (`compiled_sql.rows`)."""

    def queryset(user, deck, start, end, **given):
        return build(ChosenLists(user, deck, given["today"]), **given)

    return compiled_sql.rows(
        key, queryset, user=shape.user, deck=shape.deck, start=shape.start, end=shape.end,
        extra=extra,
    )  # fmt: skip


# --- the whole queue: one statement --------------------------------------------------------


class QueueCard(NamedTuple):
    """A card of the whole queue as plain values: what the API shows of it."""

    pk: int
    slug: str
    front_html: str
    back_html: str
    deck_id: int
    note_slug: str


class QueueState(NamedTuple):
    """A learner's SM-2 state of a card in the whole queue, as plain values."""

    pk: int
    repetitions: int
    ease_factor: Decimal
    interval_days: int
    due_at: datetime
    needs_redrill: bool
    lapses: int


def _whole(shape: _Shape, reviews_per_day: int, new_limit: int, first: int | None = None):
    """Every item, as a UNION of the lists in one statement, plus one row with the day's done
    counts (there even when every list is empty). The due and new lists are read up to the whole
    daily limit (what is left of it is known from that row) and cut after; with `first`, each
    list up to `first` items, and that row has the lists' lengths. Plain values, not model rows:
    the API lists hundreds of cards, and model rows cost more than the database."""
    key = ("whole", reviews_per_day, new_limit, first)
    rows = _rows(key, shape, whole_rows, reviews_per_day, new_limit, first)
    items, done = [], {}
    for row in rows:
        k, card_id, slug, front, back, deck_id, note, *state = row[: 7 + len(STATE_COLUMNS)]
        pos, new, reviews, buried, *n = row[7 + len(STATE_COLUMNS) :]
        if k == 9:
            done = {"new_done": new, "reviews_done": reviews, "buried": buried}
            done |= {kind: length or 0 for kind, length in zip(KINDS[:3], n, strict=True)}
            continue
        card = QueueCard(card_id, slug, front, back, deck_id, note)
        items.append(QueueItem(card, QueueState(pos, *state) if k != 2 else None, KINDS[k]))
    return items, done


# --- the first items: the review page --------------------------------------------------------


def _first(shape: _Shape, reviews_per_day: int, new_limit: int, target: int):
    """The day's done counts and each list's length (up to its daily limit) in one query, then
    the first `target` items with their cards and sections."""
    key = ("first", reviews_per_day, new_limit)
    names = ["new_done", "reviews_done", "redrill", "due", "new", "buried"]
    (row,) = _rows(key, shape, count_row, reviews_per_day, new_limit)
    done = {name: n or 0 for name, n in zip(names, row, strict=True)}  # a slice of 0: NULL
    new_left = max(0, new_limit - done["new_done"])
    reviews_left = max(0, reviews_per_day - done["reviews_done"])
    wanted: dict[str, int] = {}
    for kind, n in (
        ("redrill", done["redrill"]),
        ("due", min(done["due"], reviews_left)),
        ("new", min(done["new"], new_left)),
    ):
        wanted[kind] = min(n, target - sum(wanted.values()))
    if not any(wanted.values()):
        return [], done
    items: list[QueueItem] = []
    sm2 = wanted["redrill"] + wanted["due"]
    if sm2:
        which = "redrill" if not wanted["due"] else "due"
        if wanted["redrill"] and wanted["due"]:  # both: re-drills first, then the most overdue
            which = "both"
        rows = _rows(("states", which, sm2), shape, state_rows, which, sm2)
        for n, state in enumerate(state_models(rows)):
            kind = "redrill" if n < wanted["redrill"] else "due"
            items.append(QueueItem(state.card, state, kind))
    if wanted["new"]:
        rows = _rows(("new", wanted["new"]), shape, new_rows, wanted["new"])
        items += [QueueItem(card, None, "new") for card in card_models(rows)]
    return items, done


# --- a set of cards: "review these" ----------------------------------------------------------

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


def queue_item(user, card: Card, now: datetime | None = None) -> QueueItem:
    """The card as the review page shows it (e.g. right after an undo brings it back)."""
    now = now or timezone.now()
    state = CardState.objects.filter(user=user, card=card).first()
    if state is None:
        return QueueItem(card, None, "new")
    zone = profile_for(user).zone
    start = scheduler.day_start(now, zone)
    if not scheduler.is_due(state.schedule, now, zone):
        return QueueItem(card, state, FOR_INTERVIEW)  # only the interview serves it before
    seen_today = state.last_reviewed_at and state.last_reviewed_at >= start
    again = state.due_at >= start and (state.needs_redrill or seen_today)
    return QueueItem(card, state, "redrill" if again else "due")
