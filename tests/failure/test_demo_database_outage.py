"""A demo running while its database is unreachable for a few seconds (a restart) goes on: its
points wait in the worker and are stored when the database is back, and the run succeeds."""

import time

import pytest

from apps.demos.models import DemoRun
from tests.failure.conftest import log_text, refuse_connections
from tests.failure.test_worker_kill import finished, running_with_points, wait_for

pytestmark = [pytest.mark.ray, pytest.mark.django_db(transaction=True)]


def test_a_demo_runs_through_a_database_outage_and_keeps_every_point(
    demo_workers, api_client, alice
):
    worker = demo_workers.start("db-outage", DEMOS_HEARTBEAT_S="1")
    api_client.force_authenticate(alice)
    # A point per way per trial, about one a second for ~20 s: the outage falls between points.
    params = {"n_items": 6, "work_ms": 200, "trials": 7}
    response = api_client.post(
        "/api/demo-runs/", {"demo": "tasks-vs-actors", "params": params}, format="json"
    )
    run_id = response.json()["id"]
    wait_for(lambda: running_with_points(run_id), within=60, what="the run to stream",
             workers=[worker])  # fmt: skip

    refuse_connections(False)  # the worker's connections are cut, and new ones refused
    try:
        time.sleep(3)
    finally:
        refuse_connections(True)

    run = wait_for(lambda: finished(run_id), within=60, what="the run to end", workers=[worker])
    assert run.status == DemoRun.Status.SUCCEEDED, run.error
    assert list(run.points.values_list("seq", flat=True)) == list(range(1, 3 * 7 + 1))
    assert run.last_seq == 21 and run.progress == 1.0
    assert "points kept until the database is back" in log_text(worker)
