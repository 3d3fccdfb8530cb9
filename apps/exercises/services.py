"""Writes for exercises from the web side: a learner's Run or Submit (validated, one at a time,
handed to the `exercises` queue once committed), and an author's new revision (saved, then
checked in the sandbox by the worker). The worker side is apps.exercises.worker; no learner's or
author's code ever runs here.

Tasks are sent by name through config.tasks (apps.exercises.tasks imports this module's
neighbours, never the reverse). A task the broker did not take stays queued with no `sent_at`:
the worker's sweep sends it again, so a submission made while the broker or the worker is down
waits and is never lost.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from apps.decks.models import Deck, Section
from apps.decks.selectors import card_names
from apps.exercises.content import ExerciseDoc
from apps.exercises.models import Exercise, ExerciseRevision, Submission
from config.errors import Conflict, NotFound, ServiceError
from config.tasks import enqueue_on_commit, task_send

Status = Submission.Status
RUN_TASK = "exercises.submission_run"
CHECK_TASK = "exercises.revision_check"
QUEUE = "exercises"


class CodeRefused(ServiceError):
    """The code cannot be run as sent (empty, too large, a NUL)."""


class StillRunning(Conflict):
    """The learner's previous Run or Submit of this exercise has no result yet."""

    def __init__(self, message: str, *, submission: Submission):
        super().__init__(message)
        self.submission = submission


def code_problem(code: str) -> str | None:
    """Why `code` cannot be run, as a sentence; None when it can."""
    if not code.strip():
        return "The editor is empty: write your solution first."
    if "\x00" in code:
        return "The code holds a NUL character (\\u0000): remove it and send again."
    size = len(code.encode("utf-8", errors="surrogatepass"))
    limit = settings.EXERCISES_MAX_CODE_BYTES
    if size > limit:
        return f"The code is {size:,} bytes; at most {limit:,} are run. Send the solution only."
    return None


def submission_send(submission_id: int) -> bool:
    """Hand a queued submission to the `exercises` queue now (the worker's sweep); False if the
    broker did not take it (the next sweep tries again)."""
    return task_send(RUN_TASK, (submission_id,), queue=QUEUE)


def _sent_at_stamp(submission_id: int) -> None:
    """The broker took it: the sweep's clock for sending it again starts now."""
    Submission.objects.filter(pk=submission_id, status=Status.QUEUED).update(sent_at=timezone.now())


def submission_create(
    *, user, exercise: Exercise, code: str, mode: str, client_id: uuid.UUID | None = None
) -> tuple[Submission, bool]:
    """Queue a Run (examples) or Submit (every test) of `code` against the exercise's current
    revision; (submission, created). The same client_id again returns the first submission.
    Refused: code that cannot be run (CodeRefused, 400), or while the learner's previous run (of
    any exercise) has no result yet (StillRunning, 409): one at a time per learner, each once."""
    if client_id is not None:
        same = Submission.objects.filter(user=user, client_id=client_id).first()
        if same is not None:
            return same, False
    if not exercise.is_live or exercise.current_id is None:  # is_live implies it; mypy needs it
        raise NotFound(f"Exercise {exercise.slug!r} is not open to learners.")
    if mode not in Submission.Mode.values:
        raise CodeRefused(f"mode must be run or submit, got {mode!r}", field="mode")
    problem = code_problem(code)
    if problem:
        raise CodeRefused(problem, field="code")
    try:
        with transaction.atomic():
            submission = Submission.objects.create(
                user=user, exercise=exercise, revision_id=exercise.current_id, mode=mode,
                code=code, client_id=client_id,
            )  # fmt: skip
            enqueue_on_commit(
                RUN_TASK, (submission.pk,), queue=QUEUE,
                on_sent=lambda: _sent_at_stamp(submission.pk),
            )  # fmt: skip
    except IntegrityError:
        if client_id is not None:
            same = Submission.objects.filter(user=user, client_id=client_id).first()
            if same is not None:  # a second tab with the same page won the race
                return same, False
        running = Submission.objects.active().filter(user=user).select_related("exercise").first()
        if running is None:
            raise
        what = running.get_mode_display().split(" ")[0]
        if running.exercise_id == exercise.pk:
            message = (
                f"Your previous {what} of this exercise has no result yet; it shows here in a "
                "moment, then send again."
            )
        else:
            message = (
                f"Your {what} of “{running.exercise.title}” has no result yet. Each learner has "
                "one run at a time, so everyone's code starts promptly: send this one when that "
                "result shows."
            )
        raise StillRunning(message, submission=running) from None
    return submission, True


