"""A learner's own decks ("my cards"): private decks written through the same services as the
shipped ones (cards, revisions, imports, media), with what only they need: a deck made with a
slug of its own, cards named from their front, retiring instead of deleting, moving notes
between one's decks, and the quota (settings OWN_CARDS_MAX, OWN_BYTES_MAX).

Who may write is apps.authoring.selectors.can_author, as for every author write: the owner of a
private deck, and nobody else (staff included)."""

import secrets

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.template.defaultfilters import filesizeformat
from django.utils.text import slugify

from apps.authoring.formats.rows import slug_from_text
from apps.authoring.models import ClientWrite
from apps.authoring.selectors import learners_with_progress, own_usage
from apps.authoring.services.cards import note_siblings
from apps.authoring.services.fields import (
    order_close_gap,
    order_renumber,
    tags_clean,
    text_clean,
)
from apps.authoring.services.revisions import card_data, original_keep, revisions_add_many
from apps.browse.services import states_follow_move
from apps.decks.content import cards_retire
from apps.decks.models import Card, Deck, Section
from config.errors import Conflict, ServiceError

DEFAULT_SECTION = ("cards", "Cards")  # every own deck starts with one section


class QuotaExceeded(Conflict):
    """The write would take the learner's own decks past their quota; nothing was written."""


def _learner_lock(user) -> None:
    """One learner's quota-counted writes take turns (two tabs at the edge of the quota)."""
    users = get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk)
    list(users.values_list("pk"))


def quota_check(*, user, cards: int = 0, size: int = 0) -> None:
    """Refuse, with what to do, a write that would give the learner more than their quota of
    own cards or of storage. Call it inside the write's transaction: after the write with
    cards=0 (the usage then includes it), or before with what the write adds."""
    usage = own_usage(user)
    if usage.cards + cards > usage.cards_max:
        raise QuotaExceeded(
            f"Your own decks may hold {usage.cards_max:,} cards; this would make "
            f"{usage.cards + cards:,}. Nothing was saved: delete cards you no longer need "
            "(or split the import), then try again."
        )
    if usage.bytes + size > usage.bytes_max:
        raise QuotaExceeded(
            f"Your own decks may take {filesizeformat(usage.bytes_max)} (images and text); "
            f"this would make {filesizeformat(usage.bytes + size)}. Nothing was saved: delete "
            "images or cards you no longer need, then try again."
        )


def quota_enforce(user) -> None:
    """After a write to a learner's own deck, in its transaction: refuse it if it went past
    the quota (raising rolls the write back)."""
    _learner_lock(user)
    quota_check(user=user)


@transaction.atomic
def own_deck_create(*, user, title: str, description: str = "") -> Deck:
    """A private deck of `user`'s with one section, its slug made from the title and a random
    part (slugs are unique across the site; the random part keeps one learner's slug from
    saying anything about another's)."""
    title = (title or "").strip()
    if not title:
        raise ServiceError("title must not be empty", field="title")
    if len(title) > 200:
        raise ServiceError("title is longer than 200 characters", field="title")
    base = slugify(title)[:60].strip("-") or "deck"
    slug = f"{base}-{secrets.token_hex(3)}"
    while Deck.objects.filter(slug=slug).exists():  # 16 million to one
        slug = f"{base}-{secrets.token_hex(3)}"
    deck = Deck.objects.create(
        slug=slug, title=title, description=text_clean(description), owner=user,
        is_published=False,
    )  # fmt: skip
    Section.objects.create(deck=deck, slug=DEFAULT_SECTION[0], title=DEFAULT_SECTION[1])
    return deck


def client_write_once(*, user, client_id, kind: str, make):
    """`make()`'s row (a "deck" or a "card"), made once per client_id: (row, made). The same
    client_id again returns the row it made first, made=False, however the two requests
    overlap; without a client_id, `make()` runs each time. A client_id the user already gave
    another kind of write is refused (409)."""
    if client_id is None:
        return make(), True

    def earlier():
        row = ClientWrite.objects.filter(user=user, client_id=client_id).first()
        if row is not None and getattr(row, f"{kind}_id") is None:
            raise Conflict(f"client_id {client_id} was sent with another write", field="client_id")
        return getattr(row, kind) if row is not None else None

    if (made := earlier()) is not None:
        return made, False
    try:
        with transaction.atomic():
            made = make()
            ClientWrite.objects.create(user=user, client_id=client_id, **{kind: made})
    except IntegrityError:
        if (first := earlier()) is None:
            raise
        return first, False  # the same request, sent twice at once: the other one made it
    return made, True


