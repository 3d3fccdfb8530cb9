"""Writes for quizzes: starting, autosaving, submitting and scoring attempts; "review these".

Time limits are enforced here, on the server. A timed attempt has a deadline; answers that
arrive after it (plus a few seconds' grace for the request in flight) are not taken. A page
autosaves every change, so when time runs out the attempt is scored on what the server had
by the deadline. The API, which has no autosave, rejects a late submission outright.
"""

import uuid
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.practice.models import PracticeState
from apps.practice.services import HARD, practice_grade, practice_record, practice_states
from apps.quizzes import scoring
from apps.quizzes.models import Attempt, Quiz
from config.errors import ServiceError

TWO_PLACES = Decimal("0.01")


# How many problems a refused attempt lists; enough to fix a client, not an echo of the body.
MAX_PROBLEMS = 10


class AttemptRejected(ServiceError):
    """Answers that were refused (400); nothing was recorded. ``problems`` are (question id,
    message); the API lists their messages (at most MAX_PROBLEMS) under ``answers``."""

    def __init__(self, message: str, problems: list[tuple[str | None, str]] | None = None):
        super().__init__(message, field="answers")
        self.problems = problems or []

    @property
    def detail(self) -> dict[str, list[str]]:
        messages = [message for _, message in self.problems] or [self.message]
        if len(messages) > MAX_PROBLEMS:  # a flood of bad ids is not echoed back in full
            more = len(messages) - MAX_PROBLEMS
            messages = [*messages[:MAX_PROBLEMS], f"…and {more} more problems like these."]
        return {"answers": messages}


def rounded(value: Fraction) -> Decimal:
    """An exact score as the two-decimal number stored and shown."""
    return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(
        TWO_PLACES, rounding=ROUND_HALF_UP
    )


def _check(quiz: Quiz, answers: Any, seed: int | None = None) -> list[scoring.Question]:
    questions = quiz.scoring_questions(seed)
    problems = scoring.answer_problems(questions, answers)
    if problems:
        raise AttemptRejected(problems[0][1], problems)
    return questions


def _scored_fields(quiz: Quiz, questions: list[scoring.Question], answers: dict) -> dict[str, Any]:
    result = scoring.score_quiz(questions, answers)
    numbers = {q.id: q.numbers for q in questions if q.numbers}
    return {
        "score": rounded(result.score),
        "max_score": result.max_score,
        # On the exact score: 2/3 is shown as 0.67 but does not reach a pass mark of 0.67.
        "passed": bool(result.max_score) and result.passed(quiz.pass_mark),
        "results": [
            {
                "id": r.id,
                "points": float(rounded(r.points)),
                "max_points": r.max_points,
                "correct_answer": r.correct_answer,
                "answer": answers.get(r.id),
                # A sizing drill's numbers, so its worked solution outlives edits to its ranges.
                **({"numbers": dict(numbers[r.id])} if r.id in numbers else {}),
            }
            for r in result.questions
        ],
    }


def _finish(
    attempt: Attempt, questions, answers: dict, *, now, timed_out: bool, client_id=None
) -> Attempt:
    fields = _scored_fields(attempt.quiz, questions, answers)
    fields.update(answers=answers, submitted_at=now, timed_out=timed_out)
    if client_id is not None:
        fields["client_id"] = client_id
    # Claim the attempt: of two submits racing (two tabs, a double click), one scores it.
    claimed = Attempt.objects.filter(pk=attempt.pk, submitted_at__isnull=True).update(**fields)
    if claimed:  # what was just stored: no need to read it back
        for name, value in fields.items():
            setattr(attempt, name, value)
        attempt_drills_schedule(attempt=attempt)
        return attempt
    attempt.refresh_from_db()  # the other submit's score
    if attempt.submitted_at is None:  # pragma: no cover - deleted meanwhile
        raise AttemptRejected("this attempt no longer exists")
    return attempt


@transaction.atomic
def attempt_expire(*, attempt: Attempt, now=None) -> Attempt:
    """Score an open attempt whose time ran out on the answers saved before the deadline."""
    now = now or timezone.now()
    questions = attempt.quiz.scoring_questions(attempt.seed)
    return _finish(attempt, questions, dict(attempt.answers), now=now, timed_out=True)


