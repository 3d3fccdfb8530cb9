"""Celery side of the demos: a thin task, one Ray connection per worker process. The work itself
is apps.demos.worker (its reaper runs in every worker's reaper thread, config/workers.py).

Nothing here imports Ray at import time: the web process imports this module to enqueue.
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_process_init, worker_process_shutdown

from apps.demos import worker

log = logging.getLogger(__name__)


def _serves_demos(app) -> bool:
    queues = getattr(app.amqp.queues, "consume_from", None) or {}
    return "demos" in queues


@worker_process_init.connect
def _connect_ray(**_):
    """Connect each prefork child to Ray once, after the fork (never before it)."""
    from celery import current_app

    if not _serves_demos(current_app):
        return
    from apps.demos import ray_runtime

    try:
        ray_runtime.connect()
    except Exception:  # the task connects again and fails its run with the reason
        log.exception("could not connect to Ray at worker start")


@worker_process_shutdown.connect
def _disconnect_ray(**_):
    import sys

    if "ray" in sys.modules:
        from apps.demos import ray_runtime

        ray_runtime.disconnect()


@shared_task(
    name="demos.execute_run",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
)
def demo_run_execute_task(self, run_id: int) -> str | None:
    from apps.demos import ray_runtime

    try:
        return worker.demo_run_execute(
            run_id=run_id,
            connect=ray_runtime.connect,
            cluster_size=ray_runtime.cluster_size,
            lost_connection=ray_runtime.lost_connection,
            disconnect=ray_runtime.disconnect,
            what_was_lost=ray_runtime.what_was_lost,
        )
    except worker.DATABASE_ERRORS as exc:
        # The database stayed away past the run's grace: send the task again for later rather
        # than lose it (acked as failed, a queued run would wait for the reaper's 15 minutes).
        # A run this worker already started is refused by the claim and left to the reaper.
        raise self.retry(exc=exc, countdown=5, max_retries=12) from exc
