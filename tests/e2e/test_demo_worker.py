"""End to end: a real Celery worker process, the real broker and Ray run a demo started
through the API, and its points reach the database while it runs."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from apps.demos.models import DemoRun
from tests.demos.ray_session import ray_cluster  # noqa: F401  (the session fixture)

pytestmark = [pytest.mark.ray, pytest.mark.django_db(transaction=True)]
ROOT = Path(settings.BASE_DIR)


def _database_url() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"  # noqa: E501


@pytest.fixture
def demos_worker(ray_cluster):  # noqa: F811
    if connection.vendor != "postgresql":
        pytest.skip("the worker process needs a database it can share (CI runs PostgreSQL)")
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "CELERY_DATA_DIR": str(settings.CELERY_DATA_DIR),
        # The worker joins the test session's Ray, as a production worker joins a cluster.
        "RAY_ADDRESS": ray_cluster.get_runtime_context().gcs_address,
        "DEBUG": "true",
    }
    (ROOT / "var").mkdir(exist_ok=True)  # absent in a fresh clone using the Redis broker
    log = open(ROOT / "var" / "e2e-demos-worker.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--queues=demos",
         "--concurrency=1", "--hostname=e2e-demos@%h", "--without-gossip", "--without-mingle",
         "--loglevel=INFO"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    yield proc
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    log.close()


def test_a_run_started_through_the_api_streams_points_and_succeeds(demos_worker, api_client, alice):
    api_client.force_authenticate(alice)
    response = api_client.post(
        "/api/demo-runs/",
        {"demo": "tasks-vs-actors", "params": {"n_items": 8, "work_ms": 150}},
        format="json",
    )
    assert response.status_code == 202, response.json()
    run_id = response.json()["id"]

    seen_points_while_running, deadline = False, time.monotonic() + 120
    while time.monotonic() < deadline:
        assert demos_worker.poll() is None, "the worker process died: see var/e2e-demos-worker.log"
        body = api_client.get(f"/api/demo-runs/{run_id}/").json()
        if body["status"] == "running" and body["points"]:
            seen_points_while_running = True
        if body["status"] not in ("queued", "running"):
            break
        time.sleep(0.1)
    assert body["status"] == "succeeded", body["error"]
    assert seen_points_while_running
    assert len(body["points"]) == 9 and body["progress"] == 1.0  # 3 modes x 3 trials
    assert body["summary"]["figures"]["actor_count"]["trials"] == [8, 8, 8]
    assert body["summary"]["claim"]["verdict"] in {"shown", "not_shown", "inconclusive"}
    run = DemoRun.objects.get(pk=run_id)
    assert run.cluster_cpus == 2 and run.worker
