"""Where placement-group bundles land: PACK puts them on as few nodes as fit, STRICT_SPREAD
on distinct nodes; a group that no cluster can hold stays pending and reserves nothing."""

from __future__ import annotations

import time
from typing import Any

import ray
from ray.util.placement_group import PlacementGroup, placement_group, placement_group_table

from .base import Deadline, ParamError
from .claims import YES_NO, Figures
from .nodes import alive_nodes, name_of
from .raytools import POLL_S, cluster_cpus, free_cpus, owned


def _placed(pg: PlacementGroup, deadline: Deadline, what: str) -> list[str]:
    ready = pg.ready()
    while True:
        deadline.check_for(what)
        done, _ = ray.wait([ready], timeout=POLL_S)
        if done:
            table = placement_group_table(pg)
            return [table["bundles_to_node_id"][i] for i in range(len(table["bundles"]))]


def too_few_nodes(spread: int, nodes: int) -> str:
    return (
        f"spread_bundles: {spread} strictly spread bundles need {spread} Ray nodes (one "
        f"bundle each), and the cluster has {nodes}"
    )


def _settled_free_cpus(deadline: Deadline) -> float:
    """Free CPUs once the groups just removed have handed theirs back (it is asynchronous)."""
    total = cluster_cpus()
    for _ in range(20):
        if free_cpus() >= total:
            break
        deadline.check()
        time.sleep(0.1)
    return free_cpus()


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    bundles, cpus, wait_s = params["bundles"], params["bundle_cpus"], params["infeasible_wait_s"]
    nodes = alive_nodes()
    n, spread = len(nodes), params["spread_bundles"]
    if spread > n >= 2:
        raise ParamError({"spread_bundles": too_few_nodes(spread, n)})
    groups = [("pack", "PACK", bundles)] + ([("spread", "STRICT_SPREAD", spread)] if n >= 2 else [])
    placed: dict[str, list[str]] = {}
    with owned() as scope:
        for series, strategy, count in groups:
            pg = scope.group(placement_group([{"CPU": cpus}] * count, strategy=strategy))
            where = [
                name_of(node, nodes) for node in _placed(pg, deadline, f"the {strategy} group")
            ]
            placed[series] = where
            for i, name in enumerate(where):
                index = next(k for k, node in enumerate(nodes) if node.name == name)
                figures.point(series, i + 1, index + 1, node=name)
            ray.util.remove_placement_group(pg)
            scope.groups.remove(pg)
        # One bundle more than there are nodes, each on its own node: no cluster of n can.
        before = _settled_free_cpus(deadline)
        start = time.perf_counter()
        pg = scope.group(placement_group([{"CPU": cpus}] * (n + 1), strategy="STRICT_SPREAD"))
        done, _ = ray.wait([pg.ready()], timeout=min(wait_s, deadline.remaining()))
        during = free_cpus()
        state = placement_group_table(pg)["state"]
        waited = time.perf_counter() - start

    placed.setdefault("spread", [])
    pack_nodes, spread_nodes = len(set(placed["pack"])), len(set(placed["spread"]))
    figures.define("pack_nodes", "nodes holding the PACK group")
    figures.define("spread_distinct", "STRICT_SPREAD bundles each on its own node", YES_NO)
    figures.define("oversized_pending", "the oversized group still pending", YES_NO)
    figures.define("cpus_reserved_while_pending", "CPUs the pending group reserved")
    figures.add("pack_nodes", pack_nodes)
    if placed["spread"]:
        figures.add("spread_distinct", spread_nodes == spread)
    figures.add("oversized_pending", not done)
    figures.add("cpus_reserved_while_pending", max(0.0, before - during))
    summary = {
        "figures": figures,
        "nodes": n,
        "node_names": [node.name for node in nodes],
        "pack_bundles_on": placed["pack"],
        "spread_bundles_on": placed["spread"],
        "infeasible_state": state,
        "infeasible_waited_s": round(waited, 2),
        "free_cpus_before": before,
        "free_cpus_while_pending": during,
        "effect": (
            f"PACK put {bundles} bundles on {pack_nodes} node(s) ({', '.join(placed['pack'])}); "
            + (
                f"STRICT_SPREAD put {spread} bundles on {spread_nodes} "
                f"({', '.join(placed['spread'])}); "
                if placed["spread"]
                else ""
            )
            + f"{n + 1} strictly spread bundles on {n} node(s) stayed {state.lower()} for "
            f"{waited:.1f} s with {during:g} of {before:g} CPUs still free, then were removed"
        ),
    }
    if n < 2:
        summary["cannot_test"] = (
            "this Ray cluster has one node: PACK and STRICT_SPREAD look the same, and only the "
            "oversized group (two bundles, one node) can be shown"
        )
    elif bundles * cpus > max(node.cpus for node in nodes):
        summary["cannot_test"] = (
            f"{bundles} bundles of {cpus:g} CPU do not fit on one node, so PACK had to spread "
            "them: lower bundles or bundle_cpus"
        )
    return summary
