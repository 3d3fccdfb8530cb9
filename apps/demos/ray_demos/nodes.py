"""The nodes of the Ray cluster a demo runs on: who is alive, what each offers, how to pin work.

The cluster demos name nodes by a custom resource that exactly one node offers (the local
two-node cluster of deploy/ray-local-cluster.sh offers raydeck-node-a and raydeck-node-b), and
fall back to a short node id elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

NAME_PREFIX = "raydeck-node-"
CHAOS = "raydeck-chaos"  # the one resource that lets the node-failure demo kill a node


@dataclass(frozen=True)
class Node:
    id: str
    name: str
    cpus: float
    resources: dict[str, float]

    def offers(self, resource: str) -> bool:
        return self.resources.get(resource, 0) > 0


def alive_nodes() -> list[Node]:
    nodes = []
    for info in ray.nodes():
        if not info.get("Alive"):
            continue
        resources = dict(info.get("Resources", {}))
        named = sorted(k for k in resources if k.startswith(NAME_PREFIX))
        name = named[0].removeprefix(NAME_PREFIX) if named else info["NodeID"][:6]
        nodes.append(Node(info["NodeID"], name, float(resources.get("CPU", 0)), resources))
    return sorted(nodes, key=lambda n: n.name)


def name_of(node_id: str, nodes: list[Node]) -> str:
    return next((n.name for n in nodes if n.id == node_id), node_id[:6])


def pinned(node: Node, *, soft: bool = False) -> NodeAffinitySchedulingStrategy:
    """Run on this node; with soft=True, elsewhere once it is gone."""
    return NodeAffinitySchedulingStrategy(node_id=node.id, soft=soft)


def unique_resources(nodes: list[Node]) -> dict[str, Node]:
    """Custom resources that exactly one alive node offers, with that node."""
    owners: dict[str, list[Node]] = {}
    for node in nodes:
        for key, amount in node.resources.items():
            builtin = key in {"CPU", "GPU", "memory", "object_store_memory"}
            if amount > 0 and not builtin and not key.startswith("node:"):
                owners.setdefault(key, []).append(node)
    return {key: found[0] for key, found in sorted(owners.items()) if len(found) == 1}


def current_node_id() -> str:
    return ray.get_runtime_context().get_node_id()
