""" "Download my data": everything that is a learner's own, as one JSON document or a zip of CSV
files, streamed.

Each kind of record is one query however many rows there are (read with ``iterator()``, so a
learner with 100k reviews costs the server a chunk of rows at a time, never the whole list), and
both formats hold the same records: ``reviews.csv`` has the columns of the JSON document's
``"reviews"`` list. Nothing of anyone else (another member's progress, an invite token) and no
secret (password hash, API token) is read at all.
"""

import io
import json
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from uuid import UUID

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.http import StreamingHttpResponse
from django.utils import timezone
from django.utils.http import content_disposition_header

from apps.authoring.models import EditSuggestion
from apps.decks.models import Card
from apps.demos.models import DemoPoint, DemoRun
from apps.exercises.models import Submission
from apps.practice.models import PracticeLog, PracticeState
from apps.quizzes.models import Attempt, Question
from apps.study.models import CardState, ReviewLog
from apps.teams.models import Membership
from config import csv_safety

EXPORT_FORMAT = "raydeck-export"
EXPORT_VERSION = 1
CHUNK = 2000  # rows read from the database, and written out, at a time


@dataclass(frozen=True)
class Kind:
    """One kind of record: one CSV file named ``<name>.csv`` and one key of the JSON document."""

    name: str
    columns: tuple[str, ...]
    rows: Callable[[User], Iterable[tuple]]
    single: bool = False  # the profile: one record, an object in the JSON document
    json: frozenset[str] = frozenset()  # columns that are JSON in the CSV, even a bare string


def _query(queryset, lookups: dict[str, str]) -> Iterator[tuple]:
    return queryset.values_list(*lookups.values()).iterator(chunk_size=CHUNK)


PROFILE = {
    "username": "username",
    "email": "email",
    "first_name": "first_name",
    "last_name": "last_name",
    "date_joined": "date_joined",
    "last_login": "last_login",
    "time_zone": "profile__time_zone",
    "new_cards_per_day": "profile__new_cards_per_day",
    "reviews_per_day": "profile__reviews_per_day",
    "interview_date": "profile__interview_date",
    "daily_budget_minutes": "profile__daily_budget_minutes",
    "target_recall": "profile__target_recall",
}
CARD_STATES = {
    "deck": "deck__slug",
    "card": "card__slug",
    "repetitions": "repetitions",
    "ease_factor": "ease_factor",
    "interval_days": "interval_days",
    "due_at": "due_at",
    "lapses": "lapses",
    "last_grade": "last_grade",
    "last_reviewed_at": "last_reviewed_at",
    "introduced_at": "introduced_at",
    "suspended": "suspended",
    "needs_redrill": "needs_redrill",
    "redrill_anchor": "redrill_anchor",
}
REVIEWS = {
    "id": "id",
    "deck": "card__deck__slug",
    "card": "card__slug",
    "grade": "grade",
    "kind": "kind",
    "reviewed_at": "reviewed_at",
    "duration_ms": "duration_ms",
    "state_before": "state_before",
    "state_after": "state_after",
    "client_id": "client_id",
    "undone_at": "undone_at",
}
QUIZ_ATTEMPTS = {
    "id": "id",
    "quiz": "quiz__slug",
    "started_at": "started_at",
    "deadline": "deadline",
    "saved_at": "saved_at",
    "submitted_at": "submitted_at",
    "timed_out": "timed_out",
    "score": "score",
    "max_score": "max_score",
    "passed": "passed",
}
QUIZ_ANSWERS = ("attempt", "quiz", "question", "answer", "points", "max_points", "correct_answer")
DEMO_RUNS = {
    "id": "id",
    "demo": "demo",
    "params": "params",
    "status": "status",
    "progress": "progress",
    "summary": "summary",
    "error": "error",
    "created_at": "created_at",
    "started_at": "started_at",
    "finished_at": "finished_at",
    "cluster_nodes": "cluster_nodes",
    "cluster_cpus": "cluster_cpus",
}
DEMO_POINTS = {"run": "run_id", "seq": "seq", "data": "data"}
EXERCISE_SUBMISSIONS = {
    "id": "id",
    "exercise": "exercise__slug",
    "revision": "revision__number",
    "mode": "mode",
    "status": "status",
    "code": "code",
    "tests": "tests",
    "problem": "problem",
    "stdout": "stdout",
    "stderr": "stderr",
    "time_ms": "time_ms",
    "grade": "grade",
    "created_at": "created_at",
    "finished_at": "finished_at",
}
# The schedules of practice items that are not cards (code exercises, drills) and their grades.
PRACTICE_STATES = {
    "kind": "kind",
    "key": "key",
    "repetitions": "repetitions",
    "ease_factor": "ease_factor",
    "interval_days": "interval_days",
    "due_at": "due_at",
    "lapses": "lapses",
    "last_grade": "last_grade",
    "last_reviewed_at": "last_reviewed_at",
    "needs_redrill": "needs_redrill",
}
PRACTICE_LOGS = {
    "id": "id",
    "kind": "kind",
    "key": "key",
    "ref": "ref",
    "grade": "grade",
    "reviewed_at": "reviewed_at",
    "state_before": "state_before",
    "state_after": "state_after",
}
# The cards of the learner's own decks (retired ones too, with when), and their suggested edits of
# shipped cards. Their decks' images are in each deck's .apkg export ("my cards").
OWN_CARDS = {
    "deck": "deck__slug",
    "deck_title": "deck__title",
    "section": "section__slug",
    "card": "slug",
    "note": "note_slug",
    "kind": "kind",
    "front": "front",
    "back": "back",
    "why": "why",
    "source": "source",
    "tags": "tags",
    "type_answer": "type_answer",
    "retired_at": "retired_at",
}
EDIT_SUGGESTIONS = {
    "id": "id",
    "deck": "card__deck__slug",
    "card": "card__slug",
    "front": "front",
    "back": "back",
    "why": "why",
    "note": "note",
    "status": "status",
    "reply": "reply",
    "created_at": "created_at",
    "decided_at": "decided_at",
}
TEAM_MEMBERSHIPS = {
    "team": "team__name",
    "team_slug": "team__slug",
    "role": "role",
    "hidden": "hidden",
    "joined_at": "joined_at",
}


