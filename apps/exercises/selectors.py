"""Reads the exercise pages, the API and the apps above share (the section pages, the review
page's "exercises due", stats, the team dashboard, the data export)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.decks.selectors import visible_decks
from apps.exercises.content import ExerciseDoc, ExerciseFileDoc
from apps.exercises.models import Exercise, ExerciseRevision, SandboxWorker, Submission
from apps.practice.models import PracticeState
from apps.practice.services import practice_states
from apps.study import scheduler
from apps.study.selectors import cards_started

KIND = "exercise"  # the practice kind study schedules exercises under
REFERENCE_AFTER_FAILS = 3


def live_exercises(user) -> QuerySet[Exercise]:
    """Exercises a learner may open: checked, not retired, in a deck they may read."""
    return (
        Exercise.objects.filter(
            current__isnull=False, retired_at=None, deck__in=visible_decks(user)
        )
        .select_related("deck", "section", "current")
        .order_by("deck__title", "section__order", "order", "id")
    )


def exercise_detail(user, slug: str) -> Exercise:
    cards = Card.objects.select_related("deck", "section").order_by("section__order", "order")
    return get_object_or_404(
        live_exercises(user).prefetch_related(Prefetch("cards", queryset=cards)), slug=slug
    )


def practised_cards(exercise_cards) -> list[Card]:
    """The cards an exercise practises, one per note: a cloze note's other cards would show the
    deletions this one asks for."""
    seen, cards = set(), []
    for card in exercise_cards:
        note = card.note_slug or card.slug
        if note not in seen:
            seen.add(note)
            cards.append(card)
    return cards


def user_submission(user, pk: int) -> Submission:
    """The learner's own submission (another learner's is a 404: ids do not leak)."""
    return get_object_or_404(
        Submission.objects.select_related("exercise", "exercise__deck", "revision"),
        pk=pk,
        user=user if user.is_authenticated else None,
    )


def recent_submissions(user, exercise: Exercise, count: int = 5) -> list[Submission]:
    return list(
        Submission.objects.filter(user=user, exercise=exercise)
        .select_related("revision")
        .order_by("-created_at", "-id")[:count]
    )


@dataclass
class Standing:
    """What the learner has done with one exercise."""

    submits: int
    passes: int
    fails: int

    @property
    def may_see_reference(self) -> bool:
        return self.passes > 0 or self.fails >= REFERENCE_AFTER_FAILS


def standing(user, exercise: Exercise) -> Standing:
    if not user.is_authenticated:
        return Standing(0, 0, 0)
    counts = Submission.objects.filter(
        user=user, exercise=exercise, mode=Submission.Mode.SUBMIT
    ).aggregate(
        submits=Count("id"),
        passes=Count("id", filter=Q(status=Submission.Status.PASSED)),
        fails=Count("id", filter=Q(status=Submission.Status.FAILED)),
    )
    return Standing(counts["submits"], counts["passes"], counts["fails"])


@dataclass
class SandboxStatus:
    state: str  # "ready", "no-sandbox", "no-worker"
    message: str

    @property
    def ready(self) -> bool:
        return self.state == "ready"


def sandbox_status(now: datetime | None = None) -> SandboxStatus:
    """What the exercises workers last said: one that runs the sandbox, only ones that cannot
    (and why), or none heard from recently. One query."""
    now = now or timezone.now()
    since = now - timedelta(seconds=settings.EXERCISES_WORKER_STALE_S)
    workers = list(SandboxWorker.objects.filter(seen_at__gte=since).order_by("-seen_at")[:20])
    if any(w.sandbox_ok for w in workers):
        return SandboxStatus("ready", "")
    if workers:
        return SandboxStatus(
            "no-sandbox",
            f"The exercises worker cannot start its sandbox ({workers[0].reason}), so it refuses "
            "to run code: code only ever runs sandboxed. Submissions are refused with this "
            "reason until an operator fixes it (docs/security.md).",
        )
    return SandboxStatus(
        "no-worker",
        "No exercises worker is running right now: what you send waits in the queue and runs "
        "when one starts (nothing is lost).",
    )


# --- the schedule -------------------------------------------------------------------------------


@dataclass
class ExerciseDue:
    exercise: Exercise
    state: PracticeState | None  # None for one never practised
    new: bool


def due_exercises(user, *, deck=None, now: datetime | None = None) -> list[ExerciseDue]:
    """The learner's exercises to do today: practised ones due by the end of their local day
    (soonest first), then new ones whose cards they have begun, in lesson order. Three queries
    whatever the count."""
    if not user.is_authenticated:
        return []
    now = now or timezone.now()
    end = scheduler.day_end(now, profile_for(user).zone)
    live = live_exercises(user).prefetch_related(Prefetch("cards", Card.objects.only("id")))
    if deck is not None:
        live = live.filter(deck=deck)
    exercises = list(live)
    states = practice_states(user=user, kind=KIND, keys=[e.slug for e in exercises])
    card_ids = {c.pk for e in exercises if e.slug not in states for c in e.cards.all()}
    started = cards_started(user, card_ids) if card_ids else set()
    due = [ExerciseDue(e, states[e.slug], False) for e in exercises
           if e.slug in states and states[e.slug].due_at < end]  # fmt: skip
    due.sort(key=lambda d: states[d.exercise.slug].due_at)
    new = [ExerciseDue(e, None, True) for e in exercises
           if e.slug not in states and any(c.pk in started for c in e.cards.all())]  # fmt: skip
    return due + new


def section_exercises(user, section) -> list[tuple[Exercise, object | None]]:
    """A section's exercises with the learner's schedule of each (None: never practised)."""
    exercises = list(live_exercises(user).filter(section=section))
    if not exercises or not user.is_authenticated:
        return [(e, None) for e in exercises]
    states = practice_states(user=user, kind=KIND, keys=[e.slug for e in exercises])
    return [(e, states.get(e.slug)) for e in exercises]


@dataclass
class ExerciseFigure:
    exercise: Exercise
    state: object | None
    submits: int
    passed: bool


def exercise_figures(user) -> list[ExerciseFigure]:
    """The stats page's exercises: each with the learner's schedule, Submits and whether one
    passed. Two queries (one when there are none)."""
    exercises = list(
        live_exercises(user).annotate(
            submits=Count("submissions", filter=Q(submissions__user=user,
                                                  submissions__mode="submit")),
            passes=Count("submissions", filter=Q(submissions__user=user,
                                                 submissions__status="passed",
                                                 submissions__mode="submit")),
        )
    )  # fmt: skip
    if not exercises:
        return []
    states = practice_states(user=user, kind=KIND, keys=[e.slug for e in exercises])
    return [ExerciseFigure(e, states.get(e.slug), e.submits, e.passes > 0) for e in exercises]


def member_exercises(deck, *, user_ids) -> tuple[int, dict[int, int]]:
    """(the deck's live exercises, {member id: exercises they have passed}) for the team
    dashboard. Two queries."""
    total = Exercise.objects.filter(deck=deck, current__isnull=False, retired_at=None).count()
    passed = dict(
        Submission.objects.filter(
            exercise__deck=deck, exercise__retired_at=None, user_id__in=user_ids,
            mode=Submission.Mode.SUBMIT, status=Submission.Status.PASSED,
        )
        .values("user_id")
        .annotate(n=Count("exercise_id", distinct=True))
        .values_list("user_id", "n")
    )  # fmt: skip
    return total, passed


# --- authors ------------------------------------------------------------------------------------


def revision_document(revision: ExerciseRevision) -> ExerciseDoc:
    """A revision as the exercise file format holds it (export, the editor, the author API)."""
    return ExerciseDoc(
        slug=revision.exercise.slug, title=revision.title, prompt=revision.prompt,
        tests=revision.tests, reference=revision.reference, wrong=list(revision.wrong),
        cards=list(revision.card_slugs), source=revision.source, section=revision.section_slug,
        starter=revision.starter, examples=revision.examples, runtime=revision.runtime,
    )  # fmt: skip


def deck_exercises(deck) -> list[Exercise]:
    """Every exercise of a deck for its authors, each with its latest revision (`latest`)."""
    exercises = list(
        Exercise.objects.filter(deck=deck).select_related("current", "section")
        .prefetch_related(Prefetch("revisions", ExerciseRevision.objects.order_by("-number")))
        .order_by("order", "id")
    )  # fmt: skip
    for exercise in exercises:
        revisions = list(exercise.revisions.all())
        exercise.latest = revisions[0] if revisions else None
    return exercises


def deck_exercise_file(deck) -> ExerciseFileDoc:
    """The deck's exercises as one file: each at the revision learners see."""
    exercises = Exercise.objects.filter(deck=deck, current__isnull=False, retired_at=None)
    exercises = exercises.select_related("current", "current__exercise").order_by("order", "id")
    # current is never None here (the filter); the `if` says so to the type checker.
    return ExerciseFileDoc(deck=deck.slug, exercises=[revision_document(e.current)
                                                      for e in exercises if e.current])  # fmt: skip


def import_batch(batch) -> list[ExerciseRevision]:
    return list(
        ExerciseRevision.objects.filter(batch=batch).select_related("exercise", "exercise__deck")
        .order_by("exercise__order", "id")
    )  # fmt: skip
