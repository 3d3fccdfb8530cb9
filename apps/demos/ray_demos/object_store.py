"""One large array put in the object store once and read by many tasks, vs a copy per call.

A phase submits every reader, one after another, and is timed from just before the first
submission (where passing the array by value serialises a fresh copy into the object store for
each call) until the last reader has read. The copies are measured: the raylet's count of
bytes created in the object store during each phase, in arrays' worth.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import numpy as np
import ray

from .base import Deadline
from .claims import YES_NO, Figures, number
from .raytools import Owned, object_store_bytes_created, owned, wait_all


@ray.remote(num_cpus=1)
def read(arr: np.ndarray) -> tuple[float, bool]:
    """Touch every page of the array; report whether it was a read-only shared-memory view."""
    total = float(arr[::512].sum())
    return total, not arr.flags.writeable


def _created() -> int | None:
    """Bytes the object stores have created so far, or None when the raylet does not answer
    (a busy cluster): the copies are then not measured, and the run goes on."""
    with contextlib.suppress(Exception):
        return object_store_bytes_created()
    return None


def _phase(
    name: str, by_value: bool, arr: np.ndarray, n: int, deadline: Deadline, scope: Owned
) -> tuple[float, int | None, bool]:
    """Submit n readers; returns (seconds until all had read, bytes created, all zero-copy)."""
    created_before = _created()
    start = time.perf_counter()
    if by_value:
        refs = [scope.ref(read.remote(arr)) for _ in range(n)]  # a fresh copy for each call
    else:
        ref = ray.put(arr)  # the one copy into shared memory
        refs = [scope.ref(read.remote(ref)) for _ in range(n)]
    results = wait_all(refs, deadline, what=f"the {name} readers")
    took = time.perf_counter() - start
    if not by_value:
        del ref
    created_after = _created()
    copied = (
        None if created_before is None or created_after is None else created_after - created_before
    )
    return took, copied, all(shared for _, shared in results)


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    n, size_mb, trials = params["n_readers"], params["size_mb"], params["trials"]
    arr = np.ones(size_mb * 1024 * 1024 // 8, dtype=np.float64)
    labels = {"by_ref": "one reference", "by_value": "a copy per call"}
    for name, label in labels.items():
        figures.define(f"{name}_ms", f"{label}, until all {n} readers had read", "ms",
                       series=name)  # fmt: skip
        figures.define(f"{name}_copies", f"{label}, arrays stored in the object store",
                       "copies")  # fmt: skip
    figures.define("by_ref_copies_per_node", "one reference, arrays stored per node", "copies")
    figures.define("zero_copy", "every reader read a shared-memory view", YES_NO)
    # On a cluster each node that runs a reader keeps a copy of its own: one per node, at most.
    nodes = max(1, sum(1 for node in ray.nodes() if node.get("Alive")))

    with owned() as scope:
        # Warm-up, not timed: start the task workers and let the object store map the memory a
        # by-value phase needs (a cold store pays for its first pages inside the timed part).
        _phase("warm-up", True, arr, min(n, 2), deadline, scope)
        for trial in range(1, trials + 1):
            order = ("by_ref", "by_value") if trial % 2 else ("by_value", "by_ref")
            shared_everywhere = True
            for name in order:
                took, copied, shared = _phase(
                    labels[name], name == "by_value", arr, n, deadline, scope
                )
                shared_everywhere = shared_everywhere and shared
                figures.add(f"{name}_ms", took * 1000, x=trial)
                if copied is not None:
                    figures.add(f"{name}_copies", copied / arr.nbytes)
                    if name == "by_ref":
                        figures.add("by_ref_copies_per_node", copied / arr.nbytes / nodes)
            figures.add("zero_copy", shared_everywhere)
            deadline.check()

    summary = figures.as_dict()
    med = {key: summary[key]["median"] for key in summary}
    return {
        "figures": figures,
        "size_mb": size_mb,
        "readers": n,
        "nodes": nodes,
        "trials": trials,
        "effect": (
            f"{n} readers of a {size_mb} MB array, median over {trials} trials: by reference "
            f"{number(med['by_ref_ms'])} ms until all had read, with "
            f"{number(med['by_ref_copies'] or 0)} copies stored in the object store; by value "
            f"{number(med['by_value_ms'])} ms, with {number(med['by_value_copies'] or 0)} copies"
        ),
    }
