"""Placement groups: two jobs that each need the whole cluster, started piecemeal (each job's
actors grab part of the cluster and hold it while they wait for the rest: neither finishes)
vs as gangs (a job's bundles are reserved together, so one job waits its turn and both
finish); then a gang that can never fit stays unready and is removed cleanly."""

from __future__ import annotations

import time
from typing import Any

import ray
from ray.util.placement_group import placement_group, placement_group_table, remove_placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

from . import raytools
from .base import ClusterBusy, Deadline, cpu_spin
from .claims import YES_NO, Figures, number
from .raytools import POLL_S, Owned, cluster_cpus, free_cpus, owned

TICK_S = 0.25


@ray.remote(num_cpus=1)
class GangMember:
    """Piecemeal, a job's members are actors: each holds its CPU from the moment it starts."""

    def work(self, seconds: float) -> int:
        cpu_spin(seconds)
        return 1


@ray.remote(num_cpus=1)
def gang_work(seconds: float) -> int:
    """As a gang, a job's members are tasks in the bundles its placement group reserved."""
    cpu_spin(seconds)
    return 1


def _done(refs: list[Any]) -> bool:
    ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
    return len(ready) == len(refs)


def _piecemeal(
    g: int, work_s: float, wait_s: float, scope: Owned, figures: Figures, deadline: Deadline
) -> dict[str, Any]:
    """Start both jobs' actors interleaved, wait until every actor that got a CPU has started
    (each job then holds part of the cluster), then watch wait_s for a job to finish."""
    jobs: dict[str, list[Any]] = {"A": [], "B": []}
    for _ in range(g):  # submitted interleaved, as two users starting at once would
        for job in jobs.values():
            job.append(scope.actor(GangMember.remote()))  # type: ignore[attr-defined]
    calls = {name: [m.work.remote(work_s) for m in members] for name, members in jobs.items()}
    probes = {name: [m.__ray_ready__.remote() for m in members] for name, members in jobs.items()}
    can_start = min(2 * g, int(free_cpus()))
    start, done, held_since = time.perf_counter(), set(), None
    while True:
        deadline.check()
        time.sleep(TICK_S)
        done |= {name for name, refs in calls.items() if _done(refs)}
        now = time.perf_counter()
        started = {name: len(ray.wait(refs, num_returns=g, timeout=0)[0])
                   for name, refs in probes.items()}  # fmt: skip
        figures.point("piecemeal", now - start, len(done), of=2)
        if held_since is None:
            if sum(started.values()) >= can_start or len(done) == 2:
                held_since = now  # every CPU is held: from here on, nothing can move
                deadline.waiting(None)
            elif now - start >= raytools.CLUSTER_WAIT_S:
                held_since = now  # the rest never started: the bound on "held" says so
            elif now - start >= 1:
                deadline.waiting(f"waiting for the jobs' actors to start ({sum(started.values())}"
                                 f" of {can_start} started)")  # fmt: skip
        if len(done) == 2 or (held_since is not None and now - held_since >= wait_s):
            break
    for members in jobs.values():
        for m in members:
            scope.kill(m)
    return {"jobs_done": len(done), "held": started, "waited_s": now - (held_since or start)}


def _gang(
    g: int, work_s: float, scope: Owned, figures: Figures, deadline: Deadline
) -> tuple[int, float]:
    groups = {
        name: scope.group(placement_group([{"CPU": 1}] * g, strategy="PACK")) for name in "AB"
    }
    running: dict[str, Any] = {}
    finished: set[str] = set()
    start, last_report = time.perf_counter(), -1.0
    while len(finished) < 2:
        deadline.check_for("the gangs to be placed")
        for name, pg in groups.items():
            if name in running or name in finished:
                continue
            if ray.wait([pg.ready()], timeout=0)[0]:
                running[name] = [
                    scope.ref(
                        gang_work.options(
                            scheduling_strategy=PlacementGroupSchedulingStrategy(pg, i)
                        ).remote(work_s)
                    )
                    for i in range(g)
                ]
        for name, refs in list(running.items()):
            if _done(refs):
                remove_placement_group(groups[name])  # hand the CPUs to the next gang
                scope.groups.remove(groups[name])
                del running[name]
                finished.add(name)
        time.sleep(POLL_S / 4)
        now = time.perf_counter() - start
        if now - last_report >= TICK_S or len(finished) == 2:
            figures.point("gang", now, len(finished), of=2)
            last_report = now
    return len(finished), time.perf_counter() - start


