"""An object read on the node that holds it (zero-copy from shared memory) vs fetched from
another node: the first read elsewhere moves the bytes, later reads there share that copy."""

from __future__ import annotations

import statistics
import time

import numpy as np
import ray

from .base import Deadline, Report
from .nodes import alive_nodes, current_node_id, pinned
from .raytools import owned, wait_all


@ray.remote(num_cpus=0.25)
def make_array(size_bytes: int, seed: int) -> np.ndarray:
    """Lives in the object store of the node this runs on (its primary copy)."""
    return np.full(size_bytes, seed % 251, dtype=np.uint8)


@ray.remote(num_cpus=0.25)
def read(boxed: list) -> dict:
    """Times ray.get of the boxed reference on this node, then touches every byte."""
    start = time.perf_counter()
    array = ray.get(boxed[0])
    got_s = time.perf_counter() - start
    checksum = int(array[::4096].sum())  # a read of every page the fetch brought here
    return {
        "seconds": got_s,
        "bytes": int(array.nbytes),
        "zero_copy": not array.flags.writeable,  # mapped from this node's shared memory
        "node": current_node_id(),
        "checksum": checksum,
    }


def run(params: dict, report: Report, *, deadline: Deadline) -> dict:
    size, trials = params["size_mb"] * 1024 * 1024, params["trials"]
    nodes = alive_nodes()
    home, away = nodes[0], (nodes[1] if len(nodes) > 1 else None)
    local_s, remote_s, second_s, moved, zero_copy = [], [], [], [], []
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
            here = wait_all([read.options(scheduling_strategy=pinned(home)).remote([ref])],
                            deadline, what="the same-node read")[0]  # fmt: skip
            local_s.append(here["seconds"])
            zero_copy.append(here["zero_copy"])
            report({"series": "same_node", "x": trial, "y": round(here["seconds"] * 1000, 2)})
            if away is None:
                continue
            there = wait_all([read.options(scheduling_strategy=pinned(away)).remote([ref])],
                             deadline, what="the cross-node read")[0]  # fmt: skip
            again = wait_all([read.options(scheduling_strategy=pinned(away)).remote([ref])],
                             deadline, what="the second read on the other node")[0]  # fmt: skip
            remote_s.append(there["seconds"])
            second_s.append(again["seconds"])
            moved.append(there["bytes"])
            report({"series": "other_node", "x": trial, "y": round(there["seconds"] * 1000, 2)})
            report({"series": "other_again", "x": trial, "y": round(again["seconds"] * 1000, 2)})
            del ref

    def spread(values):
        ms = sorted(v * 1000 for v in values)
        return {"min": round(ms[0], 2), "median": round(statistics.median(ms), 2),
                "max": round(ms[-1], 2)}  # fmt: skip

    figures = {"nodes": len(nodes), "size_mb": params["size_mb"], "trials": trials,
               "same_node_ms": spread(local_s), "zero_copy_reads": sum(zero_copy)}  # fmt: skip
    claim = "a read from another node takes at least 3x as long as a read on the object's node"
    if away is None:
        return {
            **figures,
            "claim": claim,
            "verdict": "inconclusive",
            "reason": "this Ray cluster has one node, so every read is a same-node read: start "
            "a second node (make ray-cluster) to see a fetch",
            "effect": f"one node: a {params['size_mb']} MB read took "
            f"{figures['same_node_ms']['median']} ms, mapped from shared memory",
        }
    figures |= {
        "other_node_ms": spread(remote_s),
        "other_node_again_ms": spread(second_s),
        "bytes_moved": sum(moved),
        "transfer_mb_s": round(size / 1024 / 1024 / statistics.median(remote_s), 1),
    }
    ratio = statistics.median(remote_s) / max(statistics.median(local_s), 1e-6)
    worst = min(r / max(local, 1e-6) for r, local in zip(remote_s, local_s, strict=True))
    if worst >= 3:
        verdict, reason = "shown", ""
    elif ratio >= 3:
        verdict, reason = (
            "inconclusive",
            f"the median shows it ({ratio:.1f}x), but one trial only {worst:.1f}x: busy CPUs?",
        )
    else:
        verdict = "not_shown"
        reason = (
            f"the cross-node read was only {ratio:.1f}x the same-node one: nodes on one "
            "machine move bytes through memory, and a small array hides the fetch"
        )
    return {
        **figures,
        "claim": claim,
        "verdict": verdict,
        "reason": reason,
        "ratio": round(ratio, 1),
        "effect": (
            f"{params['size_mb']} MB read on its own node in {figures['same_node_ms']['median']}"
            f" ms (zero-copy), from the other node in {figures['other_node_ms']['median']} ms "
            f"({ratio:.0f}x, {figures['bytes_moved'] / trials / 1e6:.0f} MB moved per trial); "
            f"read there again: {figures['other_node_again_ms']['median']} ms"
        ),
    }
