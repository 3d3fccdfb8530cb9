"""The run's state machine: the real task function, the real database, the real Ray."""

import math
import os
import signal
import socket
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from apps.demos import ray_runtime, services, worker
from apps.demos.models import DemoRun

pytestmark = [pytest.mark.ray, pytest.mark.django_db]
Status = DemoRun.Status


@pytest.fixture(autouse=True)
def quiet_heartbeat(settings):
    settings.DEMOS_HEARTBEAT_S = 3600  # the heartbeat thread stays asleep inside a test


def queued(user, demo="tasks-vs-actors", **params) -> DemoRun:
    return DemoRun.objects.create(user=user, demo=demo, params=params)


def execute(run, **kwargs):
    kwargs.setdefault("cluster_size", ray_runtime.cluster_size)
    return worker.demo_run_execute(run_id=run.pk, **kwargs)


def test_a_run_streams_its_points_and_succeeds(ray_cluster, alice):
    run = queued(alice, n_items=4, work_ms=10, trials=2)
    assert execute(run) == Status.SUCCEEDED
    run.refresh_from_db()
    assert run.status == Status.SUCCEEDED and run.progress == 1.0
    assert list(run.points.values_list("seq", flat=True)) == list(range(1, 7))
    assert run.last_seq == 6
    assert run.summary["figures"]["actor_count"]["trials"] == [4, 4]
    assert run.summary["claim"]["verdict"] in {"shown", "not_shown", "inconclusive"}
    assert run.summary["conditions"]["ray_cpus"] == 2
    assert run.started_at <= run.finished_at
    assert run.worker and run.cluster_cpus == 2 and run.cluster_nodes == 1


def test_a_nan_point_or_summary_is_stored_as_null_and_charted_without_it(alice, client):
    """JSON has no NaN: the database refused the row and the run failed with an IntegrityError."""
    run = queued(alice, demo="vtrace", max_lag=1)
    worker.demo_run_claim(run_id=run.pk, worker="host:1")
    record = worker._Recorder(DemoRun.objects.get(pk=run.pk))
    record({"series": "vtrace", "x": 0, "y": float("nan")})
    record({"series": "vtrace", "x": 1, "y": 0.25})
    record.flush()
    worker._finish(run.pk, Status.SUCCEEDED, summary=worker.json_safe({"ratio": math.inf}))
    run.refresh_from_db()
    assert run.status == Status.SUCCEEDED and run.summary == {"ratio": None}
    assert [p.data["y"] for p in run.points.all()] == [None, 0.25]
    client.force_login(alice)
    page = client.get(run.get_absolute_url()).content.decode()
    assert page.count("<circle") == 1  # the null point is left out of the chart


def test_a_run_is_claimed_once(ray_cluster, alice):
    run = queued(alice, n_items=1, work_ms=1)
    assert worker.demo_run_claim(run_id=run.pk, worker="w1") is True
    assert worker.demo_run_claim(run_id=run.pk, worker="w2") is False
    assert execute(run) is None  # a redelivered message finds nothing to do
    assert DemoRun.objects.get(pk=run.pk).worker == "w1"


