"""The worker side of exercises: claim a submission, run it in the sandbox, store the result and
grade it; check an author's revision; and the sweep that keeps nothing lost. Runs in the Celery
worker serving the `exercises` queue (apps.exercises.tasks), never in a web request.

Every job is claimed with one UPDATE (`status=queued -> running`), so a task delivered twice runs
once; the grade is recorded with the submission's id as its ref (study.practice), so a retried
result is graded once. Where the sandbox cannot start, a job is refused with the reason: code is
never run any other way.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from apps.exercises import grading, sandbox
from apps.exercises.limits import run_limits
from apps.exercises.models import ExerciseRevision, SandboxWorker, Submission
from apps.exercises.services import revision_make_current, revision_send, submission_send
from apps.practice.services import practice_failed_since_due, practice_grade, practice_record

log = logging.getLogger(__name__)
Status = Submission.Status
RevStatus = ExerciseRevision.Status
MAX_ATTEMPTS = 2  # a submission whose worker died twice under it is failed, not tried again


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# --- is there a sandbox? ----------------------------------------------------------------------


@dataclass
class _Probe:
    at: float | None = None  # time.monotonic() of the last probe
    reason: str | None = None  # its answer


_probe = _Probe()
_probe_lock = threading.Lock()
REPROBE_FAILED_S = 60.0


def sandbox_reason(*, fresh: bool = False) -> str | None:
    """Why this process cannot run code in the sandbox (None: it can). Probed once per process;
    a failed probe is tried again after a minute (an operator may have fixed it)."""
    with _probe_lock:
        at, reason = _probe.at, _probe.reason
        stale = at is None or (reason is not None and time.monotonic() - at > REPROBE_FAILED_S)
        if fresh or stale:
            reason = sandbox.probe(bwrap=settings.EXERCISES_BWRAP)
            _probe.at, _probe.reason = time.monotonic(), reason
        return reason


def _refusal(reason: str) -> str:
    return (
        f"Not run: the sandbox cannot start on this worker ({reason}). Code only ever runs in "
        "the sandbox, so nothing ran; nothing was graded."
    )


# --- submissions ------------------------------------------------------------------------------


def submission_claim(*, submission_id: int, worker: str) -> bool:
    now = timezone.now()
    return (
        Submission.objects.filter(pk=submission_id, status=Status.QUEUED).update(
            status=Status.RUNNING, started_at=now, worker=worker, attempts=F("attempts") + 1
        )
        == 1
    )


def _suites(submission: Submission) -> list[grading.Suite]:
    revision = submission.revision
    suites = []
    if revision.examples.strip():
        suites.append(grading.Suite("examples", revision.examples, visible=True))
    if submission.mode == Submission.Mode.SUBMIT:
        suites.append(grading.Suite("hidden", revision.tests))
    return suites


def submission_run(*, submission_id: int, runner=None) -> str | None:
    """Claim the submission, run it in a fresh sandbox and store the result (graded for a
    Submit). The final status, or None when it was not queued (a duplicate delivery)."""
    if not submission_claim(submission_id=submission_id, worker=worker_name()):
        log.info("submission %s was not queued any more; nothing to do", submission_id)
        return None
    submission = Submission.objects.select_related("revision", "exercise", "user").get(
        pk=submission_id
    )
    reason = sandbox_reason() or sandbox.runtime_problem(submission.revision.runtime)
    if reason is not None:
        _finish_error(submission, _refusal(reason))
        return Status.ERROR
    try:
        outcome = (runner or sandbox.run)(
            submission.code,
            _suites(submission),
            run_limits(submission.revision.runtime),
            bwrap=settings.EXERCISES_BWRAP,
        )
    except sandbox.SandboxUnavailable as exc:
        _finish_error(submission, _refusal(str(exc)))
        return Status.ERROR
    return submission_finish(submission, outcome)


def _finish_error(submission: Submission, problem: str) -> None:
    Submission.objects.filter(pk=submission.pk, status=Status.RUNNING).update(
        status=Status.ERROR, problem=problem, finished_at=timezone.now()
    )


@transaction.atomic
def submission_finish(submission: Submission, outcome: grading.Outcome) -> str:
    """Store the outcome; a Submit's pass or failure is graded (study.practice: a clean pass
    Good, a pass after a failure since it fell due Hard, a failure Again). An "error" outcome
    (the sandbox itself failed) is stored and not graded."""
    status = {"passed": Status.PASSED, "failed": Status.FAILED}.get(outcome.status, Status.ERROR)
    grade = None
    graded = submission.mode == Submission.Mode.SUBMIT and status != Status.ERROR
    if graded:
        key = submission.exercise.slug
        failed = practice_failed_since_due(user=submission.user, kind="exercise", key=key)
        grade = practice_grade(passed=status == Status.PASSED, failed_since_due=failed)
    updated = Submission.objects.filter(pk=submission.pk, status=Status.RUNNING).update(
        status=status,
        tests=[vars(t) for t in outcome.tests],
        problem=outcome.problem,
        syntax_error=outcome.syntax_error,
        stdout=outcome.stdout,
        stderr=outcome.stderr,
        time_ms=outcome.time_ms,
        grade=grade,
        finished_at=timezone.now(),
    )
    if updated and grade is not None:
        practice_record(
            user=submission.user, kind="exercise", key=submission.exercise.slug,
            ref=str(submission.pk), grade=grade,
        )  # fmt: skip
    return status


# --- an author's revision ---------------------------------------------------------------------


def _summary(outcome: grading.Outcome) -> dict:
    return {
        "status": outcome.status,
        "problem": outcome.problem,
        "failed": [{"name": t.name, "message": t.message} for t in outcome.tests if not t.passed],
        "passed": sum(1 for t in outcome.tests if t.passed),
        "tests": len(outcome.tests),
        "time_ms": outcome.time_ms,
    }


def revision_check_run(*, revision_id: int, runner=None) -> str | None:
    """Run the revision's reference and each wrong solution against every test: accepted when
    the reference passes all and every wrong solution fails one (then learners see it), refused
    otherwise with what went wrong, unchecked when there is no sandbox."""
    now = timezone.now()
    claimed = ExerciseRevision.objects.filter(
        pk=revision_id, status=RevStatus.CHECKING, check_claimed_at=None
    ).update(check_claimed_at=now)
    if claimed != 1:
        return None
    revision = ExerciseRevision.objects.get(pk=revision_id)
    run = runner or sandbox.run
    suites = []
    if revision.examples.strip():
        suites.append(grading.Suite("examples", revision.examples, visible=True))
    suites.append(grading.Suite("hidden", revision.tests, visible=True))
    report: dict = {"problems": []}
    reason = sandbox_reason() or sandbox.runtime_problem(revision.runtime)
    try:
        if reason is not None:
            raise sandbox.SandboxUnavailable(reason)
        limits = run_limits(revision.runtime)
        reference = run(revision.reference, suites, limits, bwrap=settings.EXERCISES_BWRAP)
        wrongs = [run(w["code"], suites, limits, bwrap=settings.EXERCISES_BWRAP)
                  for w in revision.wrong]  # fmt: skip
    except sandbox.SandboxUnavailable as exc:
        report["problems"].append(f"Not checked: the sandbox cannot start on this worker ({exc}).")
        _revision_finish(revision, RevStatus.UNCHECKED, report)
        return RevStatus.UNCHECKED
    if any(o.status == "error" for o in [reference, *wrongs]):
        report["problems"].append("Not checked: a sandbox run did not start; check again.")
        _revision_finish(revision, RevStatus.UNCHECKED, report)
        return RevStatus.UNCHECKED
    report["reference"] = _summary(reference)
    report["wrong"] = [{"mistake": w["mistake"], **_summary(o)}
                       for w, o in zip(revision.wrong, wrongs, strict=True)]  # fmt: skip
    if not reference.passed:
        first = next((t for t in reference.tests if not t.passed), None)
        detail = f"{first.name}: {first.message}" if first else reference.problem
        report["problems"].append(f"The reference solution fails {detail}")
    for i, (w, o) in enumerate(zip(revision.wrong, wrongs, strict=True), 1):
        if o.passed:
            report["problems"].append(
                f"Wrong solution {i} ({w['mistake']}) passes every test: the tests do not catch "
                "its mistake."
            )
    status = RevStatus.REFUSED if report["problems"] else RevStatus.ACCEPTED
    _revision_finish(revision, status, report)
    return status


@transaction.atomic
def _revision_finish(revision: ExerciseRevision, status: str, report: dict) -> None:
    ExerciseRevision.objects.filter(pk=revision.pk).update(
        status=status, check_report=report, checked_at=timezone.now()
    )
    if status == RevStatus.ACCEPTED:
        revision.status = status
        revision_make_current(revision)


# --- the sweep: heartbeats, lost and stuck jobs -----------------------------------------------


def heartbeat(name: str) -> None:
    reason = sandbox_reason()
    SandboxWorker.objects.update_or_create(
        name=name,
        defaults={"sandbox_ok": reason is None, "reason": reason or "", "seen_at": timezone.now()},
    )


def exercises_sweep(*, now=None) -> dict[str, int]:
    """Send again what the broker may have lost (queued and not sent for a while), put back a
    submission whose worker died under it (failed after MAX_ATTEMPTS), and resend stuck checks.
    Safe to run anywhere, any number of times: the claims keep every job to one run."""
    now = now or timezone.now()
    resend_after = timedelta(seconds=settings.EXERCISES_RESEND_S)
    longest_run_s = max(settings.EXERCISES_WALL_S, settings.EXERCISES_RAY_WALL_S)
    dead_after = timedelta(seconds=longest_run_s + 90)
    counts = {"resent": 0, "requeued": 0, "failed": 0, "checks": 0}
    stuck = Submission.objects.filter(status=Status.RUNNING, started_at__lt=now - dead_after)
    for pk, attempts in stuck.values_list("pk", "attempts"):
        if attempts >= MAX_ATTEMPTS:
            counts["failed"] += Submission.objects.filter(pk=pk, status=Status.RUNNING).update(
                status=Status.ERROR, finished_at=now,
                problem="The worker stopped while running this, twice; it was not graded. "
                "Send it again.",
            )  # fmt: skip
        else:
            counts["requeued"] += Submission.objects.filter(pk=pk, status=Status.RUNNING).update(
                status=Status.QUEUED, sent_at=None
            )
    lost = Submission.objects.filter(status=Status.QUEUED).filter(
        Q(sent_at=None, created_at__lt=now - timedelta(seconds=2))
        | Q(sent_at__lt=now - resend_after)
    )
    for pk in lost.values_list("pk", flat=True)[:500]:
        if submission_send(pk):
            counts["resent"] += Submission.objects.filter(pk=pk, status=Status.QUEUED).update(
                sent_at=now
            )
    checks = ExerciseRevision.objects.filter(status=RevStatus.CHECKING).filter(
        Q(check_claimed_at__lt=now - timedelta(minutes=5))
        | Q(check_claimed_at=None, created_at__lt=now - resend_after)
    )
    for pk in checks.values_list("pk", flat=True)[:100]:
        ExerciseRevision.objects.filter(pk=pk, status=RevStatus.CHECKING).update(
            check_claimed_at=None
        )
        counts["checks"] += revision_send(pk)
    if any(counts.values()):
        log.warning("exercises sweep: %s", counts)
    return counts


def sweep_loop(stop: threading.Event, every_s: float, name: str) -> None:
    """In the exercises worker's main process: a heartbeat and a sweep now, then every
    `every_s`, until told to stop; a failed pass (the database away) is tried next time."""
    while True:
        try:
            close_old_connections()
            heartbeat(name)
            exercises_sweep()
        except Exception:
            log.exception("exercises sweep failed; retrying in %s s", every_s)
        if stop.wait(every_s):
            break
    connection.close()
