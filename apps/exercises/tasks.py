"""Celery side of exercises: thin tasks on the `exercises` queue, a sandbox probe in each worker
process, and the sweep thread in the worker's main process. The work is apps.exercises.worker."""

from __future__ import annotations

import logging
import threading

from celery import shared_task
from celery.signals import worker_process_init, worker_ready
from django.conf import settings

from apps.exercises import worker

log = logging.getLogger(__name__)


def _serves_exercises(app) -> bool:
    queues = getattr(app.amqp.queues, "consume_from", None) or {}
    return "exercises" in queues


@worker_process_init.connect
def _probe_sandbox(**_):
    """Each prefork child finds out once, at start, whether its sandbox runs (so the first
    learner's run does not pay for it)."""
    from celery import current_app

    if _serves_exercises(current_app):
        reason = worker.sandbox_reason()
        if reason:
            log.error("exercises worker: the sandbox cannot start: %s", reason)


@worker_ready.connect
def _start_sweep(sender=None, **_):
    """The exercises worker's main process beats its heartbeat (so pages can tell a worker with
    no sandbox from no worker at all) and sweeps lost and stuck jobs."""
    from celery import current_app

    if not _serves_exercises(current_app):
        return None
    stop = threading.Event()
    name = getattr(sender, "hostname", None) or worker.worker_name()
    thread = threading.Thread(
        target=worker.sweep_loop, args=(stop, settings.EXERCISES_SWEEP_S, name), daemon=True,
        name="exercises-sweep",
    )  # fmt: skip
    thread.start()
    return thread, stop


# The run's own wall-clock limit (EXERCISES_WALL_S, at most 30 s; EXERCISES_RAY_WALL_S, at most
# 180 s, for an exercise that runs Ray) stops it first; Celery's limits stop a worker process
# stuck outside the sandbox. A check runs 1 + wrong solutions sandboxes.
@shared_task(
    name="exercises.submission_run",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    soft_time_limit=240,
    time_limit=270,
)
def submission_run_task(submission_id: int) -> str | None:
    return worker.submission_run(submission_id=submission_id)


@shared_task(
    name="exercises.revision_check",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    soft_time_limit=900,
    time_limit=960,
)
def revision_check_task(revision_id: int) -> str | None:
    return worker.revision_check_run(revision_id=revision_id)
