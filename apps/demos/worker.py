"""The worker side of the demos: claim a run, run it on Ray, stream its points, always end it;
and the reaper that fails runs whose worker is gone. Runs in the Celery worker (and the
`reap_demo_runs` command), never in a web request; Ray comes in through apps.demos.ray_runtime,
which the task passes in, so importing this module imports no Ray."""

from __future__ import annotations

import logging
import math
import os
import socket
import time
from datetime import timedelta

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone

from apps.demos.models import DemoPoint, DemoRun
from apps.demos.ray_demos import (
    Deadline,
    DeadlineExceeded,
    DemoCancelled,
    DemoUnavailable,
    ParamError,
    run_demo,
)
from config.workers import Heartbeat, reaper

log = logging.getLogger(__name__)
Status = DemoRun.Status

DATABASE_ERRORS = (OperationalError, InterfaceError)
# How long a running demo waits out an unreachable database (a restart takes a few seconds)
# before it gives up; its points wait in memory meanwhile.
DATABASE_GRACE_S = 30.0


def with_database(write, *, grace_s: float = DATABASE_GRACE_S):
    """Run `write`, trying again on a fresh connection while the database is away, for up to
    grace_s; then the error goes up."""
    started = time.monotonic()
    while True:
        try:
            return write()
        except DATABASE_ERRORS:
            connection.close()
            if time.monotonic() - started >= grace_s:
                raise
            log.warning("database unreachable; trying again", exc_info=True)
            time.sleep(0.5)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def json_safe(value):
    """NaN and infinities as null: JSON has no such numbers, so PostgreSQL and SQLite refuse
    the whole row (RLlib reports NaN returns before its first finished episode)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    return value


class _Recorder:
    """The demo's report(): buffers points and writes them a few times a second, with the
    progress and a heartbeat; also answers "was this run cancelled?" for the deadline."""

    FLUSH_EVERY_S = 0.25

    def __init__(self, run: DemoRun):
        spec = run.spec
        if spec is None:  # services.demo_run_create takes registered demos only
            raise LookupError(f"demo {run.demo!r} is not in the catalogue")
        self.run_id, self.spec, self.params = run.pk, spec, run.params
        self.buffer: list[DemoPoint] = []
        self.seq, self.last_flush = run.last_seq, 0.0
        self.cancelled_flag, self.last_cancel_check = False, 0.0
        self.database_away_since: float | None = None
        self.waiting_for = ""

    def waiting(self, what: str | None) -> None:
        """Show on the run's page what the demo waits for (free CPUs, its actors); None: nothing.
        Written only when it changes: a wait polls every 0.1 s."""
        what = (what or "")[:200]
        if what == self.waiting_for:
            return
        self.waiting_for = what
        try:
            DemoRun.objects.filter(pk=self.run_id).update(waiting=what)
        except DATABASE_ERRORS:
            connection.close()  # the page shows it a moment later, or not: the wait goes on

    def start_over(self) -> None:
        """Forget the points of an attempt that lost its cluster: the retry draws its own."""
        self.buffer = []
        with_database(lambda: DemoPoint.objects.filter(run_id=self.run_id).delete())

    def __call__(self, point: dict) -> None:
        self.seq += 1
        self.buffer.append(DemoPoint(run_id=self.run_id, seq=self.seq, data=json_safe(point)))
        if time.monotonic() - self.last_flush >= self.FLUSH_EVERY_S:
            self.flush()

    def flush(self, *, final: bool = False) -> None:
        """Store the buffered points. While the database is away (a restart), the demo goes on
        and the points wait for the next flush, for up to DATABASE_GRACE_S; the final flush
        waits for the database instead."""
        self.last_flush = time.monotonic()
        if not self.buffer:
            return
        if final:
            with_database(self._write)
            return
        try:
            self._write()
        except DATABASE_ERRORS:
            connection.close()
            self.database_away_since = self.database_away_since or time.monotonic()
            if time.monotonic() - self.database_away_since >= DATABASE_GRACE_S:
                raise
            log.warning("demo run %s: points kept until the database is back", self.run_id)
            return
        self.database_away_since = None

    def _write(self) -> None:
        expected = max(1, self.spec.expected_points(self.params))
        with transaction.atomic():
            # A retry after a lost COMMIT answer may send points already stored: skip those.
            DemoPoint.objects.bulk_create(self.buffer, ignore_conflicts=True)
            DemoRun.objects.filter(pk=self.run_id).update(
                last_seq=self.seq,
                progress=min(0.99, self.seq / expected),
                heartbeat_at=timezone.now(),
            )
        self.buffer = []

    def cancelled(self) -> bool:
        if time.monotonic() - self.last_cancel_check >= 0.5:
            self.last_cancel_check = time.monotonic()
            try:
                self.cancelled_flag = DemoRun.objects.filter(
                    pk=self.run_id, cancel_requested=True
                ).exists()
            except DATABASE_ERRORS:
                connection.close()  # asked again in half a second; flush() bounds the wait
        return self.cancelled_flag


class _Heartbeat(Heartbeat):
    """Proves the worker is alive while a demo blocks between points (e.g. RLlib's build)."""

    def __init__(self, run_id: int, every_s: float):
        def beat():
            DemoRun.objects.filter(pk=run_id, status=Status.RUNNING).update(
                heartbeat_at=timezone.now()
            )

        super().__init__(beat, every_s, name=f"demo-heartbeat-{run_id}")
        self.run_id = run_id


def demo_run_claim(*, run_id: int, worker: str) -> bool:
    """Atomically move a queued run to running; False if it was not queued (a duplicate
    delivery, a cancel, or another worker got it first)."""
    now = timezone.now()
    return (
        DemoRun.objects.filter(pk=run_id, status=Status.QUEUED).update(
            status=Status.RUNNING, started_at=now, heartbeat_at=now, worker=worker
        )
        == 1
    )


def demo_run_fail_orphaned(*, run_id: int) -> bool:
    """Fail a run still "running" under a process of this host that no longer exists.

    Celery redelivers the task of a worker process that died mid-run (SIGKILL, out of
    memory): the run cannot be claimed again, but its dead owner is plain to see here, so
    the person gets the reason now instead of "no heartbeat" from the reaper a minute later.
    """
    owner = (
        DemoRun.objects.filter(pk=run_id, status=Status.RUNNING)
        .values_list("worker", flat=True)
        .first()
    )
    host, _, pid = (owner or "").rpartition(":")
    if host != socket.gethostname() or not pid.isdigit() or _process_exists(int(pid)):
        return False
    failed = DemoRun.objects.filter(pk=run_id, status=Status.RUNNING, worker=owner).update(
        status=Status.FAILED,
        finished_at=timezone.now(),
        error="The worker process running this demo died mid-run (killed, or out of "
        "memory); its Ray work went with it. Run it again.",
    )
    if failed:
        log.warning("demo run %s: its worker process %s had died; failed it", run_id, owner)
    return failed == 1


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def _finish(run_id: int, status: str, **fields) -> None:
    finished_at = timezone.now()
    with_database(
        lambda: DemoRun.objects.filter(pk=run_id, status=Status.RUNNING).update(
            status=status, finished_at=finished_at, waiting="", **fields
        )
    )


def demo_run_execute(
    *, run_id: int, connect=None, cluster_size=None, lost_connection=None, disconnect=None,
    what_was_lost=None,
) -> str | None:  # fmt: skip
    """Claim the run, run the demo on Ray, store its points and always end the run. A run
    whose connection to the cluster was lost is started again once, on a new connection.

    Returns the final status, or None when the run was not ours to execute. `connect`,
    `cluster_size`, `lost_connection`, `disconnect` and `what_was_lost` come from
    apps.demos.ray_runtime
    (passed in to keep Ray out of imports).
    """
    from celery.exceptions import SoftTimeLimitExceeded

    if not with_database(lambda: demo_run_claim(run_id=run_id, worker=worker_name())):
        if demo_run_fail_orphaned(run_id=run_id):
            return Status.FAILED
        log.info("demo run %s was not queued any more; nothing to do", run_id)
        return None
    run = with_database(lambda: DemoRun.objects.get(pk=run_id))
    recorder = _Recorder(run)
    heartbeat = _Heartbeat(run_id, settings.DEMOS_HEARTBEAT_S)
    heartbeat.start()
    deadline = Deadline(
        run.spec.time_limit_s, cancelled=recorder.cancelled, waiting=recorder.waiting
    )
    retried = ""
    try:
        while True:
            try:
                if connect is not None:
                    connect()
                if cluster_size is not None:
                    nodes, cpus = cluster_size()
                    DemoRun.objects.filter(pk=run_id).update(cluster_nodes=nodes, cluster_cpus=cpus)
                summary = run_demo(run.demo, run.params, recorder, deadline=deadline)
                break
            except Exception as exc:
                if retried or lost_connection is None or not lost_connection(exc):
                    raise
                lost = what_was_lost(exc) if what_was_lost else _readable(exc, prefix="")
                retried = (
                    f"the connection to the Ray cluster was lost ({lost}) and the run started "
                    "again on a new connection"
                )
                log.warning("demo run %s lost its Ray connection; trying once more", run_id,
                            exc_info=True)  # fmt: skip
                recorder.start_over()
                if disconnect is not None:
                    disconnect()
        if retried:
            summary["retried"] = retried
        recorder.flush(final=True)
        _finish(run_id, Status.SUCCEEDED, summary=json_safe(summary), progress=1.0)
        return Status.SUCCEEDED
    except DemoCancelled:
        recorder.flush(final=True)
        _finish(run_id, Status.CANCELLED, error="cancelled while running")
        return Status.CANCELLED
    except DeadlineExceeded as exc:
        recorder.flush(final=True)
        _finish(run_id, Status.FAILED, error=f"Stopped: {exc}.")
        return Status.FAILED
    except SoftTimeLimitExceeded:
        return _soft_limit(run, recorder)
    except (ParamError, DemoUnavailable) as exc:
        error = f"{exc} (after one retry: {retried})" if retried else str(exc)
        _finish(run_id, Status.FAILED, error=error)
        return Status.FAILED
    except Exception as exc:
        if _caused_by(exc, SoftTimeLimitExceeded):
            # A signal landing inside Ray's Cython wait comes out as a SystemError caused
            # by the soft limit: it is still the time limit.
            return _soft_limit(run, recorder)
        log.exception("demo run %s failed", run_id)
        try:
            recorder.flush(final=True)
        except Exception:
            log.exception("could not store the last points of demo run %s", run_id)
        error = _readable(exc)
        if retried:
            error = f"{error} (after one retry: {retried})"
        _finish(run_id, Status.FAILED, error=error)
        return Status.FAILED
    finally:
        heartbeat.stop()


def _caused_by(exc: BaseException, kind: type) -> bool:
    seen = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, kind):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return False


