"""Each demo's pure function, with tiny parameters, against one real local Ray."""

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from apps.demos.ray_demos import (
    DEMOS,
    VERDICTS,
    Deadline,
    DeadlineExceeded,
    DemoCancelled,
    get_demo,
    is_available,
    run_demo,
)
from apps.demos.ray_demos.claims import SHOWN, Conditions, consistent

pytestmark = pytest.mark.ray


def run_tiny(slug, budget_s=90, **params):
    points = []
    summary = run_demo(slug, params, points.append, deadline=Deadline(budget_s))
    summary["_params"] = {**get_demo(slug).defaults(), **params}
    return points, summary


def series(points, name):
    return [p for p in points if p["series"] == name]


def judged(slug, summary):
    """The verdict is one of the three and agrees with the figures it was drawn from; a verdict
    other than "shown" always says why. Returns the verdict."""
    spec = get_demo(slug)
    claim = summary["claim"]
    assert claim["verdict"] in VERDICTS and claim["text"] == spec.claim.text
    c = summary["conditions"]
    conditions = Conditions(c["load_1m"], c["machine_cpus"], c["ray_cpus"], c["cold"],
                            c["ray_cpus_free"])  # fmt: skip
    assert consistent(spec.claim, summary, summary["_params"], conditions), summary["claim"]
    assert claim["reason"] and len(claim["parts"]) == len(spec.claim.checks)
    assert not claim["breaches"], claim["breaches"]  # a sound measurement breaks no bound
    for figure in summary["figures"].values():
        if figure["trials"]:
            assert figure["min"] <= figure["median"] <= figure["max"]
    assert set(summary["conditions"]) >= {"load_1m", "machine_cpus", "ray_cpus", "cold", "busy",
                                          "ray_cpus_free"}  # fmt: skip
    return claim["verdict"]


def median(summary, key):
    return summary["figures"][key]["median"]


def test_every_point_belongs_to_a_charted_series_and_is_a_figures_trial(ray_cluster):
    points, summary = run_tiny("tasks-vs-actors", n_items=4, work_ms=20, trials=1)
    keys = {s.key for s in get_demo("tasks-vs-actors").chart.series}
    assert {p["series"] for p in points} <= keys
    assert all(isinstance(p["x"], int | float) and isinstance(p["y"], int | float) for p in points)
    for p in points:  # the chart draws exactly the numbers the table and the verdict use
        assert summary["figures"][p["figure"]]["trials"][p["x"] - 1] == p["y"]


def test_tasks_spread_work_and_only_the_actor_counts_exactly(ray_cluster):
    points, summary = run_tiny("tasks-vs-actors", n_items=6, work_ms=30, trials=2)
    assert [p["x"] for p in series(points, "tasks")] == [1, 2]
    assert summary["figures"]["actor_count"]["trials"] == [6, 6]
    # The task-globals counter holds only this run's calls: never more than its items.
    assert 1 <= summary["figures"]["task_counter_max"]["max"] <= 6
    # Every item burned its 30 ms of CPU: no mode can beat what the work needs.
    assert summary["figures"]["actor_s"]["min"] >= 6 * 0.030
    assert summary["figures"]["serial_s"]["min"] >= 6 * 0.030
    if judged("tasks-vs-actors", summary) == SHOWN:
        assert median(summary, "serial_s") >= 1.5 * median(summary, "tasks_s")


def test_object_store_measures_the_bytes_each_way_copies(ray_cluster):
    points, summary = run_tiny("object-store", size_mb=8, n_readers=3, trials=2)
    assert summary["figures"]["zero_copy"]["trials"] == [1, 1]
    # Measured by the raylet, not computed: one put by reference, one copy per reader by value.
    assert median(summary, "by_ref_copies") == pytest.approx(1, rel=0.05)
    assert median(summary, "by_value_copies") == pytest.approx(3, rel=0.05)
    assert [p["x"] for p in series(points, "by_value")] == [1, 2]
    if judged("object-store", summary) == SHOWN:
        assert median(summary, "by_value_ms") >= 1.5 * median(summary, "by_ref_ms")