# --- authors ----------------------------------------------------------------------------------


def exercise_names(deck: Deck) -> tuple[set[str], set[str]]:
    """What an exercise of `deck` may name: its cards (or notes) and its sections."""
    return set(card_names(deck)), set(deck.sections.values_list("slug", flat=True))


def revision_send(revision_id: int) -> bool:
    """Hand a revision to the worker for its check now (the worker's sweep); False if the broker
    did not take it (the next sweep tries again)."""
    return task_send(CHECK_TASK, (revision_id,), queue=QUEUE)


@transaction.atomic
def exercise_save(
    *,
    deck: Deck,
    doc: ExerciseDoc,
    author=None,
    made_by: str = ExerciseRevision.Source.EDITOR,
    note: str = "",
    batch: uuid.UUID | None = None,
    accept: bool = False,
) -> tuple[ExerciseRevision, bool]:
    """Write `doc` as the exercise's next revision and have the worker check it (the reference
    must pass every test, each wrong solution fail one) before learners see it; (revision,
    created). The same content as the latest revision writes nothing and returns it. `accept`
    (the shipped content, checked by the test suite) makes it current at once."""
    exercise = Exercise.objects.select_for_update().filter(slug=doc.slug).first()
    if exercise is not None and exercise.deck_id != deck.pk:
        raise Conflict(f"Exercise {doc.slug!r} belongs to another deck.")
    section = Section.objects.filter(deck=deck, slug=doc.section).first() if doc.section else None
    if exercise is None:
        order = (deck.exercises.aggregate(n=Max("order"))["n"] or 0) + 1
        exercise = Exercise.objects.create(
            deck=deck, slug=doc.slug, title=doc.title, section=section, order=order
        )
    latest = exercise.revisions.order_by("-number").first()
    content = doc.content()
    if latest is not None and latest.content() == content:
        return latest, False
    revision = ExerciseRevision.objects.create(
        exercise=exercise, number=(latest.number + 1) if latest else 1, made_by=made_by,
        author=author if getattr(author, "is_authenticated", False) else None,
        note=note[:200], batch=batch, **content,
    )  # fmt: skip
    if accept:
        revision.status = ExerciseRevision.Status.ACCEPTED
        revision.checked_at = timezone.now()
        revision.check_report = {"trusted": "shipped content, checked by the test suite"}
        revision.save(update_fields=["status", "checked_at", "check_report"])
        revision_make_current(revision)
    else:
        enqueue_on_commit(CHECK_TASK, (revision.pk,), queue=QUEUE)
    return revision, True


def revision_make_current(revision: ExerciseRevision) -> bool:
    """An accepted revision becomes what learners see, unless a later one already is (checks
    may finish out of order). Title, section and cards follow it."""
    exercise = Exercise.objects.select_for_update().get(pk=revision.exercise_id)
    current = exercise.current
    if current is not None and current.number > revision.number:
        return False
    exercise.current = revision
    exercise.title = revision.title
    if revision.section_slug:
        exercise.section = Section.objects.filter(
            deck_id=exercise.deck_id, slug=revision.section_slug
        ).first()
    else:
        exercise.section = None
    exercise.retired_at = None
    exercise.save(update_fields=["current", "title", "section", "retired_at", "updated_at"])
    names = card_names(exercise.deck)
    ids = [pk for slug in revision.card_slugs for pk in names.get(slug, [])]
    exercise.cards.set(list(dict.fromkeys(ids)))
    revision.exercise = exercise
    return True


