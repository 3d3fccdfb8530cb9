"""Stateless tasks run a map in parallel; state that must survive between calls needs an actor.

Every trial runs the same items three ways (one task at a time, all tasks at once, one actor),
in a rotating order so that a neighbour's load drifting over the run falls on every mode. Each
item burns work_ms of its process's own CPU time (base.cpu_spin), so every mode does the same
work, and a time below what that work needs is a broken measurement, never a speed-up.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import ray

from .base import Deadline, cpu_spin
from .claims import YES_NO, Figures, number
from .raytools import actors_ready, owned, wait_all

# Module state in a task worker: one dict per worker process, keyed by (run, trial), so a
# count only ever holds this run's calls, however many earlier runs that process served.
_calls_seen_by_this_worker: dict[str, int] = {}


def _work(seconds: float, key: str) -> int:
    cpu_spin(seconds)
    _calls_seen_by_this_worker[key] = _calls_seen_by_this_worker.get(key, 0) + 1
    return _calls_seen_by_this_worker[key]


@ray.remote(num_cpus=1)
def work_task(seconds: float, key: str) -> int:
    """A task: whatever it keeps in globals lives in whichever worker process ran it."""
    return _work(seconds, key)


@ray.remote(num_cpus=0)  # holds no CPU while the tasks run; its calls still burn one core
class Counter:
    """An actor: one process, one object, calls served in order, so its count is exact."""

    def __init__(self) -> None:
        self.calls = 0

    def reset(self) -> int:
        self.calls = 0
        return 0

    def work(self, seconds: float) -> int:
        cpu_spin(seconds)
        self.calls += 1
        return self.calls


MODES = ("tasks", "serial", "actor")


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    n, seconds, trials = params["n_items"], params["work_ms"] / 1000, params["trials"]
    run_key = uuid.uuid4().hex
    figures.define("serial_s", f"{n} items one task at a time", "s", series="serial")
    figures.define("tasks_s", f"{n} items as parallel tasks", "s", series="tasks")
    figures.define("actor_s", f"{n} items on one actor", "s", series="actor")
    figures.define("actor_counter_exact", f"the actor counted exactly {n} calls", YES_NO)
    figures.define("actor_count", "the actor's count of its calls", "calls")
    figures.define("task_counter_max", "the highest count kept in task globals", "calls")

    with owned() as scope:
        counter = scope.actor(Counter.remote())  # type: ignore[attr-defined]
        # Warm-up, not timed: start two task workers and the actor.
        wait_all(
            [scope.ref(work_task.remote(0.01, f"{run_key}:warm")) for _ in range(2)]
            + [counter.work.remote(0.01)],
            deadline,
            what="workers to start",
        )
        actors_ready([counter], deadline, what="the counter actor to start")
        for trial in range(1, trials + 1):
            turn = (trial - 1) % 3  # trial 1 starts with the parallel tasks: a quick first point
            for mode in MODES[turn:] + MODES[:turn]:
                key = f"{run_key}:{trial}"
                start = time.perf_counter()
                if mode == "serial":
                    for _ in range(n):
                        wait_all([scope.ref(work_task.remote(seconds, key))], deadline,
                                 what="a serial task")  # fmt: skip
                elif mode == "tasks":
                    counts = wait_all(
                        [scope.ref(work_task.remote(seconds, f"{key}:parallel")) for _ in range(n)],
                        deadline,
                        what="the parallel tasks",
                    )
                else:
                    wait_all([counter.reset.remote()], deadline, what="the counter actor")
                    start = time.perf_counter()
                    actor_count = max(
                        wait_all(
                            [counter.work.remote(seconds) for _ in range(n)],
                            deadline,
                            what="the counter actor",
                        )  # fmt: skip
                    )
                figures.add(f"{mode}_s", time.perf_counter() - start, x=trial)
            figures.add("actor_count", actor_count)
            figures.add("actor_counter_exact", actor_count == n)
            figures.add("task_counter_max", max(counts))
            deadline.check()

    summary = figures.as_dict()
    med = {key: summary[key]["median"] for key in ("serial_s", "tasks_s", "actor_s")}
    return {
        "figures": figures,
        "items": n,
        "trials": trials,
        "effect": (
            f"median over {trials} trials: {n} items took {number(med['serial_s'])} s one task at"
            f" a time, {number(med['tasks_s'])} s as parallel tasks and {number(med['actor_s'])} s"
            f" on one actor; the actor counted {number(summary['actor_count']['median'])} calls "
            f"of {n}, a counter in task globals reached at most "
            f"{number(summary['task_counter_max']['max'])} in any one worker process"
        ),
    }