def test_a_redelivered_run_whose_worker_process_died_fails_at_once(alice):
    """acks_late + reject_on_worker_lost redeliver the task of a SIGKILLed worker process: the
    new delivery cannot claim the run, but fails it with the reason instead of leaving it
    "running" until the reaper."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    host = socket.gethostname()
    dead, alive, elsewhere = queued(alice), queued(alice), queued(alice)
    worker.demo_run_claim(run_id=dead.pk, worker=f"{host}:{gone.pid}")
    worker.demo_run_claim(run_id=alive.pk, worker=f"{host}:{os.getpid()}")
    worker.demo_run_claim(run_id=elsewhere.pk, worker="another-host:1")

    assert execute(dead, cluster_size=None) == Status.FAILED
    assert execute(alive, cluster_size=None) is None
    assert execute(elsewhere, cluster_size=None) is None

    dead.refresh_from_db(), alive.refresh_from_db(), elsewhere.refresh_from_db()
    assert dead.status == Status.FAILED and dead.finished_at
    assert "worker process running this demo died mid-run" in dead.error
    assert alive.status == elsewhere.status == Status.RUNNING


def test_an_exception_fails_the_run_with_a_readable_reason(alice):
    run = queued(alice)

    def unreachable():
        raise ConnectionError("Could not reach Ray at 10.0.0.9:6379")

    assert execute(run, connect=unreachable, cluster_size=None) == Status.FAILED
    run.refresh_from_db()
    assert run.error == "The demo failed: ConnectionError: Could not reach Ray at 10.0.0.9:6379"
    assert run.finished_at is not None


def test_a_soft_time_limit_stops_a_blocked_run_and_frees_ray(ray_cluster, alice):
    # Celery delivers its soft limit as a signal whose handler raises SoftTimeLimitExceeded.
    def soft_limit(*_):
        raise SoftTimeLimitExceeded()

    previous = signal.signal(signal.SIGALRM, soft_limit)
    run = queued(alice, n_items=64, work_ms=500)
    start = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        assert execute(run) == Status.FAILED
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - start < 6
    run.refresh_from_db()
    assert "time limit" in run.error
    until = time.monotonic() + 10
    while ray_cluster.available_resources().get("CPU", 0) < 2 and time.monotonic() < until:
        time.sleep(0.1)
    assert ray_cluster.available_resources().get("CPU", 0) == 2


def test_a_cancel_while_running_ends_the_run_cancelled(ray_cluster, alice):
    run = queued(alice, n_items=64, work_ms=500)
    DemoRun.objects.filter(pk=run.pk).update(cancel_requested=True)
    assert execute(run) == Status.CANCELLED
    assert DemoRun.objects.get(pk=run.pk).error == "cancelled while running"


def test_a_queued_run_is_cancelled_at_once(alice):
    run = services.demo_run_cancel(run=queued(alice))
    assert run.status == Status.CANCELLED and run.finished_at


def test_the_reaper_fails_runs_whose_worker_vanished(alice):
    gone = queued(alice)
    worker.demo_run_claim(run_id=gone.pk, worker="host:123")
    DemoRun.objects.filter(pk=gone.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=5))
    alive = queued(alice)
    worker.demo_run_claim(run_id=alive.pk, worker="host:456")
    forgotten = queued(alice)
    DemoRun.objects.filter(pk=forgotten.pk).update(created_at=timezone.now() - timedelta(hours=1))

    call_command("reap_demo_runs", stdout=__import__("io").StringIO())

    gone.refresh_from_db(), alive.refresh_from_db(), forgotten.refresh_from_db()
    assert gone.status == Status.FAILED and "stopped (no heartbeat for 60 s)" in gone.error
    assert alive.status == Status.RUNNING
    assert forgotten.status == Status.FAILED and "is the demos worker running?" in forgotten.error


def test_the_reaper_names_the_hard_time_limit_when_it_killed_the_worker(alice):
    """vtrace: deadline 60 s, Celery's hard limit 105 s. A run that beat until then was killed
    by the limit; one whose beats stopped early lost its worker some other way."""
    now = timezone.now()
    killed, lost = queued(alice, demo="vtrace"), queued(alice, demo="vtrace")
    for run, started_s_ago in ((killed, 170), (lost, 170)):
        worker.demo_run_claim(run_id=run.pk, worker="host:1")
        DemoRun.objects.filter(pk=run.pk).update(started_at=now - timedelta(seconds=started_s_ago))
    DemoRun.objects.filter(pk=killed.pk).update(heartbeat_at=now - timedelta(seconds=65))
    DemoRun.objects.filter(pk=lost.pk).update(heartbeat_at=now - timedelta(seconds=150))

    assert worker.demo_runs_reap() == 2

    killed.refresh_from_db(), lost.refresh_from_db()
    assert killed.error.startswith("Stopped at the worker's hard time limit (105 s)")
    assert "stopped (no heartbeat for 60 s)" in lost.error


def test_create_validates_limits_and_waits_for_the_commit(
    alice, settings, django_capture_on_commit_callbacks
):
    settings.DEMOS_MAX_ACTIVE_RUNS_PER_USER = 2
    with pytest.raises(services.BadParams, match="n_items must be between 1 and 64, got 500"):
        services.demo_run_create(user=alice, demo="tasks-vs-actors", params={"n_items": 500})
    with pytest.raises(services.BadParams, match="unknown demo 'nope'"):
        services.demo_run_create(user=alice, demo="nope", params={})
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = services.demo_run_create(user=alice, demo="vtrace", params={"max_lag": "3"})
        services.demo_run_create(user=alice, demo="vtrace", params={})
    assert len(callbacks) == 2  # the task is sent only once the row is committed
    assert run.params["max_lag"] == 3 and run.params["episodes"] == 200
    with pytest.raises(services.TooManyRuns, match="already have 2 demo runs"):
        services.demo_run_create(user=alice, demo="vtrace", params={})


@pytest.mark.django_db(transaction=True)
def test_heartbeats_go_on_after_the_database_drops_the_connection(alice):
    """A heartbeat that failed once used to end the thread: the reaper then failed a live run."""
    if connection.vendor != "postgresql":
        pytest.skip("drops a server-side connection: PostgreSQL only")
    run = queued(alice)
    worker.demo_run_claim(run_id=run.pk, worker="host:1")
    old = timezone.now() - timedelta(minutes=5)
    DemoRun.objects.filter(pk=run.pk).update(heartbeat_at=old)
    heartbeat = worker._Heartbeat(run.pk, every_s=0.05)
    heartbeat.start()
    try:
        until = time.monotonic() + 5
        while not DemoRun.objects.filter(pk=run.pk, heartbeat_at__gt=old).exists():
            assert time.monotonic() < until
            time.sleep(0.02)
        with connection.cursor() as cursor:  # drop the heartbeat thread's connection
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        time.sleep(0.3)  # at least one beat fails on the dropped connection
        DemoRun.objects.filter(pk=run.pk).update(heartbeat_at=old)
        until = time.monotonic() + 5
        while not DemoRun.objects.filter(pk=run.pk, heartbeat_at__gt=old).exists():
            assert heartbeat.is_alive(), "the heartbeat thread died"
            assert time.monotonic() < until, "no heartbeat after the connection dropped"
            time.sleep(0.05)
    finally:
        heartbeat.stop()


def lost_once(times=1):
    """cluster_size as the worker calls it after connecting, losing the connection `times`."""
    calls = []

    def cluster_size():
        calls.append(1)
        if len(calls) <= times:
            raise ConnectionError("Ray client connection lost: the server went away")
        return ray_runtime.cluster_size()

    return cluster_size


def test_a_lost_cluster_connection_is_retried_once_and_the_run_ends(ray_cluster, alice):
    run = queued(alice, demo="vtrace", max_lag=1, episodes=20, trials=1)
    status = worker.demo_run_execute(
        run_id=run.pk, cluster_size=lost_once(), lost_connection=ray_runtime.lost_connection,
        disconnect=lambda: None, what_was_lost=ray_runtime.what_was_lost,
    )  # fmt: skip
    assert status == Status.SUCCEEDED
    run.refresh_from_db()
    assert run.summary["retried"] == (
        "the connection to the Ray cluster was lost (ConnectionError: Ray client connection "
        "lost: the server went away) and the run started again on a new connection"
    )
    assert run.summary["claim"]["verdict"] in ("shown", "not_shown", "inconclusive")
    assert list(run.points.values_list("seq", flat=True)) == list(range(1, run.last_seq + 1))


def test_a_connection_lost_twice_fails_the_run_saying_it_was_retried(ray_cluster, alice):
    run = queued(alice, demo="vtrace", max_lag=1, episodes=20, trials=1)
    status = worker.demo_run_execute(
        run_id=run.pk, cluster_size=lost_once(times=2),
        lost_connection=ray_runtime.lost_connection, disconnect=lambda: None,
    )  # fmt: skip
    assert status == Status.FAILED
    run.refresh_from_db()
    assert run.error.startswith("The demo failed: ConnectionError: Ray client connection lost")
    assert "(after one retry: the connection to the Ray cluster was lost" in run.error


def test_what_a_running_demo_waits_for_is_on_its_row_and_cleared_at_the_end(alice):
    run = queued(alice, demo="vtrace")
    worker.demo_run_claim(run_id=run.pk, worker="host:1")
    recorder = worker._Recorder(DemoRun.objects.get(pk=run.pk))
    recorder.waiting("waiting for 2 free CPUs (1 of 2 free)")
    assert DemoRun.objects.get(pk=run.pk).waiting == "waiting for 2 free CPUs (1 of 2 free)"
    worker._finish(run.pk, Status.SUCCEEDED, summary={})
    assert DemoRun.objects.get(pk=run.pk).waiting == ""