def revision_recheck(*, revision: ExerciseRevision) -> ExerciseRevision:
    """Ask for a revision's check again (one that could not be checked, or to re-run it)."""
    if revision.status == ExerciseRevision.Status.ACCEPTED:
        return revision
    ExerciseRevision.objects.filter(pk=revision.pk).update(
        status=ExerciseRevision.Status.CHECKING, check_claimed_at=None
    )
    enqueue_on_commit(CHECK_TASK, (revision.pk,), queue=QUEUE)
    revision.refresh_from_db()
    return revision


def revision_restore(*, revision: ExerciseRevision, author) -> tuple[ExerciseRevision, bool]:
    """An old revision's content saved as the exercise's next revision (checked like any
    other); (revision, created): the latest content already is it, nothing is written."""
    from apps.exercises.selectors import revision_document

    return exercise_save(
        deck=revision.exercise.deck, doc=revision_document(revision), author=author,
        made_by=ExerciseRevision.Source.RESTORE, note=f"restored revision {revision.number}",
    )  # fmt: skip


@transaction.atomic
def exercise_retire(*, exercise: Exercise) -> Exercise:
    """Take an exercise away from learners, keeping its submissions and schedules."""
    exercise.retired_at = timezone.now()
    exercise.save(update_fields=["retired_at", "updated_at"])
    return exercise


def exercises_import(
    *, deck: Deck, docs: list[ExerciseDoc], author, made_by
) -> tuple[uuid.UUID, list[str]]:
    """Write each exercise of a file as a revision to be checked, in one transaction; (the batch
    that names them on the import page, the slugs left unchanged). Each is then accepted or
    refused on its own check: a failing reference or a passing wrong solution refuses that one."""
    batch, unchanged = uuid.uuid4(), []
    with transaction.atomic():
        for doc in docs:
            _, created = exercise_save(
                deck=deck, doc=doc, author=author, made_by=made_by, batch=batch, note="imported"
            )
            if not created:
                unchanged.append(doc.slug)
    return batch, unchanged


def _names_of(slug: str):
    deck = Deck.objects.filter(slug=slug).first()
    return exercise_names(deck) if deck is not None else None


@transaction.atomic
def exercise_file_load(path) -> str:
    """`manage.py seed`: the shipped exercise file, written as accepted revisions (the test
    suite ran every reference and wrong solution in the sandbox). Unchanged exercises are left
    as they are, so a second seed writes nothing."""
    from apps.exercises.content import exercise_file_load_path

    doc = exercise_file_load_path(path, names_of=_names_of)
    deck = Deck.objects.get(slug=doc.deck)
    changed = 0
    for exercise in doc.exercises:
        revision, created = exercise_save(
            deck=deck, doc=exercise, made_by=ExerciseRevision.Source.SEED, accept=True,
            note="shipped content",
        )  # fmt: skip
        changed += created
        if not created and revision.exercise.retired_at is not None:
            revision_make_current(revision)  # shipped again: back for learners
            changed += 1
    # A shipped exercise the file no longer holds is retired, not deleted: its submissions and
    # every learner's schedule stay (a later file may bring it back). An author's own
    # exercises in the deck are not the file's to retire.
    dropped = (
        Exercise.objects.filter(deck=deck, retired_at=None)
        .exclude(slug__in=[e.slug for e in doc.exercises])
        .exclude(revisions__made_by__in=[s for s in ExerciseRevision.Source.values
                                         if s != ExerciseRevision.Source.SEED])
    )  # fmt: skip
    retired = [exercise_retire(exercise=e).slug for e in dropped]
    summary = f"{doc.deck}: {len(doc.exercises)} exercises, {changed} new or changed"
    return summary + (f", retired {', '.join(retired)}" if retired else "")
