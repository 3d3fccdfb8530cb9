"""One large array put in the object store once and read by many tasks, vs a copy per call."""

from __future__ import annotations

import time

import numpy as np
import ray

from .base import Deadline, Report
from .raytools import owned, wait_any


@ray.remote(num_cpus=1)
def read(arr: np.ndarray) -> tuple[float, bool]:
    """Touch every page of the array; report whether it was a read-only shared-memory view."""
    total = float(arr[::512].sum())
    return total, not arr.flags.writeable


def _phase(name, make_ref, n, report, deadline, scope) -> tuple[float, bool]:
    start = time.perf_counter()
    pending, done, zero_copy = [], 0, True
    for _ in range(n):
        pending.append(scope.ref(read.remote(make_ref())))
    while pending:
        ready, pending = wait_any(pending, deadline, what=f"the {name} readers")
        for ref in ready:
            done += 1
            _, shared = ray.get(ref)
            zero_copy = zero_copy and shared
            report({"series": name, "x": done, "y": time.perf_counter() - start})
    return time.perf_counter() - start, zero_copy


def run(params: dict, report: Report, *, deadline: Deadline) -> dict:
    n, size_mb = params["n_readers"], params["size_mb"]
    arr = np.ones(size_mb * 1024 * 1024 // 8, dtype=np.float64)
    nbytes = arr.nbytes

    with owned() as scope:
        # Warm the task workers so neither phase pays for starting processes.
        warm = [scope.ref(read.remote(np.ones(8))) for _ in range(2)]
        while warm:
            _, warm = wait_any(warm, deadline, what="Ray workers to start")

        holder = {}

        def put_once():
            if "ref" not in holder:
                holder["ref"] = ray.put(arr)  # the one copy into shared memory
            return holder["ref"]

        by_ref_s, shared_ref = _phase("by_ref", put_once, n, report, deadline, scope)
        holder.clear()
        # Passing the array itself: Ray serialises and stores a fresh copy for every call.
        by_value_s, shared_val = _phase("by_value", lambda: arr, n, report, deadline, scope)

    return {
        "size_mb": size_mb,
        "readers": n,
        "by_ref_s": round(by_ref_s, 3),
        "by_value_s": round(by_value_s, 3),
        "speedup": round(by_value_s / by_ref_s, 1),
        "mb_copied_by_ref": size_mb,
        "mb_copied_by_value": size_mb * n,
        "readers_saw_shared_memory": shared_ref and shared_val,
        "effect": (
            f"{n} readers of a {size_mb} MB array: put once and passed by reference took "
            f"{by_ref_s:.2f} s, a copy per call took {by_value_s:.2f} s "
            f"({by_value_s / by_ref_s:.1f}x slower, {size_mb * n} MB copied instead of {size_mb})"
        ),
        "bytes": nbytes,
    }
