"""Reads shared by the quiz pages and the API, and the per-member knowledge-check figures the
team dashboard shows."""

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, F, FloatField, Max, OuterRef, Prefetch, QuerySet, Subquery
from django.db.models.functions import Cast, Coalesce
from django.shortcuts import get_object_or_404
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.decks.selectors import visible_decks
from apps.practice.models import PracticeState
from apps.practice.services import practice_states
from apps.quizzes.models import Attempt, Question, Quiz
from apps.study.scheduler import day_end

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


def knowledge_checks(deck_id: int) -> QuerySet[Quiz]:
    return Quiz.objects.filter(deck_id=deck_id, kind=Quiz.Kind.KNOWLEDGE_CHECK)


def deck_knowledge_checks(deck) -> list[Quiz]:
    """The knowledge checks of a deck, its deck-wide final check first, then section by section."""
    return list(
        knowledge_checks(deck.pk)
        .select_related("section")
        .order_by(F("section__order").asc(nulls_first=True), "order", "id")
    )


@dataclass
class MemberChecks:
    best: dict[int, float] = field(default_factory=dict)  # quiz id -> best share (0..1)
    # The knowledge-check score (apps.study.progress): the average over the deck's checks of
    # the best share on each, a check not taken counting 0.
    score: float = 0.0


def member_checks(deck, *, user_ids) -> tuple[list[Quiz], dict[int, MemberChecks]]:
    """The deck's knowledge checks in their order, and for each of `user_ids` (ids or a queryset
    of them) who submitted a scored attempt at one, their best share on each and their score.
    Two queries, whatever the number of users and attempts."""
    checks = list(knowledge_checks(deck.pk).order_by("order", "id"))
    best_rows = (
        Attempt.objects.submitted()
        .filter(
            user_id__in=user_ids,
            quiz__deck=deck,
            quiz__kind=Quiz.Kind.KNOWLEDGE_CHECK,
            score__isnull=False,
            max_score__gt=0,
        )
        .values("user_id", "quiz_id")
        .annotate(best=Max(Cast("score", FloatField()) / Cast("max_score", FloatField())))
        .order_by()
    )
    members: dict[int, MemberChecks] = {}
    for row in best_rows:
        members.setdefault(row["user_id"], MemberChecks()).best[row["quiz_id"]] = min(
            1.0, row["best"]
        )
    for member in members.values():
        member.score = sum(member.best.get(q.pk, 0.0) for q in checks) / len(checks)
    return checks, members


def section_quizzes(section) -> list[Quiz]:
    """A section's checkpoints (answered inline) and knowledge checks (linked), in one go."""
    return list(
        Quiz.objects.filter(section=section)
        .select_related("deck", "section")
        .prefetch_related(*TAKING)
    )


@dataclass
class DrillSchedule:
    """Where a learner stands on a quiz's drills (sizing and debugging), as SM-2 schedules them."""

    total: int
    due: int  # practised before and due by the end of the learner's today
    new: int  # never practised
    next_due: Any = None  # the soonest due date of those not due today


def drill_schedule(user, quiz: Quiz) -> DrillSchedule | None:
    """The schedule of a quiz's drills for `user`, or None for a quiz without drills. One query
    (the quiz's questions are prefetched by quiz_detail)."""
    keys = [q.key for q in quiz.questions.all() if q.is_drill]
    if not keys:
        return None
    states = practice_states(user=user, kind=PracticeState.Kind.DRILL, keys=keys)
    end = day_end(timezone.now(), profile_for(user).zone)
    due = [s for s in states.values() if s.due_at < end]
    later = [s.due_at for s in states.values() if s.due_at >= end]
    return DrillSchedule(
        total=len(keys),
        due=len(due),
        new=len(keys) - len(states),
        next_due=min(later, default=None),
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


def deck_attempts(deck) -> QuerySet[Attempt]:
    """Every learner's attempts at the quizzes of `deck` (what deleting it deletes)."""
    return Attempt.objects.filter(quiz__deck=deck)