def _infeasible(wait_s: float, scope: Owned, deadline: Deadline) -> dict[str, Any]:
    want = int(cluster_cpus()) + 1
    pg = scope.group(placement_group([{"CPU": 1}] * want, strategy="PACK"))
    start = time.perf_counter()
    ready, _ = ray.wait([pg.ready()], timeout=min(wait_s, deadline.remaining()))
    waited = time.perf_counter() - start
    remove_placement_group(pg)
    scope.groups.remove(pg)
    state = "REMOVED"
    for _ in range(20):
        state = placement_group_table(pg).get("state", "REMOVED")
        if state == "REMOVED":
            break
        time.sleep(0.05)
    return {"bundles": want, "ready": bool(ready), "waited_s": round(waited, 2), "state": state}


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    g = min(params["cpus_per_job"], int(free_cpus()))
    if g < 2:
        raise ClusterBusy(
            f"this demo needs 2 free CPUs on the Ray cluster, {free_cpus():g} were free"
        )
    work_s = params["work_ms"] / 1000
    figures.define("piecemeal_jobs_done", "actor by actor: jobs finished", "of 2")
    figures.define("piecemeal_min_held", f"actor by actor: actors the emptier job held, of {g}",
                   "actors")  # fmt: skip
    figures.define("piecemeal_actors_started", "actor by actor: actors started, both jobs",
                   "actors")  # fmt: skip
    figures.define("piecemeal_waited_s", "actor by actor: time waited with every CPU held", "s")
    figures.define("gang_jobs_done", "as placement groups: jobs finished", "of 2")
    figures.define("gang_both_done_s", "as placement groups: both jobs done after", "s")
    figures.define("oversized_gang_ready", "the gang larger than the cluster became ready", YES_NO)
    with owned() as scope:
        surplus = int(free_cpus()) - g
        if surplus > 0:  # keep the contention honest on a big cluster: hold the rest aside
            holder = scope.group(placement_group([{"CPU": 1}] * surplus))
            ray.wait([holder.ready()], timeout=min(5.0, deadline.remaining()))
        piecemeal = _piecemeal(g, work_s, params["piecemeal_wait_s"], scope, figures, deadline)
        figures.add("piecemeal_jobs_done", piecemeal["jobs_done"])
        figures.add("piecemeal_min_held", min(piecemeal["held"].values()))
        figures.add("piecemeal_actors_started", sum(piecemeal["held"].values()))
        figures.add("piecemeal_waited_s", piecemeal["waited_s"])
        gang_done, gang_s = _gang(g, work_s, scope, figures, deadline)
        figures.add("gang_jobs_done", gang_done)
        figures.add("gang_both_done_s", gang_s)
        infeasible = _infeasible(params["infeasible_wait_s"], scope, deadline)
        figures.add("oversized_gang_ready", infeasible["ready"])
    held = piecemeal["held"]
    return {
        "figures": figures,
        "cpus_per_job": g,
        "infeasible_bundles": infeasible["bundles"],
        "infeasible_state": infeasible["state"].lower(),
        "cpus_free_after": free_cpus(),
        "effect": (
            f"actor by actor: the jobs held {held['A']} and {held['B']} of their {g} actors, "
            f"and {piecemeal['jobs_done']} of 2 finished in {number(piecemeal['waited_s'])} s; "
            f"as placement groups both finished in {number(gang_s)} s; a gang of "
            f"{infeasible['bundles']} CPUs never became ready and was removed "
            f"({infeasible['state'].lower()})"
        ),
    }
