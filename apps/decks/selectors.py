from django.db.models import Func, IntegerField, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.shortcuts import get_object_or_404

from apps.decks.models import Card, Deck, Media, Section


def visible_decks(user) -> QuerySet[Deck]:
    """Decks a user may read: published ones, drafts for staff, and their own private decks
    (nobody else's, staff included)."""
    if not user.is_authenticated:
        return Deck.objects.filter(is_published=True)
    shipped = Q(owner=None) if user.is_staff else Q(is_published=True)
    return Deck.objects.filter(shipped | Q(owner=user))


def studied_decks(user_id: int, prefix: str = "deck__") -> Q:
    """The decks of a learner's queue across all decks, as a filter on rows with a deck (cards,
    card states): the published decks and the learner's own (a private deck is never published,
    so this is nobody else's). `user_id` may be a placeholder the queue compiles once."""
    return Q(**{f"{prefix}is_published": True}) | Q(**{f"{prefix}owner_id": user_id})


def count_of(rows: QuerySet) -> Subquery:
    """How many of `rows` (a queryset with OuterRef filters) there are, as an expression: a
    COUNT without GROUP BY, so one row, 0 when there are none."""
    counted = rows.order_by().annotate(n=Func(template="COUNT(*)", output_field=IntegerField()))
    return Subquery(counted.values("n"), output_field=IntegerField())


def section_cards() -> QuerySet[Card]:
    """The outer section's cards in use, for count_of: one range of card_in_use_by_section."""
    return Card.objects.filter(deck_id=OuterRef("deck_id"), section_id=OuterRef("pk"))


def deck_list(user) -> QuerySet[Deck]:
    """The visible decks with their cards in use and their sections. Each count is a subquery
    of its own: joining both to the deck multiplies them (100,000 cards x 100 sections is ten
    million rows, seconds); a deck's cards in use are one range of `card_in_use_by_section`."""
    return visible_decks(user).annotate(
        card_count=count_of(Card.objects.filter(deck=OuterRef("pk"))),
        section_count=count_of(Section.objects.filter(deck=OuterRef("pk"))),
    )


def deck_detail(user, slug: str) -> Deck:
    sections = Section.objects.annotate(card_count=count_of(section_cards())).order_by(
        "order", "id"
    )
    return get_object_or_404(
        visible_decks(user).prefetch_related(Prefetch("sections", queryset=sections)), slug=slug
    )


def section_detail(user, deck_slug: str, section_slug: str) -> Section:
    return get_object_or_404(
        Section.objects.select_related("deck")
        .filter(deck__in=visible_decks(user))
        .prefetch_related("concepts", Prefetch("cards", queryset=Card.objects.order_by("order"))),
        deck__slug=deck_slug,
        slug=section_slug,
    )


def section_neighbours(section: Section) -> tuple[Section | None, Section | None]:
    siblings = list(Section.objects.filter(deck_id=section.deck_id).only("slug", "title", "order"))
    index = next(i for i, s in enumerate(siblings) if s.pk == section.pk)
    previous = siblings[index - 1] if index > 0 else None
    following = siblings[index + 1] if index + 1 < len(siblings) else None
    return previous, following


def card_names(deck: Deck) -> dict[str, list[int]]:
    """What a quiz may name to link cards: a card's slug (that card) or a note's slug (all of
    the note's cards: a cloze note's deletions, both sides of a reversed pair)."""
    names: dict[str, list[int]] = {}
    for slug, note, pk in deck.cards.order_by("order", "id").values_list("slug", "note_slug", "id"):
        names.setdefault(slug, []).append(pk)
        if note and note != slug:
            names.setdefault(note, []).append(pk)
    return {name: list(dict.fromkeys(ids)) for name, ids in names.items()}


def visible_media(user, deck_slug: str, name: str) -> Media | None:
    """A deck's image, if the user may see the deck (visible_decks): a private deck's images are
    its owner's only. One query."""
    media = Media.objects.filter(deck__in=visible_decks(user), deck__slug=deck_slug, name=name)
    return media.first()
