"""The cluster demos on the session's one-node local Ray: each runs, says plainly that one node
cannot show its claim, shows what it can, and touches nothing it should not. The two-node runs
are in tests/cluster/."""

import socket

import pytest

from apps.demos.ray_demos import DEMOS, Deadline, run_demo

pytestmark = pytest.mark.ray


def run_one_node(slug, **params):
    points = []
    summary = run_demo(slug, params, points.append, deadline=Deadline(90))
    return points, summary


def test_objects_on_one_node_are_read_zero_copy_and_the_verdict_says_one_node(ray_cluster):
    points, summary = run_one_node("cluster-objects", size_mb=4, trials=2)
    assert summary["claim"]["verdict"] == "inconclusive"
    assert "one node" in summary["claim"]["reason"]
    assert summary["figures"]["zero_copy"]["trials"] == [1, 1]
    assert {p["series"] for p in points} == {"same_node"}


def test_placement_on_one_node_still_shows_the_oversized_group_pending(ray_cluster):
    _, summary = run_one_node("cluster-placement", infeasible_wait_s=0.5)
    assert summary["claim"]["verdict"] == "inconclusive"
    assert "one node" in summary["claim"]["reason"]
    assert summary["infeasible_state"] == "PENDING"
    assert summary["free_cpus_while_pending"] >= summary["free_cpus_before"]  # took nothing
    assert len(set(summary["pack_bundles_on"])) == 1


def test_scheduling_reports_the_impossible_task_as_never_started(ray_cluster):
    _, summary = run_one_node("cluster-scheduling", tasks=2, unschedulable_wait_s=0.5)
    assert summary["unschedulable_ran"] is False
    assert summary["claim"]["verdict"] == "inconclusive"  # no resource one node alone offers


def test_node_failure_kills_nothing_without_the_chaos_resource(ray_cluster):
    _, summary = run_one_node("cluster-node-failure")
    assert summary["claim"]["verdict"] == "inconclusive"
    assert "raydeck-chaos" in summary["claim"]["reason"]
    assert summary["effect"] == "no node was killed"
    assert ray_cluster.is_initialized() and len(ray_cluster.nodes()) == 1


def test_every_cluster_demo_has_a_test_here():
    assert {d.slug for d in DEMOS if d.slug.startswith("cluster-")} == {
        "cluster-objects", "cluster-placement", "cluster-scheduling", "cluster-node-failure",
    }  # fmt: skip


def test_reachable_says_why_nothing_answers_and_nothing_when_something_does(monkeypatch, tmp_path):
    from apps.demos.ray_runtime import reachable

    recorded = tmp_path / "ray_current_cluster"
    monkeypatch.setattr("config.ray_address.RAY_CURRENT_CLUSTER", recorded)
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        recorded.write_text(f"127.0.0.1:{port}\n")
        assert reachable(f"ray://127.0.0.1:{port}") is None
        assert reachable(f"127.0.0.1:{port}") is None
        assert reachable("auto") is None  # the cluster `ray start --head` recorded
    assert "refused" in reachable(f"ray://127.0.0.1:{port}").lower()
    assert "refused" in reachable("auto").lower()
    recorded.unlink()
    assert "no Ray cluster was started" in reachable("auto")