def _quiz_answers(user) -> Iterator[tuple]:
    """One row per question of each attempt: the scored result once submitted, the autosaved
    answer (not scored yet) while the attempt is open."""
    slugs = dict(
        Question.objects.filter(quiz__attempts__user=user)
        .order_by()
        .values_list("key", "slug")
        .distinct()
    )
    attempts = Attempt.objects.filter(user=user).order_by("id")
    for attempt_id, quiz, answers, results in _query(
        attempts, {"id": "id", "quiz": "quiz__slug", "answers": "answers", "results": "results"}
    ):
        if results:
            for r in results:
                yield (attempt_id, quiz, slugs.get(r.get("id"), r.get("id")), r.get("answer"),
                       r.get("points"), r.get("max_points"), r.get("correct_answer"))  # fmt: skip
        else:
            for key, answer in (answers or {}).items():
                yield attempt_id, quiz, slugs.get(key, key), answer, None, None, None


KINDS = (
    Kind(
        "profile",
        tuple(PROFILE),
        lambda user: _query(get_user_model().objects.filter(pk=user.pk), PROFILE),
        single=True,
    ),
    Kind(
        "card_states",
        tuple(CARD_STATES),
        lambda user: _query(
            CardState.objects.filter(user=user).order_by("deck__slug", "card__order", "card_id"),
            CARD_STATES,
        ),
    ),
    Kind(
        "reviews",
        tuple(REVIEWS),
        lambda user: _query(ReviewLog.objects.filter(user=user).order_by("id"), REVIEWS),
    ),
    Kind(
        "quiz_attempts",
        tuple(QUIZ_ATTEMPTS),
        lambda user: _query(Attempt.objects.filter(user=user).order_by("id"), QUIZ_ATTEMPTS),
    ),
    Kind("quiz_answers", QUIZ_ANSWERS, _quiz_answers, json=frozenset({"answer", "correct_answer"})),
    Kind(
        "demo_runs",
        tuple(DEMO_RUNS),
        lambda user: _query(DemoRun.objects.filter(user=user).order_by("id"), DEMO_RUNS),
    ),
    Kind(
        "demo_points",
        tuple(DEMO_POINTS),
        lambda user: _query(
            DemoPoint.objects.filter(run__user=user).order_by("run_id", "seq"), DEMO_POINTS
        ),
    ),
    Kind(
        "exercise_submissions",
        tuple(EXERCISE_SUBMISSIONS),
        lambda user: _query(
            Submission.objects.filter(user=user).order_by("id"), EXERCISE_SUBMISSIONS
        ),
        json=frozenset({"tests"}),
    ),
    Kind(
        "practice_states",
        tuple(PRACTICE_STATES),
        lambda user: _query(
            PracticeState.objects.filter(user=user).order_by("kind", "key"), PRACTICE_STATES
        ),
    ),
    Kind(
        "practice_logs",
        tuple(PRACTICE_LOGS),
        lambda user: _query(PracticeLog.objects.filter(user=user).order_by("id"), PRACTICE_LOGS),
    ),
    Kind(
        "own_cards",
        tuple(OWN_CARDS),
        lambda user: _query(
            Card.all_objects.filter(deck__owner=user).order_by("deck__slug", "id"), OWN_CARDS
        ),
        json=frozenset({"tags"}),
    ),
    Kind(
        "edit_suggestions",
        tuple(EDIT_SUGGESTIONS),
        lambda user: _query(
            EditSuggestion.objects.filter(user=user).order_by("id"), EDIT_SUGGESTIONS
        ),
    ),
    Kind(
        "team_memberships",
        tuple(TEAM_MEMBERSHIPS),
        lambda user: _query(
            Membership.objects.filter(user=user).order_by("joined_at", "id"), TEAM_MEMBERSHIPS
        ),
    ),
)


