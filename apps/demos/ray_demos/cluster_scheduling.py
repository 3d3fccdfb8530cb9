"""Custom resources steer tasks: a task asking for a resource only one node offers runs only
there; a task asking for what no node offers is reported unschedulable instead of waiting."""

from __future__ import annotations

import time
from typing import Any

import ray

from .base import Deadline
from .claims import YES_NO, Figures
from .nodes import NAME_PREFIX, alive_nodes, current_node_id, name_of, unique_resources
from .raytools import owned, wait_all

NOBODY_HAS = "raydeck-accelerator-that-no-node-has"


@ray.remote(num_cpus=0)
def where_am_i() -> str:
    return current_node_id()


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    tasks, wait_s = params["tasks"], params["unschedulable_wait_s"]
    nodes = alive_nodes()
    unique = unique_resources(nodes)
    # Prefer a node's name resource on a worker node (not the head), as a GPU pool would be.
    ranked = sorted(unique, key=lambda k: (unique[k] is nodes[0], not k.startswith(NAME_PREFIX)))
    resource = ranked[0] if ranked else None
    landed: list[str] = []
    with owned() as scope:
        if resource is not None:
            task = where_am_i.options(resources={resource: 0.001})
            refs = [scope.ref(task.remote()) for _ in range(tasks)]
            for i, node_id in enumerate(wait_all(refs, deadline, what="the steered tasks")):
                landed.append(name_of(node_id, nodes))
                index = next(k for k, node in enumerate(nodes) if node.id == node_id)
                figures.point("steered", i + 1, index + 1, node=landed[-1])
        # Before submitting, ask whether any node could ever run it: Ray itself would leave the
        # task pending (an autoscaler might add such a node), so a caller has to look.
        offered = any(node.offers(NOBODY_HAS) for node in nodes)
        impossible = scope.ref(where_am_i.options(resources={NOBODY_HAS: 1}).remote())
        start = time.perf_counter()
        done, _ = ray.wait([impossible], timeout=min(wait_s, deadline.remaining()))
        waited = time.perf_counter() - start
        ray.cancel(impossible, force=False)

    target = unique[resource].name if resource else None
    on_target = sum(1 for name in landed if name == target)
    figures.define("steered_on_target", "steered tasks that ran on the node with the resource", "%")
    figures.define("impossible_started", "the impossible task started", YES_NO)
    if landed:
        figures.add("steered_on_target", 100 * on_target / len(landed))
    figures.add("impossible_started", bool(done))
    summary = {
        "figures": figures,
        "nodes": len(nodes),
        "resource": resource,
        "resource_node": target,
        "tasks_on_that_node": on_target,
        "tasks": len(landed),
        "unschedulable_resource": NOBODY_HAS,
        "unschedulable_offered": offered,
        "unschedulable_ran": bool(done),
        "unschedulable_waited_s": round(waited, 2),
        "effect": (
            (
                f"{on_target} of {len(landed)} tasks asking for {resource} ran on node {target}; "
                if resource
                else "no node offers a resource of its own; "
            )
            + f"a task asking for {NOBODY_HAS} is unschedulable here (no node offers it) and "
            f"was still pending after {waited:.1f} s, then cancelled"
        ),
    }
    if resource is None:
        summary["cannot_test"] = (
            "no custom resource is offered by exactly one node of this cluster: start nodes "
            "with --resources (make ray-cluster does) to steer tasks"
        )
    elif len(nodes) < 2:
        summary["cannot_test"] = "one node: every task runs there whatever it asks for"
    return summary
