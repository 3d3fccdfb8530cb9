"""Every demo through the Celery demos worker on a real two-node Ray cluster, joined by Ray
Client; a node killed under a run; the cluster down when a run starts."""

from __future__ import annotations

import time

import pytest

from apps.demos.models import DemoRun
from apps.demos.ray_demos import DEMOS, is_available
from tests.failure.conftest import Workers, free_port

pytestmark = [pytest.mark.ray, pytest.mark.django_db(transaction=True)]
Status = DemoRun.Status

# Small runs: the point is that each demo works through the cluster, not its figures.
QUICK = {
    "n_items": 6, "work_ms": 60, "size_mb": 40, "n_readers": 4, "max_actors": 2,
    "seconds_per_point": 0.5, "rounds": 4, "max_lag": 3, "episodes": 50, "hidden": 64,
    "seconds_per_mode": 0.5, "steps": 6, "kill_at_step": 3, "cpus_per_job": 2,
    "piecemeal_wait_s": 0.5, "infeasible_wait_s": 0.5, "unschedulable_wait_s": 0.5,
    "trials": 2, "perturb_every": 2, "iterations": 1,
    "env_runners": 0, "batch_size": 200, "object_mb": 10,
}  # fmt: skip
# The node-failure demo kills node b: it runs last, and the cluster is whole again after it.
ORDER = sorted(DEMOS, key=lambda spec: spec.slug == "cluster-node-failure")


def quick_params(spec) -> dict:
    names = {p.name for p in spec.params}
    params = {k: v for k, v in QUICK.items() if k in names}
    if "kill_at_step" in params and "steps" in params:
        params["kill_at_step"] = min(params["kill_at_step"], params["steps"] - 1)
    return params


def start(api_client, user, demo: str, params: dict) -> int:
    api_client.force_authenticate(user)
    response = api_client.post("/api/demo-runs/", {"demo": demo, "params": params}, format="json")
    assert response.status_code == 202, response.json()
    return response.json()["id"]


def wait_until(predicate, *, within: float, what: str):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"not within {within} s: {what}")


def ended(run_id: int) -> DemoRun | None:
    run = DemoRun.objects.get(pk=run_id)
    return run if run.status not in DemoRun.ACTIVE else None


def test_every_demo_runs_through_the_worker_on_the_two_node_cluster(
    two_nodes, cluster_worker, api_client, alice
):
    seen = {}
    # Whole once: no demo but the last (node failure) stops a node, and each run's own
    # cluster_nodes == 2 below says it met both (a `nodes` check per demo cost a Ray driver each).
    two_nodes.wait_for_nodes(2)
    for spec in ORDER:
        if not is_available(spec):
            continue
        posted = time.monotonic()
        run_id = start(api_client, alice, spec.slug, quick_params(spec))
        first = wait_until(
            lambda rid=run_id: ended(rid) or DemoRun.objects.get(pk=rid).last_seq > 0,
            within=180,
            what=f"{spec.slug}'s first point",
        )
        first_point_s = time.monotonic() - posted
        run = first if isinstance(first, DemoRun) else None
        run = run or wait_until(lambda rid=run_id: ended(rid), within=180, what=spec.slug)
        assert run.status == Status.SUCCEEDED, (spec.slug, run.error)
        assert run.cluster_nodes == 2, spec.slug  # it ran on the cluster, not a local Ray
        seen[spec.slug] = (first_point_s, run.summary)
        print(f"\n{spec.slug}: first point {first_point_s:.1f} s, total {run.duration_s:.1f} s")

    # What only a cluster shows, checked from each run's own measurements.
    objects = seen["cluster-objects"][1]
    assert objects["nodes"] == 2 and objects["figures"]["mb_moved"]["min"] == 40
    assert (
        objects["figures"]["other_node_ms"]["median"] > objects["figures"]["same_node_ms"]["median"]
    )
    breaches = {slug: run["claim"]["breaches"] for slug, (_, run) in seen.items()}
    assert not any(breaches.values()), breaches  # sound measurements; the message names them
    placement = seen["cluster-placement"][1]
    assert placement["claim"]["verdict"] == "shown", placement
    assert len(set(placement["spread_bundles_on"])) == 2
    assert placement["infeasible_state"] == "PENDING"
    scheduling = seen["cluster-scheduling"][1]
    assert scheduling["claim"]["verdict"] == "shown", scheduling
    assert scheduling["tasks_on_that_node"] == scheduling["tasks"]
    failure = seen["cluster-node-failure"][1]
    assert failure["claim"]["verdict"] == "shown", failure
    assert failure["learner_nodes"][0] != failure["learner_nodes"][-1]
    assert failure["object_runs_on"][-1] != failure["killed_node"]


def test_a_node_killed_under_a_run_ends_the_run_instead_of_leaving_it_running(
    two_nodes, cluster_worker, api_client, alice
):
    two_nodes.wait_for_nodes(2)
    run_id = start(api_client, alice, "tasks-vs-actors", {"n_items": 16, "work_ms": 300})
    wait_until(lambda: DemoRun.objects.get(pk=run_id).last_seq > 2, within=120, what="points")
    assert "node b killed" in two_nodes.script("kill-b")
    killed_at = time.monotonic()
    run = wait_until(lambda: ended(run_id), within=150, what="the run to end after the kill")
    took = time.monotonic() - killed_at
    assert run.status in (Status.SUCCEEDED, Status.FAILED)
    if run.status == Status.FAILED:
        assert run.error, "a failed run says why"
    print(f"\nnode b killed mid-run: the run {run.status} {took:.1f} s later ({run.error})")
    two_nodes.wait_for_nodes(2)  # the supervisor brought a fresh node b back


def test_a_run_started_while_the_cluster_is_down_fails_at_once_saying_so(api_client, alice):
    from tests.failure.conftest import needs_postgresql, needs_redis_broker

    needs_postgresql()
    needs_redis_broker()
    nowhere = f"ray://127.0.0.1:{free_port()}"
    workers = Workers(nowhere)
    workers.start("no-cluster")
    try:
        posted = time.monotonic()
        run_id = start(api_client, alice, "vtrace", {})
        run = wait_until(lambda: ended(run_id), within=60, what="the run to fail")
        took = time.monotonic() - posted
    finally:
        workers.stop_all()
    assert run.status == Status.FAILED
    assert run.error.startswith(f"Ray cluster unreachable at {nowhere}"), run.error
    print(f"\ncluster down: the run failed {took:.1f} s after it was posted")
