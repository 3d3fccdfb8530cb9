"""Stateless tasks run a map in parallel; state that must survive between calls needs an actor."""

from __future__ import annotations

import time

import ray

from .base import Deadline, Report, cpu_spin
from .raytools import actors_ready, owned, wait_all, wait_any

_calls_seen_by_this_worker = 0  # module state in a task worker: per process, not per program


def _work(seconds: float) -> int:
    global _calls_seen_by_this_worker
    cpu_spin(seconds)
    _calls_seen_by_this_worker += 1
    return _calls_seen_by_this_worker


@ray.remote(num_cpus=1)
def work_task(seconds: float) -> int:
    """A task: whatever it keeps in globals lives in whichever worker process ran it."""
    return _work(seconds)


@ray.remote(num_cpus=1)
class Counter:
    """An actor: one process, one object, calls served in order, so its count is exact."""

    def __init__(self):
        self.calls = 0

    def work(self, seconds: float) -> int:
        cpu_spin(seconds)
        self.calls += 1
        return self.calls


def run(params: dict, report: Report, *, deadline: Deadline) -> dict:
    n, seconds = params["n_items"], params["work_ms"] / 1000

    with owned() as scope:
        # Serial baseline: the same task, one at a time, so both run in Ray worker processes
        # (Ray runs its workers at a lower priority than the driver).
        wait_all([work_task.remote(0.001) for _ in range(2)], deadline, what="workers to start")
        start = time.perf_counter()
        for i in range(n):
            wait_all([scope.ref(work_task.remote(seconds))], deadline, what="a serial task")
            report({"series": "serial", "x": i + 1, "y": time.perf_counter() - start})
        serial_s = time.perf_counter() - start

        start = time.perf_counter()
        pending = [scope.ref(work_task.remote(seconds)) for _ in range(n)]
        task_counts, done = [], 0
        while pending:
            ready, pending = wait_any(pending, deadline, what="the parallel tasks")
            for ref in ready:
                done += 1
                task_counts.append(ray.get(ref, timeout=10))
                report({"series": "tasks", "x": done, "y": time.perf_counter() - start})
        tasks_s = time.perf_counter() - start

        counter = scope.actor(Counter.remote())
        actors_ready([counter], deadline, what="the counter actor to start")
        start = time.perf_counter()
        pending = [counter.work.remote(seconds) for _ in range(n)]
        actor_count, done = 0, 0
        while pending:
            ready, pending = wait_any(pending, deadline, what="the counter actor")
            for ref in ready:
                done += 1
                actor_count = max(actor_count, ray.get(ref))
                report({"series": "actor", "x": done, "y": time.perf_counter() - start})
        actor_s = time.perf_counter() - start

    return {
        "serial_s": round(serial_s, 3),
        "tasks_s": round(tasks_s, 3),
        "actor_s": round(actor_s, 3),
        "tasks_speedup": round(serial_s / tasks_s, 2),
        "actor_count": actor_count,
        "task_global_counts": sorted(task_counts)[-4:],
        "items": n,
        "effect": (
            f"tasks finished {n} items {serial_s / tasks_s:.1f}x faster than one process; "
            f"the actor counted exactly {actor_count} calls, while a counter kept in task "
            f"globals ended at {max(task_counts)}: it counts per worker process, not per program"
        ),
    }
