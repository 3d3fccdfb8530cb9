"""A demos worker SIGKILLed mid-run, with the real Celery worker, Redis broker, PostgreSQL and Ray:
the run ends failed with a reason within a bound, never stays "running"; a later redelivery of
its message changes nothing; a run whose message is lost does not stay "queued"."""

from __future__ import annotations

import os
import signal
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from apps.demos.models import DemoRun
from tests.failure.conftest import log_text

pytestmark = [pytest.mark.ray, pytest.mark.django_db(transaction=True)]
Status = DemoRun.Status
# About 30 s of work on two CPUs, streaming a point every few hundred milliseconds.
LONG_RUN = {"demo": "tasks-vs-actors", "params": {"n_items": 40, "work_ms": 300}}


def start_run(api_client, user) -> int:
    api_client.force_authenticate(user)
    response = api_client.post("/api/demo-runs/", LONG_RUN, format="json")
    assert response.status_code == 202, response.json()
    return response.json()["id"]


def wait_for(predicate, *, within: float, what: str, workers=()):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        for proc in workers:
            assert proc.poll() is None, f"a worker died by itself: see {proc.log.name}"
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {within} s: {what}")


def running_with_points(run_id):
    run = DemoRun.objects.get(pk=run_id)
    assert run.status in DemoRun.ACTIVE, (run.status, run.error)
    return run if run.status == Status.RUNNING and run.last_seq > 0 else None


def finished(run_id):
    run = DemoRun.objects.get(pk=run_id)
    return run if run.status not in DemoRun.ACTIVE else None


def test_a_killed_pool_process_fails_its_run_with_the_reason_when_the_task_comes_back(
    demo_workers, api_client, alice
):
    """acks_late + reject_on_worker_lost: the main process sees its child die and puts the
    message back; the fresh child cannot claim the run, finds its owner dead and fails it."""
    worker = demo_workers.start("kill-child")
    run_id = start_run(api_client, alice)
    run = wait_for(lambda: running_with_points(run_id), within=60, what="the run to stream",
                   workers=[worker])  # fmt: skip
    host, _, pid = run.worker.rpartition(":")
    assert int(pid) != worker.pid  # the pool child, not the main process

    os.kill(int(pid), signal.SIGKILL)
    killed_at = time.monotonic()
    run = wait_for(lambda: finished(run_id), within=30, what="the run to end", workers=[worker])
    took = time.monotonic() - killed_at

    assert run.status == Status.FAILED
    assert run.error.startswith("The worker process running this demo died mid-run")
    body = api_client.get(f"/api/demo-runs/{run_id}/").json()
    assert body["status"] == "failed" and "died mid-run" in body["error"]
    print(f"\npool process killed: run failed {took:.1f} s later")


def test_a_killed_worker_fails_its_run_by_heartbeat_and_a_late_redelivery_changes_nothing(
    demo_workers, api_client, alice
):
    """The whole worker dies: nothing puts the message back (Redis redelivers an unacked message
    only after its visibility timeout, an hour), so the reaper of whichever worker runs next
    fails the run once its heartbeats stop. When the message does come back, the claim refuses
    it. A run whose message was lost altogether is failed once DEMOS_QUEUED_TIMEOUT_S passes."""
    quick = {"DEMOS_HEARTBEAT_S": "1", "DEMOS_STALE_AFTER_S": "5", "REAP_EVERY_S": "1",
             "DEMOS_QUEUED_TIMEOUT_S": "60"}  # fmt: skip
    first = demo_workers.start("kill-all-1", **quick)
    run_id = start_run(api_client, alice)
    wait_for(lambda: running_with_points(run_id), within=60, what="the run to stream",
             workers=[first])  # fmt: skip
    lost = DemoRun.objects.create(user=alice, demo="tasks-vs-actors", params={})  # no message
    DemoRun.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(seconds=61))

    os.killpg(first.pid, signal.SIGKILL)
    killed_at = time.monotonic()
    first.wait(timeout=10)
    second = demo_workers.start("kill-all-2", **quick)
    run = wait_for(lambda: finished(run_id), within=30, what="the reaper", workers=[second])
    took = time.monotonic() - killed_at
    assert run.status == Status.FAILED
    assert run.error == "The worker running this demo stopped (no heartbeat for 5 s). Run it again."
    lost = wait_for(lambda: finished(lost.pk), within=10, what="the lost run", workers=[second])
    assert lost.error.startswith("No demo worker picked this run up within 1 minutes")

    # The dead worker's message, still unacked in Redis, comes back (as it would after the
    # visibility timeout): the fresh worker receives it and leaves the failed run alone.
    for attempt in range(3):  # a restore skips a pass while a worker holds kombu's mutex
        assert redeliver_unacked() >= 1, "the dead worker's message was not left unacked"
        try:
            wait_for(lambda: "was not queued any more; nothing to do" in log_text(second),
                     within=10, what="the redelivered task to run", workers=[second])  # fmt: skip
            break
        except AssertionError:
            if attempt == 2:
                raise
    again = DemoRun.objects.get(pk=run_id)
    assert (again.status, again.error, again.finished_at) == (run.status, run.error,
                                                              run.finished_at)  # fmt: skip
    assert again.points.count() == again.last_seq
    print(f"\nworker killed: run failed by the next worker's reaper {took:.1f} s later")


def redeliver_unacked() -> int:
    """Do now what kombu's Redis transport does an hour after a consumer vanished: put its
    unacked messages back on their queues. Returns how many were unacked before (a live
    worker takes a restored message at once, so counting afterwards would race it)."""
    from kombu import Connection

    with Connection(settings.CELERY_BROKER_URL, transport_options={"visibility_timeout": 0}) as c:
        channel = c.default_channel
        client = channel.client
        unacked = client.zcard(channel.unacked_index_key)
        channel.qos.restore_visible(num=100)
        return unacked