def own_card_slug(deck: Deck, front: str) -> str:
    """A slug for a new note of an own deck, from its front, that no card of the deck has or
    starts with (a reversed note also takes `<slug>-reverse`, a cloze note `<slug>-cN`)."""
    base = slug_from_text(front or "card")[:70].strip("-") or "card"
    taken = set(
        Card.all_objects.filter(deck=deck, slug__startswith=base).values_list("slug", flat=True)
    )
    slug, n = base, 1
    while any(t == slug or t.startswith(f"{slug}-") for t in taken):
        n += 1
        slug = f"{base}-{n}"
    return slug


@transaction.atomic
def card_retire(*, card: Card, by) -> int:
    """Retire a card's note (every sibling): out of the deck and the queue, its history and
    revisions kept, as the imports retire a card a file no longer has. Returns the cards
    retired."""
    siblings = note_siblings(card)
    for row in siblings:
        original_keep(card=row, data=card_data(row))
    retired = cards_retire(siblings, learners_of=learners_with_progress)
    for row in siblings:
        order_close_gap(Card.objects.filter(section_id=row.section_id), row.order)
    return len(retired)


# Bulk edits of the card browser, on own cards only: a fixed number of queries however many
# cards are chosen (pinned by tests).


def _own_notes(user, card_ids) -> list[Card]:
    """The cards of the user's own decks among `card_ids`, with every sibling of their notes,
    locked for the edit. Two queries, by the note index (deck, note_slug), whatever the size of
    the decks."""
    chosen = Card.objects.filter(pk__in=list(card_ids)[:BULK_MAX], deck__owner=user)
    notes = set(chosen.values_list("deck_id", "note_slug"))
    rows = (
        Card.objects.filter(deck_id__in={d for d, _ in notes}, note_slug__in={n for _, n in notes})
        .select_related("deck", "section")
        .select_for_update(of=("self",))
        .order_by("deck_id", "id")
    )
    return [c for c in rows if (c.deck_id, c.note_slug) in notes]


BULK_MAX = 1000  # cards one bulk edit may name


@transaction.atomic
def own_cards_tag(*, user, card_ids, add: str = "", remove: str = "") -> int:
    """Add and/or remove tags on the notes of the chosen own cards, with a revision for each
    card that changed. Returns how many cards changed. Others' cards are left alone."""
    added, removed = tags_clean(add), set(tags_clean(remove))
    if not added and not removed:
        raise ServiceError("name a tag to add or to remove", field="tag")
    changed, before = [], {}
    for card in _own_notes(user, card_ids):
        tags = [t for t in card.tags if t not in removed]
        tags += [t for t in added if t not in tags]
        if tags != card.tags:
            before[card.pk] = card_data(card)
            card.tags = tags
            changed.append(card)
    Card.objects.bulk_update(changed, ["tags"], batch_size=500)
    revisions_add_many(cards=changed, before=before, author=user,
                       note="tags changed in the card browser")  # fmt: skip
    return len(changed)


@transaction.atomic
def own_cards_move(*, user, card_ids, deck: Deck) -> int:
    """Move the notes of the chosen own cards into another of the user's decks (its first
    section), keeping each card's row, schedule and history; a note slug the target deck has
    already gets a suffix. Returns how many cards moved."""
    if deck.owner_id != user.pk:
        raise ServiceError("cards move only into a deck of your own", field="deck")
    cards = [c for c in _own_notes(user, card_ids) if c.deck_id != deck.pk]
    if not cards:
        return 0
    section = deck.sections.order_by("order", "id").first()
    if section is None:
        section = Section.objects.create(
            deck=deck, slug=DEFAULT_SECTION[0], title=DEFAULT_SECTION[1]
        )
    taken = set(Card.all_objects.filter(deck=deck).values_list("slug", flat=True))
    top = section.cards.aggregate(n=Max("order"))["n"]
    order = -1 if top is None else top
    renamed: dict[tuple[int, str], str] = {}
    before, left = {}, set()
    for card in cards:
        before[card.pk] = card_data(card)
        left.add(card.section_id)
        key = (card.deck_id, card.note_slug)
        note = renamed.get(key)
        if note is None:
            note, n = card.note_slug, 1
            while any(s == note or s.startswith(f"{note}-") for s in taken):
                n += 1
                note = f"{card.note_slug}-{n}"
            renamed[key] = note
        card.slug = note + card.slug.removeprefix(card.note_slug)
        card.note_slug = note
        taken.add(card.slug)
        order += 1
        card.deck, card.section, card.order = deck, section, order
    Card.objects.bulk_update(cards, ["deck", "section", "order", "slug", "note_slug"],
                             batch_size=500)  # fmt: skip
    states_follow_move(user=user, card_ids=[c.pk for c in cards], deck=deck)
    for section_id in left:  # the places the cards left: 0, 1, 2... again
        order_renumber(Card.objects.filter(section_id=section_id))
    revisions_add_many(cards=cards, before=before, author=user,
                       note=f"moved to deck {deck.title}")  # fmt: skip
    return len(cards)
