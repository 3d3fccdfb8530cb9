"""An actor killed mid-run is restarted by Ray, restores its last checkpoint, and the run
completes with the same result as a run without failure."""

from __future__ import annotations

import os
import time

import ray

from .base import Deadline, Report, cpu_spin
from .raytools import actors_ready, owned, wait_all


@ray.remote(max_restarts=3, max_task_retries=-1)
class Learner:
    """Keeps a running total (its "weights"); Ray restarts the process if it dies."""

    def __init__(self):
        self.total, self.step_no, self.pid = 0, 0, os.getpid()

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

    def save(self) -> tuple[int, int]:
        return self.step_no, self.total

    def restore(self, checkpoint: tuple[int, int]) -> int:
        self.step_no, self.total = checkpoint
        return self.pid


def run(params: dict, report: Report, *, deadline: Deadline) -> dict:
    n, kill_at, every = params["steps"], params["kill_at_step"], params["checkpoint_every"]
    work_s, do_kill = params["work_ms"] / 1000, params["kill"]
    with owned() as scope:
        learner = scope.actor(Learner.remote())
        actors_ready([learner], deadline, what="the learner actor to start")
        checkpoint, pids, redone, restart_s = (0, 0), [], 0, None
        killed_at, i = 0.0, 0
        while i < n:
            deadline.check()
            if do_kill and i == kill_at and restart_s is None:
                killed_at = time.perf_counter()
                learner.crash_if.remote(pids[-1])  # queued before the next step: it dies first
            t0 = time.perf_counter()
            # max_task_retries=-1: a call in flight when the process died is retried on the new one.
            step_no, total, pid = wait_all([learner.step.remote(i, work_s)], deadline)[0]
            if not pids:
                pids.append(pid)
            elif pid != pids[-1]:
                # A fresh process: its state is back to zero, so restore and redo lost steps.
                wait_all([learner.restore.remote(checkpoint)], deadline, what="restore")
                restart_s = time.perf_counter() - killed_at
                report({"series": "restart", "x": i, "y": round(restart_s * 1000, 1)})
                redone += i - checkpoint[0]
                pids.append(pid)
                i = checkpoint[0]
                continue
            report({"series": "step_ms", "x": i, "y": round((time.perf_counter() - t0) * 1000, 1)})
            i += 1
            if i % every == 0:
                checkpoint = wait_all([learner.save.remote()], deadline, what="save")[0]
        final_total = wait_all([learner.save.remote()], deadline, what="save")[0][1]
    expected = sum(k * k for k in range(n))
    processes = len(set(pids))
    return {
        "steps": n,
        "killed": do_kill,
        "processes_used": processes,
        "restart_ms": round(restart_s * 1000) if restart_s is not None else None,
        "steps_redone": redone,
        "result": final_total,
        "expected": expected,
        "completed_correctly": final_total == expected,
        "effect": (
            f"the learner was killed at step {kill_at}; Ray restarted it in "
            f"{restart_s * 1000:.0f} ms, it resumed from the checkpoint at step "
            f"{kill_at - redone} and finished with the right total"
            if restart_s is not None
            else "no failure was injected: one process ran every step"
        ),
    }
