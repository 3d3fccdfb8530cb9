"""Who may author what, and the reads the author pages and the author API share."""

from dataclasses import dataclass, field

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import Count, Max, Min, Q, QuerySet, Sum
from django.db.models.functions import Length
from django.http import Http404
from django.shortcuts import get_object_or_404

from apps.authoring.models import DeckAuthor, EditSuggestion, Revision
from apps.decks.models import CARDS_IN_USE, Card, Deck, Media, Section
from apps.quizzes.models import Question, Quiz
from apps.quizzes.selectors import deck_attempts
from apps.study.models import CardState
from apps.study.selectors import deck_study_rows
from config.errors import Forbidden


def is_author(user) -> bool:
    """Staff, or anyone granted at least one deck: they may open the author pages."""
    if not user.is_authenticated:
        return False
    return user.is_staff or DeckAuthor.objects.filter(user=user).exists()


def authored_decks(user) -> QuerySet[Deck]:
    """The shipped decks a user authors on the author pages: every one for staff, the granted
    ones for other authors, none for anyone else. (A learner's own decks have their own pages.)"""
    if not user.is_authenticated:
        return Deck.objects.none()
    if user.is_staff:
        return Deck.objects.filter(owner=None)
    return Deck.objects.filter(owner=None, authors__user=user)


def can_author(user, deck: Deck) -> bool:
    """Who may edit a deck and its cards: the owner of a private deck (only them, staff
    included); staff and the granted authors of a shipped deck. The one check every author
    write and page makes, whichever pages (author or "my cards") they come from."""
    if not user.is_authenticated:
        return False
    if deck.owner_id is not None:
        return deck.owner_id == user.pk
    return user.is_staff or DeckAuthor.objects.filter(user=user, deck=deck).exists()


def deck_for_author(user, slug: str) -> Deck:
    """The deck, or 403 for someone who may not author it (before 404, so non-authors learn
    nothing about which draft slugs exist). A private deck is on its owner's pages only."""
    if not is_author(user):
        raise Forbidden("Only the deck's authors and staff may edit it.")
    deck = get_object_or_404(Deck, slug=slug, owner=None)
    if not can_author(user, deck):
        raise Forbidden(f"You are not an author of deck {deck.slug!r}.")
    return deck


def _checked(user, obj, deck: Deck):
    if not can_author(user, deck):
        raise Forbidden(f"You are not an author of deck {deck.slug!r}.")
    return obj


def card_for_author(user, pk: int) -> Card:
    if not is_author(user):
        raise Forbidden("Only the deck's authors and staff may edit cards.")
    cards = Card.objects.select_related("deck", "section").filter(deck__owner=None)
    card = get_object_or_404(cards, pk=pk)
    return _checked(user, card, card.deck)


def section_for_author(user, pk: int) -> Section:
    if not is_author(user):
        raise Forbidden("Only the deck's authors and staff may edit sections.")
    section = get_object_or_404(Section.objects.select_related("deck"), pk=pk, deck__owner=None)
    return _checked(user, section, section.deck)


def quiz_for_author(user, slug: str) -> Quiz:
    if not is_author(user):
        raise Forbidden("Only the deck's authors and staff may edit quizzes.")
    quiz = get_object_or_404(Quiz.objects.select_related("deck", "section"), slug=slug)
    return _checked(user, quiz, quiz.deck)


def question_for_author(user, pk: int) -> Question:
    if not is_author(user):
        raise Forbidden("Only the deck's authors and staff may edit questions.")
    question = get_object_or_404(
        Question.objects.select_related("quiz__deck").prefetch_related(
            "cards", "choices", "statements", "pairs"
        ),
        pk=pk,
    )
    return _checked(user, question, question.quiz.deck)


def revision_for_author(user, pk: int) -> Revision:
    if not is_author(user):
        raise Forbidden("Only the deck's authors and staff may restore revisions.")
    revision = get_object_or_404(
        Revision.objects.select_related("card__deck", "question__quiz__deck").exclude(
            card__deck__owner__isnull=False
        ),
        pk=pk,
    )
    return _checked(user, revision, revision_deck(revision))


def revision_deck(revision: Revision) -> Deck:
    """The deck of the card or question a revision is of (its check constraint: one of them)."""
    if revision.card is not None:
        return revision.card.deck
    assert revision.question is not None, "a revision is of a card or of a question"
    return revision.question.quiz.deck


# A learner's own decks ("my cards"): 404 for anyone but the owner, so nobody learns they exist.


def _own(user, obj, deck: Deck):
    if not can_author(user, deck):
        raise Http404("No such deck of yours.")
    return obj


def own_decks(user) -> QuerySet[Deck]:
    if not user.is_authenticated:
        return Deck.objects.none()
    return Deck.objects.filter(owner=user)


