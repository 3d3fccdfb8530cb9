"""An actor killed mid-run is restarted by Ray and restores its last checkpoint from a file;
the run completes with the same result as a run without failure. Then a task whose worker
process dies on its first attempt is retried (max_retries) and returns.

The checkpoint is a JSON file in a temporary directory (durable storage for one machine: it
outlives the process, unlike anything kept in the actor): the restarted process reads it in
its constructor, as a real learner reloads its weights.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import ray

from .base import Deadline, cpu_spin
from .claims import YES_NO, Figures
from .raytools import actors_ready, owned, wait_all


@ray.remote(max_restarts=3, max_task_retries=-1)
class Learner:
    """Keeps a running total (its "weights"); Ray restarts the process if it dies."""

    def __init__(self, checkpoint_path: str):
        self.path = Path(checkpoint_path)
        self.pid = os.getpid()
        self.reload()  # a restarted process finds its checkpoint on disk

    def reload(self) -> int:
        """Restore the last checkpoint from durable storage (nothing saved yet: step 0)."""
        self.total, self.step_no = 0, 0
        if self.path.exists():
            saved = json.loads(self.path.read_text())
            self.step_no, self.total = saved["step_no"], saved["total"]
        return self.step_no

    def step(self, i: int, work_s: float) -> tuple[int, int, int]:
        cpu_spin(work_s)
        self.total += i * i
        self.step_no = i + 1
        return self.step_no, self.total, self.pid

    def crash_if(self, pid: int) -> None:
        """Die like a segfault would, but only in the process we meant to kill (the call is
        retried on the restarted process, which must survive it)."""
        if os.getpid() == pid:
            os._exit(1)

    def save(self) -> int:
        """Write the checkpoint atomically (a crash mid-write leaves the previous one)."""
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"step_no": self.step_no, "total": self.total}))
        os.replace(tmp, self.path)
        return self.step_no

    def state(self) -> tuple[int, int, int]:
        return self.step_no, self.total, self.pid


@ray.remote(max_retries=2, num_cpus=0.5)
def fragile_task(folder: str, die_first: bool) -> int:
    """Counts its attempts in files; the first attempt kills its own worker process."""
    attempts = len(os.listdir(folder)) + 1
    Path(folder, f"attempt-{attempts}").touch()
    if die_first and attempts == 1:
        os._exit(1)
    return attempts


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    n, kill_at, every = params["steps"], params["kill_at_step"], params["checkpoint_every"]
    work_s, do_kill = params["work_ms"] / 1000, params["kill"]
    figures.define("restarted", "the learner ran in a new process after the kill", YES_NO)
    figures.define("completed_correctly", "its final total equalled a run without failure",
                   YES_NO)  # fmt: skip
    figures.define("task_retried_and_returned", "the task whose process died was retried and "
                   "returned", YES_NO)  # fmt: skip
    figures.define("restart_ms", "kill to resumed from the checkpoint", "ms", series="restart")
    figures.define("steps_redone", "steps redone since the checkpoint", "steps")
    figures.define("task_attempts", "attempts the task took", "attempts")
    folder = tempfile.mkdtemp(prefix="raydeck-fault-")
    checkpoint = os.path.join(folder, "learner.json")
    try:
        with owned() as scope:
            learner = scope.actor(Learner.remote(checkpoint))  # type: ignore[attr-defined]
            actors_ready([learner], deadline, what="the learner actor to start")
            pids: list[int] = []
            redone, restart_s, killed_at, i = 0, None, 0.0, 0
            while i < n:
                deadline.check()
                if do_kill and i == kill_at and restart_s is None:
                    killed_at = time.perf_counter()
                    learner.crash_if.remote(pids[-1])  # queued before the next step: dies first
                t0 = time.perf_counter()
                # max_task_retries=-1: a call in flight when the process died is retried.
                _, _, pid = wait_all([learner.step.remote(i, work_s)], deadline)[0]
                if not pids:
                    pids.append(pid)
                elif pid != pids[-1]:
                    # A fresh process: it restored the file in its constructor, but the call
                    # retried on it has already run on that state, so read the file again.
                    resumed = wait_all([learner.reload.remote()], deadline, what="restore")[0]
                    restart_s = time.perf_counter() - killed_at
                    figures.add("restart_ms", restart_s * 1000, x=i)
                    pids.append(pid)
                    redone += i - resumed
                    i = resumed
                    continue
                figures.point("step_ms", i, (time.perf_counter() - t0) * 1000)
                i += 1
                if i % every == 0:
                    wait_all([learner.save.remote()], deadline, what="the checkpoint")
            final_total = wait_all([learner.state.remote()], deadline, what="the state")[0][1]
            task_folder = os.path.join(folder, "task")
            os.mkdir(task_folder)
            attempts = wait_all(
                [scope.ref(fragile_task.remote(task_folder, do_kill))], deadline,
                what="the retried task",
            )[0]  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    expected = sum(k * k for k in range(n))
    figures.add("restarted", len(set(pids)) > 1)
    figures.add("completed_correctly", final_total == expected)
    figures.add("task_retried_and_returned", attempts > 1)
    figures.add("task_attempts", attempts)
    if restart_s is not None:
        figures.add("steps_redone", redone)
    return {
        "figures": figures,
        "steps": n,
        "killed": do_kill,
        "processes_used": len(set(pids)),
        "result": final_total,
        "expected": expected,
        "task_attempts": attempts,
        "checkpoint": "a JSON file in a temporary directory, read by the restarted process",
        "effect": (
            f"the learner was killed before step {kill_at}; Ray restarted it in "
            f"{restart_s * 1000:.0f} ms, the new process restored the checkpoint file, "
            f"{redone} step(s) were redone and the total was {final_total} (expected "
            f"{expected}); the task took {attempts} attempt(s)"
            if restart_s is not None
            else f"one process ran every step, total {final_total} (expected {expected}); "
            f"the task took {attempts} attempt(s)"
        ),
    }
