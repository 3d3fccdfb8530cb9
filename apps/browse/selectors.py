"""Reads of the card browser (Anki's Browse): the learner's visible cards searched, filtered,
sorted and paginated with their own schedule; one card with its review history; the leeches.

Each function issues a fixed number of queries however many cards there are (pinned by tests):
a search is a count and a page, both one statement with the learner's state LEFT JOINed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.contrib.postgres.search import SearchQuery, SearchVector
from django.core.paginator import Page, Paginator
from django.db import connection
from django.db.models import F, FilteredRelation, Q, QuerySet
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.decks.selectors import visible_decks
from apps.study import scheduler
from apps.study.models import CardState, ReviewLog

PAGE_SIZE = 50
HISTORY_MAX = 200
STATES = ("new", "learning", "due", "suspended", "leech")
# Each column of the browser sorts both ways: due date, interval, easiness, lapses, last review,
# deck and tags ("-" first: descending). Cards without that value (new cards) come last.
SORT_COLUMNS = ("due", "interval", "ease", "lapses", "reviewed", "deck", "tags")
SORTS = tuple(s for name in SORT_COLUMNS for s in (name, f"-{name}"))
# The text search configuration of the full-text index (migration study 0004) and the query:
# they must be the same expression for PostgreSQL to use the index.
SEARCH_CONFIG = "english"


def search_vector():
    """The searched document of a card: its front and back (Markdown source)."""
    return SearchVector("front", "back", config=SEARCH_CONFIG)


def _text_filter(cards: QuerySet[Card], q: str) -> QuerySet[Card]:
    """Cards matching `q`: PostgreSQL full-text search (stemmed, websearch syntax: words,
    "a phrase", -not, or) through the GIN index; elsewhere every word as a case-insensitive
    substring of the front or the back."""
    q = q.strip()
    if not q:
        return cards
    if connection.vendor == "postgresql":
        query = SearchQuery(q, config=SEARCH_CONFIG, search_type="websearch")
        return cards.alias(document=search_vector()).filter(document=query)
    for word in q.split():
        word = word.strip('"')
        if word:
            cards = cards.filter(Q(front__icontains=word) | Q(back__icontains=word))
    return cards


def _tag_filter(cards: QuerySet[Card], tag: str) -> QuerySet[Card]:
    if connection.features.supports_json_field_contains:
        return cards.filter(tags__contains=[tag])
    # SQLite keeps the list as JSON text: the tag with its quotes is one whole element.
    return cards.filter(tags__icontains=json.dumps(tag))


def _state_filter(cards: QuerySet[Card], state: str, user) -> QuerySet[Card]:
    """new: never reviewed; learning: reviewed, then failed or waiting for a re-drill; due:
    reviewed and due by the end of the learner's today; suspended; leech. Suspended cards
    count only as suspended (and leech)."""
    active = Q(mine__isnull=True) | Q(mine__suspended=False)
    reviewed = Q(mine__last_reviewed_at__isnull=False)
    if state == "new":
        return cards.filter(active, Q(mine__isnull=True) | Q(mine__last_reviewed_at__isnull=True))
    if state == "learning":
        return cards.filter(active, reviewed, Q(mine__repetitions=0) | Q(mine__needs_redrill=True))
    if state == "due":
        end = scheduler.day_end(timezone.now(), profile_for(user).zone)
        return cards.filter(active, reviewed, Q(mine__due_at__lt=end))
    if state == "suspended":
        return cards.filter(Q(mine__suspended=True))
    if state == "leech":
        return cards.filter(Q(mine__leech=True))
    raise ValueError(f"state must be one of {', '.join(STATES)}, got {state!r}")


_SORT_FIELDS = {
    "due": "mine__due_at",
    "interval": "mine__interval_days",
    "ease": "mine__ease_factor",
    "lapses": "mine__lapses",
    "reviewed": "mine__last_reviewed_at",
    "deck": "deck__title",
    "tags": "tags",
}


def cards_search(
    user,
    *,
    q: str = "",
    deck: str = "",
    section: str = "",
    tag: str = "",
    state: str = "",
    sort: str = "",
    page: int = 1,
    per_page: int = PAGE_SIZE,
) -> Page:
    """A page of the user's visible cards (published decks; drafts too for staff), each with
    `mine_*` attributes from the user's CardState (None for a card never studied): the
    schedule the browser lists and sorts by. Deck and section are slugs. Unsorted, cards come
    deck by deck in the order they were added; a sort puts cards without that value (new
    cards) last."""
    # The `mine` relation is the annotation's, which the filters below see through Q objects:
    # django-stubs checks keyword lookups against Card's own fields only.
    cards: QuerySet[Card] = Card.objects.filter(deck__in=visible_decks(user)).annotate(
        mine=FilteredRelation("states", condition=Q(states__user=user)),
        mine_id=F("mine__id"),
        mine_due_at=F("mine__due_at"),
        mine_ease_factor=F("mine__ease_factor"),
        mine_interval_days=F("mine__interval_days"),
        mine_repetitions=F("mine__repetitions"),
        mine_lapses=F("mine__lapses"),
        mine_suspended=F("mine__suspended"),
        mine_leech=F("mine__leech"),
        mine_last_reviewed_at=F("mine__last_reviewed_at"),
    )
    if deck:
        cards = cards.filter(deck__slug=deck)
    if section:
        cards = cards.filter(section__slug=section)
    if tag:
        cards = _tag_filter(cards, tag)
    if state:
        cards = _state_filter(cards, state, user)
    cards = _text_filter(cards, q)
    if sort:
        name = sort.lstrip("-")
        if name not in _SORT_FIELDS:
            raise ValueError(f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
        key = F(_SORT_FIELDS[name])
        order = key.desc(nulls_last=True) if sort.startswith("-") else key.asc(nulls_last=True)
        cards = cards.order_by(order, "id")
    else:
        # Deck by deck, each in the order its cards were added (the lesson's order: the loader
        # and the imports add a file's cards in order, as the new-card queue reads them). Not
        # by "id" alone: PostgreSQL would walk the primary key for the first 50 matches and
        # test every card's text on the way, seconds for a rare word at 100,000 cards.
        cards = cards.order_by("deck_id", "id")
    cards = cards.select_related("deck", "section")
    return Paginator(cards, per_page).get_page(page)


@dataclass
class CardDetail:
    card: Card
    state: CardState | None
    history: list[ReviewLog]


def card_detail(user, card_id: int) -> CardDetail | None:
    """One visible card with the user's schedule and review history (newest first, undone
    reviews included and marked), in three queries."""
    card = (
        Card.objects.filter(pk=card_id, deck__in=visible_decks(user))
        .select_related("deck", "section")
        .first()
    )
    if card is None:
        return None
    state = CardState.objects.filter(user=user, card=card).first()
    history = list(
        ReviewLog.objects.filter(user=user, card=card).order_by("-reviewed_at", "-id")[:HISTORY_MAX]
    )
    return CardDetail(card, state, history)


def leech_cards(user, limit: int = 200) -> list[CardState]:
    """The user's leeches (suspended or not), most lapses first. One query."""
    return list(
        CardState.objects.filter(user=user, leech=True)
        .select_related("card", "card__deck", "card__section")
        .order_by("-lapses", "card_id")[:limit]
    )