def deck_for_owner(user, slug: str) -> Deck:
    deck = get_object_or_404(Deck.objects.exclude(owner=None), slug=slug)
    return _own(user, deck, deck)


def card_for_owner(user, pk: int) -> Card:
    cards = Card.objects.select_related("deck", "section").exclude(deck__owner=None)
    card = get_object_or_404(cards, pk=pk)
    return _own(user, card, card.deck)


def revision_for_owner(user, pk: int) -> Revision:
    revisions = Revision.objects.select_related("card__deck").exclude(card__deck__owner=None)
    revision = get_object_or_404(revisions, pk=pk)
    return _own(user, revision, revision_deck(revision))


def own_deck_list(user) -> QuerySet[Deck]:
    return own_decks(user).annotate(card_count=Count("cards", filter=CARDS_IN_USE, distinct=True))


@dataclass
class OwnUsage:
    """What a learner's own decks hold, against their quota (settings OWN_CARDS_MAX and
    OWN_BYTES_MAX): cards in use, and bytes (their images plus their cards' text, a character
    counted as a byte)."""

    cards: int
    bytes: int
    cards_max: int
    bytes_max: int

    @property
    def cards_pct(self) -> int:
        return min(100, round(100 * self.cards / self.cards_max)) if self.cards_max else 100

    @property
    def bytes_pct(self) -> int:
        return min(100, round(100 * self.bytes / self.bytes_max)) if self.bytes_max else 100


def own_usage(user) -> OwnUsage:
    """Two queries."""
    text = Length("front") + Length("back") + Length("why") + Length("source")
    cards = Card.objects.filter(deck__owner=user).aggregate(n=Count("id"), text=Sum(text))
    media = Media.objects.filter(deck__owner=user).aggregate(size=Sum("size"))["size"] or 0
    return OwnUsage(
        cards=cards["n"], bytes=(cards["text"] or 0) + media,
        cards_max=settings.OWN_CARDS_MAX, bytes_max=settings.OWN_BYTES_MAX,
    )  # fmt: skip


def author_deck_list(user) -> QuerySet[Deck]:
    return authored_decks(user).annotate(
        card_count=Count("cards", filter=CARDS_IN_USE, distinct=True),
        section_count=Count("sections", distinct=True),
    )


STRUCTURE_PAGE_CARDS = 100  # cards on one page of the deck editor


@dataclass
class CardPlace:
    """A card on a page of the deck editor; first or last in its section (its move buttons)."""

    card: Card
    is_first: bool
    is_last: bool


@dataclass
class SectionPlace:
    """A section on a page of the deck editor: its cards on the page, how many it has in all,
    whether the page begins partway through it, and whether it is the deck's first or last
    section (its move buttons)."""

    section: Section
    card_count: int
    cards: list[CardPlace] = field(default_factory=list)
    continued: bool = False
    is_first: bool = False
    is_last: bool = False


@dataclass
class StructurePage:
    """One page of the deck editor: up to STRUCTURE_PAGE_CARDS cards in deck order under their
    sections, and the sections without cards that lie among them. ``page`` is Django's Page of
    the cards."""

    sections: list[SectionPlace]
    page: Page

    def __iter__(self):
        return iter(self.sections)

    def __len__(self) -> int:
        return len(self.sections)


def _deck_cards(deck: Deck) -> QuerySet[Card]:
    return (
        Card.objects.filter(deck=deck)
        .order_by("section__order", "section_id", "order", "id")
        .only("id", "slug", "front_html", "order", "section_id", "deck_id")
    )


def _after_section(section_order: int, section_id: int) -> Q:
    return Q(order__gt=section_order) | Q(order=section_order, pk__gt=section_id)


def _card_position(card: Card) -> int:
    """How many of the deck's cards come before `card` in deck order."""
    section = card.section
    before = (
        Q(section__order__lt=section.order)
        | Q(section__order=section.order, section_id__lt=section.pk)
        | Q(section_id=section.pk, order__lt=card.order)
        | Q(section_id=section.pk, order=card.order, pk__lt=card.pk)
    )
    return Card.objects.filter(deck_id=card.deck_id).filter(before).count()


