"""Reads shared by the quiz pages and the API."""

from django.db.models import Count, F, OuterRef, Prefetch, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404

from apps.decks.models import Card
from apps.decks.selectors import visible_decks
from apps.quizzes.models import Attempt, Question, Quiz

# What taking a quiz needs: its questions with their options, never their cards' answers.
TAKING = ("questions__choices", "questions__statements", "questions__pairs")


def quiz_list(user) -> QuerySet[Quiz]:
    """Quizzes of the decks a user can read, with question counts and the user's best score."""
    question_count = (
        Question.objects.filter(quiz=OuterRef("pk"))
        .order_by()
        .values("quiz")
        .annotate(n=Count("pk"))
        .values("n")
    )
    quizzes = (
        Quiz.objects.filter(deck__in=visible_decks(user))
        .select_related("deck", "section")
        .annotate(question_count=Coalesce(Subquery(question_count), 0))
        .order_by("deck__title", "order", "id")
    )
    if user.is_authenticated:
        mine = Attempt.objects.submitted().filter(quiz=OuterRef("pk"), user=user)
        best = mine.order_by("-score", "submitted_at")
        attempts = mine.order_by().values("quiz").annotate(n=Count("pk")).values("n")
        quizzes = quizzes.annotate(
            best_score=Subquery(best.values("score")[:1]),
            best_max_score=Subquery(best.values("max_score")[:1]),
            attempt_count=Coalesce(Subquery(attempts), 0),
        )
    return quizzes


def quiz_detail(user, slug: str) -> Quiz:
    """A quiz with everything needed to show and score it."""
    return get_object_or_404(
        Quiz.objects.filter(deck__in=visible_decks(user))
        .select_related("deck", "section")
        .prefetch_related(*TAKING),
        slug=slug,
    )


def quiz_with_cards(quiz_id: int) -> Quiz:
    """A quiz for its result page: options plus the cards behind each question."""
    cards = Card.objects.select_related("deck", "section").order_by("order")
    return (
        Quiz.objects.select_related("deck", "section")
        .prefetch_related(*TAKING, Prefetch("questions__cards", queryset=cards))
        .get(pk=quiz_id)
    )


def deck_knowledge_checks(deck) -> list[Quiz]:
    """The knowledge checks of a deck, its deck-wide final check first, then section by section."""
    return list(
        Quiz.objects.filter(deck=deck, kind=Quiz.Kind.KNOWLEDGE_CHECK)
        .select_related("section")
        .order_by(F("section__order").asc(nulls_first=True), "order", "id")
    )


def section_quizzes(section) -> list[Quiz]:
    """A section's checkpoints (answered inline) and knowledge checks (linked), in one go."""
    return list(
        Quiz.objects.filter(section=section)
        .select_related("deck", "section")
        .prefetch_related(*TAKING)
    )


def attempt_history(user, quiz: Quiz) -> list[Attempt]:
    return list(Attempt.objects.submitted().filter(user=user, quiz=quiz)[:50])


def open_attempt(user, quiz: Quiz) -> Attempt | None:
    return Attempt.objects.open().filter(user=user, quiz=quiz).first()


def best_attempt(user, quiz: Quiz) -> Attempt | None:
    return (
        Attempt.objects.submitted()
        .filter(user=user, quiz=quiz)
        .order_by("-score", "submitted_at")
        .first()
    )


def user_attempt(user, pk: int) -> Attempt:
    return get_object_or_404(
        Attempt.objects.select_related("quiz", "quiz__deck", "quiz__section"),
        pk=pk,
        user=user,
    )
