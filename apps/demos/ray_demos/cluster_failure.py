"""A whole worker node dies mid-run: the actor that lived there is restarted on a surviving
node, and an object whose only copy was there is rebuilt from its lineage (the task that made
it runs again). The run completes and says what was lost and what was redone.

The demo kills a node only if that node offers the raydeck-chaos resource, which the local
two-node cluster of deploy/ray-local-cluster.sh gives its worker node (and a supervisor there
starts a fresh node afterwards, as KubeRay replaces a pod). No other cluster is touched.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import numpy as np
import ray

from .base import Deadline, cpu_spin
from .claims import YES_NO, Figures
from .nodes import CHAOS, alive_nodes, current_node_id, name_of, pinned
from .raytools import POLL_S, get_within, owned, wait_all


@ray.remote(num_cpus=0)
class Ledger:
    """Counts executions of the object's task, on a node that survives."""

    def __init__(self) -> None:
        self.runs: list[str] = []

    def record(self, node_id: str) -> int:
        self.runs.append(node_id)
        return len(self.runs)

    def seen(self) -> list[str]:
        return list(self.runs)


@ray.remote(num_cpus=0.25, max_retries=3)
def make_weights(size_bytes: int, ledger: Any) -> np.ndarray:
    """Its result lives only in this node's object store until someone reads it elsewhere."""
    ray.get(ledger.record.remote(current_node_id()))
    return np.ones(size_bytes, dtype=np.uint8)


@ray.remote(num_cpus=0.25, max_restarts=3, max_task_retries=-1)
class Learner:
    def __init__(self) -> None:
        self.steps = 0

    def step(self, work_s: float) -> tuple[int, str]:
        cpu_spin(work_s)
        self.steps += 1
        return self.steps, current_node_id()


@ray.remote(num_cpus=0)
def kill_this_node() -> None:
    """SIGKILL this node's raylet: every worker of the node dies with it, as in a lost VM."""
    os.kill(os.getppid(), signal.SIGKILL)


@ray.remote(num_cpus=0.25)
def checksum(boxed: list[Any]) -> tuple[int, str]:
    return int(ray.get(boxed[0]).sum()), current_node_id()


def _wait_until_dead(node_id: str, deadline: Deadline) -> None:
    while any(n.id == node_id for n in alive_nodes()):
        deadline.check_for("Ray to notice the node is gone")
        time.sleep(POLL_S)


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    steps, kill_at, work_s = params["steps"], params["kill_at_step"], params["work_ms"] / 1000
    size = params["object_mb"] * 1024 * 1024
    nodes = alive_nodes()
    victim = next((n for n in nodes if n.offers(CHAOS)), None)
    survivors = [n for n in nodes if n is not victim]
    if victim is None or not survivors:
        why = (
            "no node of this cluster offers the raydeck-chaos resource, so this demo kills "
            "nothing here"
            if victim is None
            else "the only node is the one it would kill"
        )
        figures.define("actor_moved", "the learner answered from a surviving node", YES_NO)
        figures.define("object_task_runs", "times the object's task ran")
        return {
            "figures": figures,
            "nodes": len(nodes),
            "effect": "no node was killed",
            "cannot_test": why + ": run it on the local two-node cluster (make ray-cluster)",
        }

    with owned() as scope:
        ledger = scope.actor(Ledger.options(scheduling_strategy=pinned(survivors[0])).remote())  # type: ignore[attr-defined]
        learner = scope.actor(
            Learner.options(scheduling_strategy=pinned(victim, soft=True)).remote()  # type: ignore[attr-defined]
        )
        weights = make_weights.options(scheduling_strategy=pinned(victim, soft=True)).remote(
            size, ledger
        )
        # Read once where it was made, so no copy of it exists anywhere else (a wait from the
        # driver could pull one to the head).
        wait_all([checksum.options(scheduling_strategy=pinned(victim)).remote([weights])],
                 deadline, what="the object to be made")  # fmt: skip
        step_ms, homes, killed_at, restart_s = [], [], None, None
        for i in range(1, steps + 1):
            if i == kill_at:
                killed_at = time.perf_counter()
                kill_this_node.options(scheduling_strategy=pinned(victim)).remote()
                _wait_until_dead(victim.id, deadline)
            start = time.perf_counter()
            done, home = get_within([learner.step.remote(work_s)], deadline, what="the learner")[0]
            took = time.perf_counter() - start
            if killed_at is not None and restart_s is None:
                restart_s = time.perf_counter() - killed_at
                figures.point("restart", i, restart_s * 1000)
            step_ms.append(took * 1000)
            homes.append(home)
            figures.point("step_ms", i, took * 1000)
        start = time.perf_counter()
        total, rebuilt_on = wait_all(
            [checksum.options(scheduling_strategy=pinned(survivors[0])).remote([weights])],
            deadline,
            what="the object to be rebuilt",
        )[0]
        rebuild_s = time.perf_counter() - start
        runs = ray.get(ledger.seen.remote())

    before, after = set(homes[: kill_at - 1]), set(homes[kill_at - 1 :])
    moved = bool(after) and victim.id not in after and victim.id in before
    figures.define("actor_moved", "the learner answered from a surviving node", YES_NO)
    figures.define("object_task_runs", "times the object's task ran")
    figures.define("rebuilt_elsewhere", "the object rebuilt on a surviving node", YES_NO)
    figures.define("restart_s", "kill to the learner answering again", "s")
    figures.define("rebuild_s", "time to read the lost object back", "s")
    figures.add("actor_moved", moved)
    figures.add("object_task_runs", len(runs))
    figures.add("rebuilt_elsewhere", len(runs) >= 2 and runs[-1] != victim.id and total == size)
    figures.add("restart_s", restart_s or 0)
    figures.add("rebuild_s", rebuild_s)
    return {
        "figures": figures,
        "nodes": len(nodes),
        "killed_node": victim.name,
        "learner_nodes": [name_of(h, nodes) for h in (homes[0], homes[-1])],
        "object_runs_on": [name_of(r, nodes) for r in runs],
        "object_mb": params["object_mb"],
        "effect": (
            f"node {victim.name} was killed at step {kill_at}: lost were the learner's process "
            f"and the only copy of a {params['object_mb']} MB object. The learner answered again "
            f"from node {name_of(homes[-1], nodes)} {restart_s or 0:.1f} s later (a fresh actor: "
            f"its step count restarted, state must come from a checkpoint), and the object's "
            f"task ran again on node {name_of(runs[-1], nodes)} ({len(runs)} runs in all, "
            f"{rebuild_s:.1f} s to rebuild)"
        ),
    }