def attempt_start(*, user, quiz: Quiz, now=None) -> Attempt:
    """The user's open attempt at ``quiz`` if it still takes answers, else a new one.

    Not one transaction: expiring an old attempt is atomic on its own (`attempt_expire`), and
    the new attempt is a single INSERT that the one-open-attempt constraint guards, so the usual
    start (a read, then an insert) costs two queries, not six with BEGIN and a savepoint."""
    if quiz.is_checkpoint:
        raise AttemptRejected("checkpoints are answered on their section page and not scored")
    now = now or timezone.now()
    for attempt in Attempt.objects.open().filter(user=user, quiz=quiz):
        attempt.quiz = quiz  # with its questions and options when the caller prefetched them
        if attempt.accepts_answers(now):
            return attempt
        attempt_expire(attempt=attempt, now=now)
    limit = quiz.time_limit
    fields = {"started_at": now, "deadline": now + limit if limit else None}
    try:
        if transaction.get_connection().in_atomic_block:
            with transaction.atomic():  # a savepoint, so a refusal leaves the caller's intact
                return Attempt.objects.create(user=user, quiz=quiz, **fields)
        return Attempt.objects.create(user=user, quiz=quiz, **fields)  # autocommit
    except IntegrityError:  # a second tab started it a moment ago: one open attempt each
        return Attempt.objects.open().get(user=user, quiz=quiz)


@transaction.atomic
def attempt_save(*, attempt: Attempt, answers: dict, now=None) -> bool:
    """Autosave the answers of an open attempt; False (nothing saved) once time is up."""
    now = now or timezone.now()
    if not attempt.accepts_answers(now):
        return False
    _check(attempt.quiz, answers, attempt.seed)
    return bool(
        Attempt.objects.filter(pk=attempt.pk, submitted_at__isnull=True).update(
            answers=answers, saved_at=now
        )
    )


@transaction.atomic
def attempt_submit(*, attempt: Attempt, answers: dict, now=None) -> Attempt:
    """Submit from the page. After the deadline the posted answers are ignored and the
    attempt is scored on what was autosaved in time."""
    now = now or timezone.now()
    if not attempt.is_open:
        return attempt
    if not attempt.accepts_answers(now):
        return attempt_expire(attempt=attempt, now=now)
    questions = _check(attempt.quiz, answers, attempt.seed)
    return _finish(attempt, questions, answers, now=now, timed_out=False)


def _replayed_attempt(user, quiz: Quiz, client_id) -> Attempt | None:
    """The attempt an earlier submit with this client_id recorded, if any."""
    if client_id is None:
        return None
    attempt = Attempt.objects.filter(user=user, client_id=client_id).first()
    if attempt is not None and attempt.quiz_id != quiz.pk:
        raise AttemptRejected(
            f"client_id {client_id} was already used to submit another quiz; "
            "send a new client_id for a new attempt"
        )
    return attempt


def attempt_record(
    *, user, quiz: Quiz, answers: Any, client_id=None, now=None
) -> tuple[Attempt, bool]:
    """Score answers posted in one go (the API) and return (attempt, created). A timed quiz must
    have been started (its detail fetched) and the answers must arrive in time; otherwise
    nothing is recorded. The same client_id again returns the first attempt, not a second one,
    so a client whose answer was lost may simply send the submit again."""
    if isinstance(client_id, str):
        client_id = uuid.UUID(client_id)
    if (replayed := _replayed_attempt(user, quiz, client_id)) is not None:
        return replayed, False
    try:
        with transaction.atomic():
            return _attempt_record(user, quiz, answers, client_id, now or timezone.now()), True
    except (IntegrityError, AttemptRejected):
        # A concurrent submit with the same client_id won the unique constraint, or scored the
        # open attempt of a timed quiz first (this one then found none): replay it, so every
        # retry is answered alike.
        if (replayed := _replayed_attempt(user, quiz, client_id)) is not None:
            return replayed, False
        raise


