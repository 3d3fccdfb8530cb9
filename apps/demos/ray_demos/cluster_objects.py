"""An object read on the node that holds it (zero-copy from shared memory) vs fetched from
another node: the first read elsewhere moves the bytes, later reads there share that copy."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import ray

from .base import Deadline
from .claims import YES_NO, Figures, number
from .nodes import Node, alive_nodes, current_node_id, pinned
from .raytools import owned, wait_all


@ray.remote(num_cpus=0.25)
def make_array(size_bytes: int, seed: int) -> np.ndarray:
    """Lives in the object store of the node this runs on (its primary copy)."""
    return np.full(size_bytes, seed % 251, dtype=np.uint8)


@ray.remote(num_cpus=0.25)
def read(boxed: list[Any]) -> dict[str, Any]:
    """Times ray.get of the boxed reference on this node, then touches every page."""
    start = time.perf_counter()
    array = ray.get(boxed[0])
    got_s = time.perf_counter() - start
    return {
        "seconds": got_s,
        "bytes": int(array.nbytes),  # what arrived on this node
        "zero_copy": not array.flags.writeable,  # mapped from this node's shared memory
        "node": current_node_id(),
        "checksum": int(array[::4096].sum()),
    }


def _read_on(node: Node, ref: Any, deadline: Deadline, what: str) -> dict[str, Any]:
    strategy = pinned(node)
    result: dict[str, Any] = wait_all([read.options(scheduling_strategy=strategy).remote([ref])],
                                      deadline, what=what)[0]  # fmt: skip
    return result


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    size, trials = params["size_mb"] * 1024 * 1024, params["trials"]
    nodes = alive_nodes()
    home, away = nodes[0], (nodes[1] if len(nodes) > 1 else None)
    figures.define("same_node_ms", "read on the object's node", "ms", series="same_node")
    figures.define("zero_copy", "same-node reads mapped from shared memory", YES_NO)
    figures.define("other_node_ms", "first read on the other node", "ms", series="other_node")
    figures.define("other_again_ms", "second read on the other node", "ms", series="other_again")
    figures.define("mb_moved", "megabytes that arrived on the other node", "MB")
    with owned():
        # Warm-up, not timed: worker processes on both nodes and the nodes' first connection.
        warm = make_array.options(scheduling_strategy=pinned(home)).remote(1024 * 1024, 0)
        wait_all([read.options(scheduling_strategy=pinned(n)).remote([warm]) for n in nodes],
                 deadline, what="the warm-up reads")  # fmt: skip
        del warm
        for trial in range(1, trials + 1):
            # A fresh object each trial: once fetched, the other node keeps a copy. The last
            # trial's is dropped first, so the object stores hold one at a time.
            ref = make_array.options(scheduling_strategy=pinned(home)).remote(size, trial)
            wait_all([ref], deadline, what="the array to be made")
            here = _read_on(home, ref, deadline, "the same-node read")
            figures.add("same_node_ms", here["seconds"] * 1000, x=trial)
            figures.add("zero_copy", here["zero_copy"])
            if away is not None:
                there = _read_on(away, ref, deadline, "the cross-node read")
                again = _read_on(away, ref, deadline, "the second read on the other node")
                figures.add("other_node_ms", there["seconds"] * 1000, x=trial)
                figures.add("other_again_ms", again["seconds"] * 1000, x=trial)
                figures.add("mb_moved", there["bytes"] / 1024 / 1024)
            del ref

    got = figures.as_dict()
    summary = {"figures": figures, "nodes": len(nodes), "size_mb": params["size_mb"]}
    if away is None:
        return summary | {
            "cannot_test": "this Ray cluster has one node, so every read is a same-node read: "
            "start a second node (make ray-cluster) to see a fetch",
            "effect": f"one node: a {params['size_mb']} MB read took "
            f"{number(got['same_node_ms']['median'])} ms (median), mapped from shared memory",
        }
    return summary | {
        "effect": (
            f"median over {trials} trials: {params['size_mb']} MB read on its own node in "
            f"{number(got['same_node_ms']['median'])} ms, from the other node in "
            f"{number(got['other_node_ms']['median'])} ms ({number(got['mb_moved']['median'])} "
            f"MB moved); read there again from the copy it kept: "
            f"{number(got['other_again_ms']['median'])} ms"
        ),
    }