def test_sampling_measures_the_learners_idle_share(ray_cluster):
    points, summary = run_tiny("sampling-throughput", max_actors=2, seconds_per_point=0.2, trials=2)
    idle = series(points, "idle")
    assert [p["x"] for p in idle if p.get("warmup")] == [1]  # the early point, labelled
    assert sorted(p["x"] for p in idle if not p.get("warmup")) == [1, 1, 2, 2]
    assert all(0 <= p["y"] <= 100 for p in points)
    assert median(summary, "steps_per_s_1") > 0
    if judged("sampling-throughput", summary) == SHOWN:
        assert median(summary, "idle_1") >= 50


def test_a_learner_heavier_than_sampling_is_not_shown_as_sampling_bound(ray_cluster):
    _, summary = run_tiny(
        "sampling-throughput", max_actors=1, seconds_per_point=0.3, trials=1, learn_us=200
    )
    # 200 us of learning per step against ~30 us of sampling: the learner is never idle long.
    assert summary["claim"]["verdict"] == "not_shown"
    assert "learn_us=200" in summary["claim"]["reason"]
    judged("sampling-throughput", summary)


def test_async_applies_as_many_gradients_and_staleness_costs_loss(ray_cluster):
    points, summary = run_tiny(
        "sync-vs-async", n_workers=2, rounds=3, work_ms=5, straggler_ms=60, trials=1
    )
    assert [p["x"] for p in series(points, "speedup")] == [0, 1]  # a warm-up, then trial 1
    assert series(points, "speedup")[0]["warmup"] and [
        p["x"] for p in series(points, "staleness")
    ] == [1]
    assert summary["figures"]["max_lag"]["max"] >= 1  # the straggler's gradient is stale
    assert summary["figures"]["sync_s"]["min"] >= 3 * 0.060  # each round waits the straggler
    assert summary["scheme"].startswith("central parameter server")
    if judged("sync-vs-async", summary) == SHOWN:
        assert median(summary, "speedup") >= 1.5
        assert median(summary, "stale_vs_fresh_loss") >= 1.1


def test_vtrace_converges_to_the_value_of_pi_rho_bar(ray_cluster):
    # Seeded data and exact values: no load can move these figures.
    points, summary = run_tiny("vtrace", max_lag=6, episodes=200, trials=2)
    assert judged("vtrace", summary) == SHOWN
    assert [p["x"] for p in points if p["series"] == "vtrace"] == [0, 1, 2, 3, 4, 5, 6, 6]
    assert median(summary, "vtrace_fixed_point") < median(summary, "vtrace")
    assert median(summary, "vtrace_large") < median(summary, "vtrace")
    assert median(summary, "vtrace") < median(summary, "uncorrected")


def test_vtrace_with_a_rho_bar_above_every_ratio_is_not_shown(ray_cluster):
    _, summary = run_tiny("vtrace", max_lag=4, episodes=100, rho_bar=20, trials=1)
    assert summary["claim"]["verdict"] == "not_shown"
    assert "rho_bar=20" in summary["claim"]["reason"]
    assert judged("vtrace", summary) == "not_shown"


def test_seed_runs_three_modes_and_labels_the_assumed_one(ray_cluster):
    points, summary = run_tiny(
        "seed-inference", n_actors=1, envs_per_actor=2, hidden=32, layers=1,
        seconds_per_mode=0.2, trials=1,
    )  # fmt: skip
    assert {p["series"] for p in points} == {"per_actor", "central_cpu", "central_modelled"}
    assert "modelled accelerator, not a measurement" in summary["assumption"]
    assert median(summary, "central_batch") >= 1
    if judged("seed-inference", summary) == SHOWN:
        assert median(summary, "central_modelled") >= 1.5 * median(summary, "per_actor")


def test_a_killed_actor_restores_its_file_checkpoint_and_a_task_is_retried(ray_cluster):
    points, summary = run_tiny(
        "fault-tolerance", steps=8, kill_at_step=4, checkpoint_every=3, work_ms=2
    )
    assert judged("fault-tolerance", summary) == SHOWN
    assert summary["processes_used"] == 2
    assert summary["result"] == summary["expected"]
    assert median(summary, "steps_redone") == 1  # killed at 4, last checkpoint at 3
    assert summary["task_attempts"] == 2
    assert len(series(points, "restart")) == 1