def _attempt_record(user, quiz: Quiz, answers: Any, client_id, now) -> Attempt:
    if quiz.is_checkpoint:
        raise AttemptRejected(
            f'"{quiz.slug}" is a checkpoint: it is answered on its section page and not scored'
        )
    questions = _check(quiz, answers)
    if quiz.time_limit is None and not quiz.draws_numbers:
        # Started and submitted at once, so it never counts as the open attempt a page may
        # have going at the same quiz.
        attempt = Attempt.objects.create(
            user=user,
            quiz=quiz,
            started_at=now,
            submitted_at=now,
            answers=answers,
            client_id=client_id,
            **_scored_fields(quiz, questions, answers),
        )
        attempt_drills_schedule(attempt=attempt)
        return attempt
    # Locked: a second submit waits for the first, then finds the attempt scored (and replays).
    open_attempts = Attempt.objects.open().filter(user=user, quiz=quiz).select_for_update()
    attempt = open_attempts.order_by("-started_at").first()
    if attempt is not None:
        attempt.quiz = quiz  # the caller's, already loaded: no join
    minutes = quiz.time_limit_minutes
    if attempt is None and quiz.time_limit is None:
        raise AttemptRejected(
            f"this quiz draws its numbers for each attempt: fetch GET /api/quizzes/{quiz.slug}/ "
            "first to start the attempt and see its numbers, then post the answers"
        )
    if attempt is None:
        raise AttemptRejected(
            f"this quiz has a time limit of {minutes} min: fetch GET /api/quizzes/{quiz.slug}/ "
            "first to start the clock, then post the answers"
        )
    if not attempt.accepts_answers(now):
        raise AttemptRejected(
            f"the time limit of {minutes} min ran out at "
            f"{attempt.deadline:%Y-%m-%d %H:%M:%S} UTC, so these answers were not recorded; "
            f"fetch GET /api/quizzes/{quiz.slug}/ to start a new attempt"
        )
    questions = quiz.scoring_questions(attempt.seed)  # a sizing drill's key is the attempt's
    return _finish(attempt, questions, answers, now=now, timed_out=False, client_id=client_id)


def attempt_drills_schedule(*, attempt: Attempt) -> int:
    """Schedule the drills a scored attempt answered, as practice on SM-2 (DESIGN.md,
    "Exercises and drills": full marks is Good, full marks after a failure since the drill fell
    due is Hard, anything else Again). Once per attempt: the attempt is the practice's ref, so a
    replay records nothing twice. Returns how many drills it graded. No query for a quiz
    without drills (its questions are the caller's, prefetched)."""
    keys = [q.key for q in attempt.quiz.questions.all() if q.is_drill]
    if not keys:
        return 0
    states = practice_states(user=attempt.user, kind=PracticeState.Kind.DRILL, keys=keys)
    results = {r["id"]: r for r in attempt.results}
    graded = 0
    for key in keys:
        result = results.get(key)
        if result is None:
            continue
        state = states.get(key)
        failed = state is not None and state.last_grade is not None and state.last_grade < HARD
        grade = practice_grade(
            passed=result["points"] >= result["max_points"], failed_since_due=failed
        )
        practice_record(
            user=attempt.user, kind=PracticeState.Kind.DRILL, key=key, ref=str(attempt.pk),
            grade=grade, now=attempt.submitted_at,
        )  # fmt: skip
        graded += 1
    return graded


def checkpoint_score(*, quiz: Quiz, answers: Any) -> dict[str, Any]:
    """Score a checkpoint's answers for immediate feedback; nothing is recorded."""
    return _scored_fields(quiz, _check(quiz, answers), answers)


def attempt_missed_cards(attempt: Attempt):
    """Cards that teach the questions this attempt did not get full marks on, but those its
    learner suspended: the re-learn set leaves them out, so its count and its queue agree."""
    from apps.decks.models import Card
    from apps.study.selectors import suspended_ids

    missed = [r["id"] for r in attempt.results if r["points"] < r["max_points"]]
    cards = list(Card.objects.filter(quiz_questions__key__in=missed).distinct().order_by("pk"))
    suspended = suspended_ids(attempt.user_id, [c.pk for c in cards])
    return [c for c in cards if c.pk not in suspended]


def attempt_cards_requeue(*, user, attempt: Attempt) -> list[int]:
    """ "Review these": put the missed questions' cards into the user's queue, due now.
    Returns their ids (for a review of exactly those cards)."""
    from apps.study.services import cards_requeue

    cards = list(attempt_missed_cards(attempt))
    if cards:
        cards_requeue(user=user, cards=cards)
    return [card.pk for card in cards]
