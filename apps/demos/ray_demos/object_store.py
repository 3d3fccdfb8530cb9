"""One large array put in the object store once and read by many tasks, vs a copy per call.

Each reader's latency counts from just before its submission (where passing the array by
value serialises a fresh copy into the object store) to its result. The bytes copied are
measured: the raylet's count of bytes created in the object store during each phase.
"""

from __future__ import annotations

import time

import numpy as np
import ray

from .base import Deadline, Report
from .claims import Figures
from .raytools import object_store_bytes_created, owned, wait_any


@ray.remote(num_cpus=1)
def read(arr: np.ndarray) -> tuple[float, bool]:
    """Touch every page of the array; report whether it was a read-only shared-memory view."""
    total = float(arr[::512].sum())
    return total, not arr.flags.writeable


def _phase(name, by_value, arr, n, report, deadline, scope) -> tuple[list[float], int, bool]:
    """Submit n readers one after another; each one's latency includes its own submission.
    Returns [total, latency of reader 1, ..., of reader n], bytes created, all zero-copy."""
    created_before = object_store_bytes_created()
    start = time.perf_counter()
    submitted, pending = {}, []
    ref = None
    for i in range(n):
        t0 = time.perf_counter()
        if by_value:
            out = read.remote(arr)  # Ray serialises and stores a fresh copy for this call
        else:
            ref = ref if ref is not None else ray.put(arr)  # the one copy into shared memory
            out = read.remote(ref)
        submitted[scope.ref(out)] = (i, t0)
        pending.append(out)
    latencies, zero_copy = [0.0] * n, True
    while pending:
        ready, pending = wait_any(pending, deadline, what=f"the {name} readers")
        for done in ready:
            i, t0 = submitted[done]
            latencies[i] = time.perf_counter() - t0
            _, shared = ray.get(done)
            zero_copy = zero_copy and shared
    total = time.perf_counter() - start
    del ref
    copied = object_store_bytes_created() - created_before
    return [total, *latencies], copied, zero_copy


def run(params: dict, report: Report, *, deadline: Deadline) -> dict:
    n, size_mb, trials = params["n_readers"], params["size_mb"], params["trials"]
    arr = np.ones(size_mb * 1024 * 1024 // 8, dtype=np.float64)
    figures = Figures()
    figures.define("by_value_vs_by_ref", "time for every reader: by value / by reference", "x")
    for name, label in (("by_ref", "passing one reference"), ("by_value", "a copy per call")):
        figures.define(f"{name}_s", f"{label}: time until all {n} readers had read", "s")
        figures.define(f"{name}_last_reader_ms", f"{label}: latency of the last reader", "ms")
        figures.define(f"{name}_mb_copied", f"{label}: MB created in the object store", "MB")

    with owned() as scope:
        # Warm-up, not timed: start the task workers and let the object store map the memory a
        # by-value phase needs (a cold store pays for its first pages inside the timed part).
        _phase("warm-up", True, arr, min(n, 2), lambda p: None, deadline, scope)
        shared_everywhere = True
        for trial in range(1, trials + 1):
            order = ("by_ref", "by_value") if trial % 2 else ("by_value", "by_ref")
            totals = {}
            for name in order:
                timings, copied, shared = _phase(
                    name, name == "by_value", arr, n, report, deadline, scope
                )
                totals[name] = timings[0]
                shared_everywhere = shared_everywhere and shared
                figures.add(f"{name}_s", timings[0])
                figures.add(f"{name}_last_reader_ms", timings[-1] * 1000)
                figures.add(f"{name}_mb_copied", copied / 2**20)
                if trial == 1:  # the chart draws the first trial; the figures keep every one
                    for i, latency in enumerate(timings[1:], start=1):
                        report({"series": name, "x": i, "y": round(latency * 1000, 2)})
            figures.add("by_value_vs_by_ref", totals["by_value"] / totals["by_ref"])
            deadline.check()

    summary = figures.as_dict()
    return {
        "figures": figures,
        "size_mb": size_mb,
        "readers": n,
        "trials": trials,
        "readers_saw_shared_memory": shared_everywhere,
        "effect": (
            f"{n} readers of a {size_mb} MB array, median over {trials} trials: by reference "
            f"{summary['by_ref_s']['median']:g} s with {summary['by_ref_mb_copied']['median']:g}"
            f" MB created in the object store, by value {summary['by_value_s']['median']:g} s "
            f"with {summary['by_value_mb_copied']['median']:g} MB"
        ),
    }