def test_without_a_kill_fault_tolerance_is_not_shown(ray_cluster):
    _, summary = run_tiny("fault-tolerance", steps=4, kill=False, work_ms=1)
    assert summary["claim"]["verdict"] == "not_shown"
    assert "kill=false" in summary["claim"]["reason"]
    assert summary["task_attempts"] == 1


def test_gangs_finish_where_piecemeal_deadlocks_and_oversized_gang_is_removed(ray_cluster):
    # The session's Ray is shared with the failure tests, whose demos workers are SIGKILLed mid
    # tasks-vs-actors run: Ray takes back the CPUs a dead driver's tasks held in its own time
    # (once ~50 s in CI, which starved this test's gangs past a 90 s budget). This demo needs
    # the whole cluster, so it waits for it, and gets the room to wait once more mid-run.
    idle_by = time.monotonic() + 120
    while ray_cluster.available_resources().get("CPU", 0) < ray_cluster.cluster_resources()["CPU"]:
        assert time.monotonic() < idle_by, "the session's Ray never became idle"
        time.sleep(0.5)
    _, summary = run_tiny(
        "placement-groups", budget_s=240, work_ms=50, piecemeal_wait_s=1.0, infeasible_wait_s=0.5
    )
    assert judged("placement-groups", summary) == SHOWN
    assert summary["figures"]["piecemeal_jobs_done"]["trials"] == [0]
    assert summary["figures"]["piecemeal_min_held"]["trials"] == [1]  # hold and wait: held
    assert summary["figures"]["gang_jobs_done"]["trials"] == [2]
    assert summary["infeasible_state"] == "removed"
    assert summary["cpus_free_after"] == 2.0


def test_pbt_and_grid_both_report_every_step(ray_cluster):
    points, summary = run_tiny("pbt", trials=2, steps=5, perturb_every=2)
    assert [p["x"] for p in series(points, "grid")] == [1, 2, 3, 4, 5]
    assert [p["x"] for p in series(points, "pbt")] == [1, 2, 3, 4, 5]
    assert all(p["loss"] > 0 for p in points)  # each point's tooltip gives its loss
    assert summary["grid_lrs"] == ["1e-03", "1e+00"]
    assert median(summary, "pbt_best_loss") > 0
    judged("pbt", summary)


@pytest.mark.skipif(not is_available(get_demo("rllib-ppo")), reason="needs ray[rllib] and torch")
def test_rllib_ppo_trains_and_reports_the_return_it_reached(ray_cluster):
    points, summary = run_tiny("rllib-ppo", iterations=1, env_runners=0, batch_size=200)
    assert [p["x"] for p in points] == [0, 1] and points[0]["warmup"]  # random actions first
    assert summary["iterations"] == 1
    assert summary["sampling_s"] > 0
    assert judged("rllib-ppo", summary) == "not_shown"  # one iteration: nothing to rise
    assert "iterations=1" in summary["claim"]["reason"]


def test_a_deadline_stops_a_demo_inconclusive_and_frees_the_cluster(ray_cluster):
    start = time.monotonic()
    summary = run_demo("tasks-vs-actors", {"n_items": 64, "work_ms": 500}, lambda p: None,
                       deadline=Deadline(1.0))  # fmt: skip
    assert time.monotonic() - start < 8  # the budget, then at most 3 s for the CPUs to return
    assert summary["claim"]["verdict"] == "inconclusive"
    assert summary["claim"]["reason"].startswith("The run stopped before its first trial ended:")
    assert "budget" in summary["stopped"]
    # Force-cancelled tasks give their CPU back when Ray has reaped their worker processes: a
    # moment on an idle machine, once over 10 s on a loaded CI machine.
    deadline = time.monotonic() + 30
    while ray_cluster.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ray_cluster.available_resources().get("CPU", 0) == 2


class SpentAfter(Deadline):
    """A budget that runs out once the demo has reported `points` points."""

    def __init__(self, points: list, after: int):
        super().__init__(60)
        self.points, self.after = points, after

    def check(self) -> None:
        if len(self.points) >= self.after:
            raise DeadlineExceeded(f"the demo ran out of its {self.seconds:g} s budget")