def _soft_limit(run: DemoRun, recorder: _Recorder) -> str:
    recorder.flush(final=True)
    _finish(
        run.pk, Status.FAILED, error=f"Stopped at the worker's time limit ({run.soft_limit_s} s)."
    )
    return Status.FAILED


def _readable(exc: Exception, *, prefix: str = "The demo failed: ") -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    name = type(exc).__name__
    return f"{prefix}{name}: {text[:400]}" if text else f"{prefix}{name}."


@reaper
def demo_runs_reap(*, stale_after_s: int | None = None, queued_after_s: int | None = None) -> int:
    """Fail runs whose worker stopped sending heartbeats, and runs no worker picked up."""
    stale_after_s = stale_after_s or settings.DEMOS_STALE_AFTER_S
    queued_after_s = queued_after_s or settings.DEMOS_QUEUED_TIMEOUT_S
    now = timezone.now()
    stale = DemoRun.objects.filter(
        status=Status.RUNNING, heartbeat_at__lt=now - timedelta(seconds=stale_after_s)
    )
    dead = 0
    for run in stale.only("pk", "demo", "started_at", "heartbeat_at"):
        error = (
            f"The worker running this demo stopped (no heartbeat for {stale_after_s} s). "
            "Run it again."
        )
        hard_limit_s = run.hard_limit_s
        # Celery's hard limit kills the worker process, so only heartbeats that went on until
        # a few seconds short of that limit tell the two apart.
        beat_for = 0.0
        if run.started_at and run.heartbeat_at:  # a stale run has a heartbeat (the filter)
            beat_for = (run.heartbeat_at - run.started_at).total_seconds()
        if hard_limit_s and beat_for >= hard_limit_s - 15:
            error = (
                f"Stopped at the worker's hard time limit ({hard_limit_s} s): the demo "
                "did not stop at its deadline. Try smaller parameters."
            )
        dead += DemoRun.objects.filter(pk=run.pk, status=Status.RUNNING).update(
            status=Status.FAILED, finished_at=now, error=error
        )
    unclaimed = DemoRun.objects.filter(
        status=Status.QUEUED, created_at__lt=now - timedelta(seconds=queued_after_s)
    ).update(
        status=Status.FAILED,
        finished_at=now,
        error=f"No demo worker picked this run up within {queued_after_s // 60} minutes: "
        "is the demos worker running?",
    )
    if dead or unclaimed:
        log.warning("reaped %s stale and %s unclaimed demo runs", dead, unclaimed)
    return dead + unclaimed