def _json_value(value):
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, UUID):
        return str(value)
    return value


def _dumps(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, default=_json_value)


def export_json(user, *, now: datetime | None = None) -> Iterator[bytes]:
    """The JSON document, in pieces: a header, then one key per kind (a list of records, or one
    record for the profile), one record per line."""
    now = now or timezone.now()
    yield (
        f'{{"format": "{EXPORT_FORMAT}", "version": {EXPORT_VERSION}, '
        f'"exported_at": "{now.isoformat()}"'
    ).encode()
    for kind in KINDS:
        records = (_dumps(dict(zip(kind.columns, map(_json_value, row), strict=True)))
                   for row in kind.rows(user))  # fmt: skip
        if kind.single:
            yield f',\n"{kind.name}": {next(records, "null")}'.encode()
            continue
        yield f',\n"{kind.name}": ['.encode()
        batch, first = [], True
        for record in records:
            batch.append(("\n  " if first else ",\n  ") + record)
            first = False
            if len(batch) >= CHUNK:
                yield "".join(batch).encode()
                batch = []
        batch.append("]" if first else "\n]")
        yield "".join(batch).encode()
    yield b"\n}\n"


def csv_cell(value, as_json: bool = False):
    """A value as a CSV cell: empty for none, true/false, ISO dates, JSON for lists and objects
    (and for anything in a JSON column), numbers as they are; the writer (config.csv_safety)
    defuses any text a spreadsheet would run as a formula."""
    if value is None:
        return ""
    if as_json:
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, UUID):
        return str(value)
    return value


class _Pipe:
    """Where zipfile writes: bytes wait here until the generator hands them on. zipfile sees no
    seek(), so it writes sizes after each file's data and never goes back."""

    def __init__(self):
        self.chunks: list[bytes] = []

    def write(self, data: bytes) -> int:
        self.chunks.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:  # zipfile never closes a file it was handed; typeshed asks for it
        pass

    def drain(self) -> bytes:
        data = b"".join(self.chunks)
        self.chunks.clear()
        return data


def export_csv_zip(user) -> Iterator[bytes]:
    """The zip, in pieces: one ``<kind>.csv`` per kind, each with a header row."""
    pipe = _Pipe()
    with zipfile.ZipFile(pipe, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for kind in KINDS:
            with io.TextIOWrapper(
                archive.open(f"{kind.name}.csv", "w"), encoding="utf-8", newline=""
            ) as text:
                writer = csv_safety.writer(text, lineterminator="\n")
                writer.writerow(kind.columns)
                as_json = [column in kind.json for column in kind.columns]
                for n, row in enumerate(kind.rows(user), 1):
                    writer.writerow(map(csv_cell, row, as_json))
                    if n % CHUNK == 0:
                        text.flush()
                        yield pipe.drain()
            yield pipe.drain()
    yield pipe.drain()


def export_response(user, fmt: str) -> StreamingHttpResponse:
    """The download: ``fmt`` "json" (one document) or "csv" (a zip of CSV files), named after
    the user and today's date in their time zone."""
    stem = f"raydeck-{user.get_username()}-{timezone.localdate():%Y-%m-%d}"
    if fmt == "json":
        content, content_type, filename = export_json(user), "application/json", f"{stem}.json"
    else:
        content, content_type, filename = export_csv_zip(user), "application/zip", f"{stem}.zip"
    return StreamingHttpResponse(
        content,
        content_type=content_type,
        headers={"Content-Disposition": content_disposition_header(True, filename)},
    )