def structure_page_of(*, card: Card | None = None, section: Section | None = None) -> int:
    """The deck editor's page that shows `card`, or `section` (with its first card, or where
    it lies when it has none)."""
    if section is not None:
        later = Card.objects.filter(deck_id=section.deck_id).filter(
            Q(section__order__gt=section.order)
            | Q(section__order=section.order, section_id__gte=section.pk)
        )
        card = later.order_by("section__order", "section_id", "order", "id").first()
        if card is None:  # nothing at or after it: it is on the last page
            total = Card.objects.filter(deck_id=section.deck_id).count()
            return max(1, -(-total // STRUCTURE_PAGE_CARDS))
    if card is None:
        raise TypeError("structure_page_of needs a card or a section")
    return _card_position(card) // STRUCTURE_PAGE_CARDS + 1


def deck_structure(deck: Deck, page: int | str = 1) -> StructurePage:
    """A page of the deck editor (see StructurePage). Its cost does not grow with the deck: a
    count, the page's cards, the card just before them, its sections and their card counts."""
    cards = _deck_cards(deck)
    paged = Paginator(cards, STRUCTURE_PAGE_CARDS).get_page(page)
    rows = list(paged.object_list)
    in_deck = deck.sections.order_by("order", "id")
    if rows:
        # The page holds the sections after the previous page's last card's section, up to its
        # own last card's section; the first page begins at the deck's start, the last one
        # runs to its end (so sections without cards are on the page of the next card).
        if paged.has_previous():
            before = cards.values_list("section__order", "section_id")[paged.start_index() - 2]
            in_deck = in_deck.filter(Q(pk=rows[0].section_id) | _after_section(*before))
        if paged.has_next():
            last = Section.objects.only("order").get(pk=rows[-1].section_id)
            in_deck = in_deck.exclude(_after_section(last.order, last.pk))
    shown = list(in_deck)
    # section id -> (cards, its first place, its last place)
    stats: dict[int, tuple[int, int | None, int | None]] = {
        row["section"]: (row["n"], row["lo"], row["hi"])
        for row in Card.objects.filter(section__in=shown)
        .values("section")
        .annotate(n=Count("id"), lo=Min("order"), hi=Max("order"))
    }
    sections = [SectionPlace(s, stats.get(s.pk, (0, None, None))[0]) for s in shown]
    by_id = {place.section.pk: place for place in sections}
    for card in rows:
        _, lo, hi = stats[card.section_id]
        by_id[card.section_id].cards.append(CardPlace(card, card.order == lo, card.order == hi))
    if sections:  # the move buttons: the deck's first and last sections
        sections[0].is_first = not paged.has_previous()
        sections[-1].is_last = not paged.has_next()
    if rows and paged.has_previous():
        top = rows[0]
        by_id[top.section_id].continued = top.order != stats[top.section_id][1]
    return StructurePage(sections=sections, page=paged)


def revisions_of(
    *, card: Card | None = None, question: Question | None = None
) -> list[tuple[Revision, list[tuple[str, str]]]]:
    """Newest first, each with what it changed, (field, HTML), against the one before."""
    revisions = Revision.objects.select_related("author", "restored_from")
    rows = list(
        revisions.filter(card=card) if card is not None else revisions.filter(question=question)
    )
    older: list[Revision | None] = [*rows[1:], None]
    return [(newer, newer.changes(before)) for newer, before in zip(rows, older, strict=False)]


def open_suggestions(user) -> QuerySet[EditSuggestion]:
    """Learners' open suggestions on the shipped decks `user` authors, oldest first."""
    return (
        EditSuggestion.objects.filter(
            status=EditSuggestion.Status.OPEN, card__deck__in=authored_decks(user),
            card__retired_at=None,
        )
        .select_related("card", "card__deck", "user")
        .order_by("created_at", "id")
    )  # fmt: skip


def open_suggestion_count(user) -> int:
    return open_suggestions(user).count()


def learners_with_progress(cards) -> dict[int, int]:
    """Card id -> how many learners have a schedule for it (what retiring a card keeps)."""
    rows = CardState.objects.filter(card__in=cards).values("card").annotate(n=Count("user"))
    return {row["card"]: row["n"] for row in rows}


@dataclass
class DeckProgress:
    """What learners have of a deck, that deleting it deletes."""

    learners: int
    states: int
    reviews: int
    attempts: int

    def sentence(self, deck: Deck) -> str:
        def n(count: int, what: str) -> str:
            return f"{count} {what}{'' if count == 1 else 's'}"

        lost = [n(self.reviews, "review"), n(self.states, "card state")]
        if self.attempts:
            lost.append(n(self.attempts, "quiz attempt"))
        return (
            f"Deck {deck.slug!r} holds the progress of {n(self.learners, 'learner')}: "
            f"{', '.join(lost[:-1])} and {lost[-1]} would be deleted with it"
        )


def deck_progress(deck: Deck) -> DeckProgress:
    """Learners' progress on `deck`, counted: four counts and the learners among them."""
    rows = deck_study_rows(deck)
    attempts = deck_attempts(deck)
    users = [rows["states"], rows["reviews"], rows["sections"], attempts]
    first, *rest = (queryset.order_by().values("user") for queryset in users)
    learners = first.union(*rest)
    return DeckProgress(
        learners=learners.count(), states=rows["states"].count(),
        reviews=rows["reviews"].count(), attempts=attempts.count(),
    )  # fmt: skip
