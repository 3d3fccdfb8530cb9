"""Celery side of the demos: a thin task, one Ray connection per worker process, a reaper
thread. The work itself is apps.demos.worker.

Nothing here imports Ray at import time: the web process imports this module to enqueue.
"""

from __future__ import annotations

import logging
import threading

from celery import shared_task
from celery.signals import worker_process_init, worker_process_shutdown, worker_ready
from django.conf import settings

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


@worker_ready.connect
def _start_reaper(sender=None, **_):
    """Every worker's main process (demos or not) fails runs whose worker vanished or that no
    demos worker picked up, every DEMOS_REAP_EVERY_S: so even a deployment that forgot the
    demos worker tells its users why their run never started. The first pass runs in the
    thread too: a database still starting when the worker boots must not cost the reaper."""
    stop = threading.Event()
    thread = threading.Thread(
        target=worker.reaper_loop,
        args=(stop, settings.DEMOS_REAP_EVERY_S),
        daemon=True,
        name="demo-reaper",
    )
    thread.start()
    return thread, stop


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