def test_a_run_out_of_budget_keeps_the_trials_it_finished(ray_cluster):
    # vtrace at max_lag=2: trial 1 reports 4 lines x 3 lags, each later trial 4 points.
    points = []
    summary = run_demo("vtrace", {"max_lag": 2, "episodes": 20, "trials": 5}, points.append,
                       deadline=SpentAfter(points, after=16))  # fmt: skip
    assert (
        summary["figures"]["vtrace"]["trials"] and len(summary["figures"]["vtrace"]["trials"]) == 2
    )
    assert summary["claim"]["verdict"] == "inconclusive"
    assert summary["claim"]["reason"] == (
        "The run stopped after 2 trials: the demo ran out of its 60 s budget."
    )


def test_a_cancel_is_noticed_between_steps(ray_cluster):
    with pytest.raises(DemoCancelled):
        run_demo("fault-tolerance", {"steps": 200, "kill": False}, lambda p: None,
                 deadline=Deadline(60, cancelled=lambda: True))  # fmt: skip


def test_leaving_a_scope_after_its_tasks_finished_never_aborts_the_driver(ray_cluster):
    """Owned.close() used to force-cancel tasks that had just finished, and Ray 2.60 then
    aborts the driver ("Tried to complete task that was not pending"): in production the
    Celery worker died at the end of a successful demo. Run in a child driver, many times."""
    script = textwrap.dedent(
        """
        import sys
        import ray
        from apps.demos.ray_demos.base import Deadline
        from apps.demos.ray_demos.raytools import owned, wait_all

        @ray.remote(num_cpus=0.5)
        def small(i):
            return [float(i)] * 5

        ray.init(address=sys.argv[1], log_to_driver=False, configure_logging=False)
        for _ in range(300):
            with owned() as scope:
                wait_all([scope.ref(small.remote(j)) for j in range(4)], Deadline(30))
        print("done")
        """
    )
    address = ray_cluster.get_runtime_context().gcs_address
    out = subprocess.run(
        [sys.executable, "-c", script, address],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert out.returncode == 0 and "done" in out.stdout, out.stderr[-1500:]


def test_every_demo_has_a_test_here():
    tested = {
        "tasks-vs-actors", "object-store", "sampling-throughput", "sync-vs-async", "vtrace",
        "seed-inference", "fault-tolerance", "placement-groups", "pbt", "rllib-ppo",
    }  # fmt: skip
    # The cluster demos are tested in test_cluster_demos_one_node.py and tests/cluster/.
    assert {d.slug for d in DEMOS if not d.slug.startswith("cluster-")} == tested


def test_a_cluster_too_busy_for_the_cpus_a_demo_needs_ends_it_inconclusive(
    ray_cluster, monkeypatch
):
    """Another driver holds one of the two CPUs: the run says what it waits for, for a bounded
    time, then ends inconclusive with the reason instead of failing on its budget."""
    from ray.util.placement_group import placement_group, remove_placement_group

    from apps.demos import ray_demos
    from apps.demos.ray_demos import raytools

    monkeypatch.setattr(raytools, "CLUSTER_WAIT_S", 1.5)
    monkeypatch.setattr(ray_demos, "SETTLE_S", 0.1)  # the held CPU stays held: no settling
    held = placement_group([{"CPU": 1}])
    ray_cluster.get(held.ready(), timeout=30)
    seen = []
    try:
        summary = run_demo("tasks-vs-actors", {"n_items": 2, "work_ms": 10, "trials": 1},
                           lambda p: None, deadline=Deadline(60, waiting=seen.append))  # fmt: skip
    finally:
        remove_placement_group(held)
    assert seen[0] == "waiting for 2 free CPUs (1 of 2 free)" and seen[-1] is None
    assert summary["claim"]["verdict"] == "inconclusive"
    assert summary["claim"]["reason"] == (
        "The run stopped before its first trial ended: the cluster was too busy: after 1.5 s "
        "of waiting for 2 free CPUs, 1 of its 2 were free (other work held the rest)."
    )
