"""Who may author what, and the reads the author pages and the author API share."""

from django.core.exceptions import PermissionDenied
from django.db.models import Count, Prefetch, QuerySet
from django.shortcuts import get_object_or_404

from apps.authoring.models import DeckAuthor, Revision
from apps.decks.models import CARDS_IN_USE, Card, Deck, Section
from apps.quizzes.models import Question, Quiz
from apps.study.models import CardState


def is_author(user) -> bool:
    """Staff, or anyone granted at least one deck: they may open the author pages."""
    if not user.is_authenticated:
        return False
    return user.is_staff or DeckAuthor.objects.filter(user=user).exists()


def authored_decks(user) -> QuerySet[Deck]:
    """Every deck for staff; the granted decks for other authors; none for anyone else."""
    if not user.is_authenticated:
        return Deck.objects.none()
    if user.is_staff:
        return Deck.objects.all()
    return Deck.objects.filter(authors__user=user)


def can_author(user, deck: Deck) -> bool:
    if not user.is_authenticated:
        return False
    return user.is_staff or DeckAuthor.objects.filter(user=user, deck=deck).exists()


def deck_for_author(user, slug: str) -> Deck:
    """The deck, or 403 for someone who may not author it (before 404, so non-authors learn
    nothing about which draft slugs exist)."""
    if not is_author(user):
        raise PermissionDenied("Only the deck's authors and staff may edit it.")
    deck = get_object_or_404(Deck, slug=slug)
    if not can_author(user, deck):
        raise PermissionDenied(f"You are not an author of deck {deck.slug!r}.")
    return deck


def _checked(user, obj, deck: Deck):
    if not can_author(user, deck):
        raise PermissionDenied(f"You are not an author of deck {deck.slug!r}.")
    return obj


def card_for_author(user, pk: int) -> Card:
    if not is_author(user):
        raise PermissionDenied("Only the deck's authors and staff may edit cards.")
    card = get_object_or_404(Card.objects.select_related("deck", "section"), pk=pk)
    return _checked(user, card, card.deck)


def section_for_author(user, pk: int) -> Section:
    if not is_author(user):
        raise PermissionDenied("Only the deck's authors and staff may edit sections.")
    section = get_object_or_404(Section.objects.select_related("deck"), pk=pk)
    return _checked(user, section, section.deck)


def quiz_for_author(user, slug: str) -> Quiz:
    if not is_author(user):
        raise PermissionDenied("Only the deck's authors and staff may edit quizzes.")
    quiz = get_object_or_404(Quiz.objects.select_related("deck", "section"), slug=slug)
    return _checked(user, quiz, quiz.deck)


def question_for_author(user, pk: int) -> Question:
    if not is_author(user):
        raise PermissionDenied("Only the deck's authors and staff may edit questions.")
    question = get_object_or_404(
        Question.objects.select_related("quiz__deck").prefetch_related(
            "cards", "choices", "statements", "pairs"
        ),
        pk=pk,
    )
    return _checked(user, question, question.quiz.deck)


def revision_for_author(user, pk: int) -> Revision:
    if not is_author(user):
        raise PermissionDenied("Only the deck's authors and staff may restore revisions.")
    revision = get_object_or_404(
        Revision.objects.select_related("card__deck", "question__quiz__deck"), pk=pk
    )
    deck = revision.card.deck if revision.card_id else revision.question.quiz.deck
    return _checked(user, revision, deck)


def author_deck_list(user) -> QuerySet[Deck]:
    return authored_decks(user).annotate(
        card_count=Count("cards", filter=CARDS_IN_USE, distinct=True),
        section_count=Count("sections", distinct=True),
    )


def deck_structure(deck: Deck) -> list[Section]:
    """Sections in order, each with its cards in order, for the deck editor."""
    cards = Card.objects.order_by("order", "id").only(
        "id", "slug", "front", "front_html", "order", "section_id", "deck_id"
    )
    return list(
        deck.sections.order_by("order", "id").prefetch_related(Prefetch("cards", queryset=cards))
    )


def revisions_of(*, card: Card | None = None, question: Question | None = None) -> list[Revision]:
    """Newest first, each with ``previous`` and ``diff``: (field, HTML) against the one before."""
    revisions = Revision.objects.select_related("author", "restored_from")
    rows = list(
        revisions.filter(card=card) if card is not None else revisions.filter(question=question)
    )
    for index, newer in enumerate(rows):
        older = rows[index + 1] if index + 1 < len(rows) else None
        newer.previous = older
        newer.diff = newer.changes(older)
    return rows


def learners_with_progress(cards) -> dict[int, int]:
    """Card id -> how many learners have a schedule for it (what retiring a card keeps)."""
    rows = CardState.objects.filter(card__in=cards).values("card").annotate(n=Count("user"))
    return {row["card"]: row["n"] for row in rows}
