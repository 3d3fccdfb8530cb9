"""Placement groups: two jobs that each need the whole cluster, started piecemeal (each
grabs part and waits for the rest: neither finishes) vs as gangs (one waits its turn, both
finish); then a gang that can never fit times out and is removed cleanly."""

from __future__ import annotations

import time

import ray
from ray.util.placement_group import placement_group, placement_group_table, remove_placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

from .base import Deadline, Report, cpu_spin
from .claims import Figures
from .raytools import POLL_S, cluster_cpus, free_cpus, owned

TICK_S = 0.25


@ray.remote(num_cpus=1)
class GangMember:
    def work(self, seconds: float) -> int:
        cpu_spin(seconds)
        return 1


def _job_done(refs) -> bool:
    ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
    return len(ready) == len(refs)


def _piecemeal(g, work_s, wait_s, scope, report, deadline) -> dict:
    jobs = {"A": [], "B": []}
    for _ in range(g):  # submitted interleaved, as two users starting at once would
        for job in jobs.values():
            job.append(scope.actor(GangMember.remote()))
    calls = {name: [m.work.remote(work_s) for m in members] for name, members in jobs.items()}
    probes = {name: [m.__ray_ready__.remote() for m in members] for name, members in jobs.items()}
    start, done = time.perf_counter(), set()
    while time.perf_counter() - start < wait_s and len(done) < 2:
        deadline.check()
        time.sleep(TICK_S)
        done |= {name for name, refs in calls.items() if _job_done(refs)}
        report({"series": "piecemeal", "x": round(time.perf_counter() - start, 2), "y": len(done)})
    # Actors that got a CPU start within a second or two; the others stay pending for good.
    ray.wait(sum(probes.values(), []), num_returns=2 * g, timeout=min(2.0, deadline.remaining()))
    started = {
        name: len(ray.wait(refs, num_returns=g, timeout=0)[0]) for name, refs in probes.items()
    }
    for members in jobs.values():
        for m in members:
            scope.kill(m)
    waited = time.perf_counter() - start
    return {"jobs_done": len(done), "actors_started": started, "waited_s": waited}


def _gang(g, work_s, scope, report, deadline) -> float:
    groups = {
        name: scope.group(placement_group([{"CPU": 1}] * g, strategy="PACK")) for name in "AB"
    }
    start, running, finished, last_report = time.perf_counter(), {}, set(), -1.0
    while len(finished) < 2:
        deadline.check_for("the gangs to be placed")
        for name, pg in groups.items():
            if name in running or name in finished:
                continue
            if ray.wait([pg.ready()], timeout=0)[0]:
                members = [
                    scope.actor(
                        GangMember.options(
                            scheduling_strategy=PlacementGroupSchedulingStrategy(pg, i)
                        ).remote()
                    )
                    for i in range(g)
                ]
                running[name] = (members, [m.work.remote(work_s) for m in members])
        for name, (members, refs) in list(running.items()):
            if _job_done(refs):
                for m in members:
                    scope.kill(m)
                remove_placement_group(groups[name])  # hand the CPUs to the next gang
                del running[name]
                finished.add(name)
        time.sleep(POLL_S / 4)
        now = time.perf_counter() - start
        if now - last_report >= TICK_S or len(finished) == 2:
            report({"series": "gang", "x": round(now, 2), "y": len(finished)})
            last_report = now
    return time.perf_counter() - start


def _infeasible(wait_s, scope, deadline) -> dict:
    want = int(cluster_cpus()) + 1
    pg = scope.group(placement_group([{"CPU": 1}] * want, strategy="PACK"))
    start = time.perf_counter()
    ready, _ = ray.wait([pg.ready()], timeout=min(wait_s, deadline.remaining()))
    waited = time.perf_counter() - start
    remove_placement_group(pg)
    state = "REMOVED"
    for _ in range(20):
        state = placement_group_table(pg).get("state", "REMOVED")
        if state == "REMOVED":
            break
        time.sleep(0.05)
    return {"bundles": want, "ready": bool(ready), "waited_s": round(waited, 2), "state": state}


def run(params: dict, report: Report, *, deadline: Deadline) -> dict:
    # Actors of a run that just ended can take a moment to hand their CPUs back.
    settle_until = time.perf_counter() + min(5.0, deadline.remaining())
    while free_cpus() < min(params["cpus_per_job"], cluster_cpus()) and (
        time.perf_counter() < settle_until
    ):
        time.sleep(0.1)
    g = min(params["cpus_per_job"], int(free_cpus()))
    if g < 2:
        raise RuntimeError(
            f"this demo needs 2 free CPUs on the Ray cluster, {free_cpus():g} are free right now"
        )
    work_s = params["work_ms"] / 1000
    with owned() as scope:
        surplus = int(free_cpus()) - g
        if surplus > 0:  # keep the contention honest on a big cluster: hold the rest aside
            holder = scope.group(placement_group([{"CPU": 1}] * surplus))
            ray.wait([holder.ready()], timeout=min(5.0, deadline.remaining()))
        piecemeal = _piecemeal(g, work_s, params["piecemeal_wait_s"], scope, report, deadline)
        gang_s = _gang(g, work_s, scope, report, deadline)
        infeasible = _infeasible(params["infeasible_wait_s"], scope, deadline)
    time.sleep(0.2)
    figures = Figures()
    figures.define("piecemeal_jobs_done", "actor by actor: jobs finished", "of 2")
    figures.define("gang_jobs_done", "as placement groups: jobs finished", "of 2")
    figures.define("gang_both_done_s", "as placement groups: both jobs done after", "s")
    figures.define("oversized_gang_ready", "the gang larger than the cluster became ready",
                   "yes=1")  # fmt: skip
    figures.add("piecemeal_jobs_done", piecemeal["jobs_done"])
    figures.add("gang_jobs_done", 2)  # _gang returns only once both jobs finished
    figures.add("gang_both_done_s", gang_s)
    figures.add("oversized_gang_ready", infeasible["ready"])
    return {
        "figures": figures,
        "cpus_per_job": g,
        "piecemeal_jobs_done": piecemeal["jobs_done"],
        "piecemeal_actors_started": piecemeal["actors_started"],
        "piecemeal_waited_s": round(piecemeal["waited_s"], 2),
        "gang_both_done_s": round(gang_s, 2),
        "infeasible": infeasible,
        "cpus_free_after": free_cpus(),
        "effect": (
            f"piecemeal: each job got {min(piecemeal['actors_started'].values())} of {g} actors"
            f" and {piecemeal['jobs_done']} of 2 jobs finished in {piecemeal['waited_s']:.1f} s;"
            f" as gangs both finished in {gang_s:.1f} s; a gang of {infeasible['bundles']} CPUs"
            f" never became ready and was removed ({infeasible['state']})"
        ),
    }
