"""Is sampling the bottleneck? Rollout actors sample CartPole batches for one learner actor,
which spends a fixed CPU time per sampled step on them; the learner's idle share says who
waits for whom: a learner idle most of the time is waiting for samples.

The driver hands each batch to the learner as it lands, with a queue of at most
QUEUE_BATCHES batches (a sampler that gets ahead waits), as a real sample queue would.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import ray

from .base import Deadline, cpu_spin
from .claims import Figures, number
from .envs import CartPole
from .raytools import actors_ready, cluster_cpus, owned, share_for, wait_all, wait_any

BATCH_STEPS = 200
QUEUE_BATCHES = 2
WARM_UP_S = 0.1


@ray.remote
class RolloutWorker:
    def __init__(self, seed: int, step_cost_s: float):
        self.env = CartPole(seed=seed, step_cost_s=step_cost_s)
        self.obs = self.env.reset()

    def sample(self, steps: int) -> np.ndarray:
        """Step the environment with the policy; return the observations of the batch."""
        batch = np.empty((steps, 4), dtype=np.float32)
        for t in range(steps):
            batch[t] = self.obs
            self.obs, _, done = self.env.step(self.env.heuristic_action(self.obs))
            if done:
                self.obs = self.env.reset()
        return batch


@ray.remote(num_cpus=0)
class Learner:
    """Consumes batches: learn_s of CPU per sampled step; remembers when it was busy."""

    def __init__(self, learn_s_per_step: float):
        self.cost = learn_s_per_step
        self.busy: list[tuple[float, float, int]] = []

    def learn(self, batch: np.ndarray) -> int:
        start = time.monotonic()
        cpu_spin(self.cost * len(batch))
        self.busy.append((start, time.monotonic(), len(batch)))
        return len(batch)

    def window(self, start: float, end: float) -> tuple[float, int]:
        """(seconds busy, steps learned) within [start, end] of the machine's monotonic clock;
        forgets what it had recorded."""
        busy = sum(max(0.0, min(e, end) - max(b, start)) for b, e, _ in self.busy)
        steps = sum(n for b, e, n in self.busy if e <= end)
        self.busy = []
        return busy, steps


def _measure(
    workers: Sequence[Any], learner: Any, seconds: float, deadline: Deadline
) -> tuple[float, float]:
    """Sample with these workers into the learner for `seconds`: (learner idle share, steps/s
    learned)."""
    wait_all([learner.window.remote(0, 0)], deadline, what="the learner")
    start = time.monotonic()
    inflight = {w.sample.remote(BATCH_STEPS): w for w in workers}
    learning: list[Any] = []
    while time.monotonic() - start < seconds:
        ready, _ = wait_any(list(inflight), deadline, what="the rollout actors")
        for ref in ready:
            worker = inflight.pop(ref)
            while len(learning) >= QUEUE_BATCHES:  # the queue is full: wait for the learner
                _, learning = wait_any(learning, deadline, what="the learner")
            learning.append(learner.learn.remote(ref))
            inflight[worker.sample.remote(BATCH_STEPS)] = worker
    end = time.monotonic()
    wait_all(list(inflight) + learning, deadline, what="the last batches")
    busy, steps = wait_all([learner.window.remote(start, end)], deadline, what="the learner")[0]
    return 1 - busy / (end - start), steps / (end - start)


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    n_max, seconds, trials = params["max_actors"], params["seconds_per_point"], params["trials"]
    step_cost_s, learn_s = params["env_step_us"] / 1e6, params["learn_us"] / 1e6
    cpus = cluster_cpus()
    share = share_for(n_max)  # a larger share would leave actors pending
    for k in range(1, n_max + 1):
        actors = f"{k} rollout actor{'s' * (k != 1)}"
        figures.define(f"idle_{k}", f"learner idle with {actors}", "%", series="idle")
        figures.define(f"steps_per_s_{k}", f"steps learned per second with {actors}", "steps/s")
    with owned() as scope:
        learner = scope.actor(Learner.remote(learn_s))  # type: ignore[attr-defined]
        workers = [
            scope.actor(RolloutWorker.options(num_cpus=share).remote(i, step_cost_s))  # type: ignore[attr-defined]
            for i in range(n_max)
        ]
        # Warm-up, not counted: as soon as the learner and one rollout actor are up (the others
        # still starting beside them), batches go through the queue; drawn as a warm-up point,
        # so the chart starts at once. Then every actor, before anything is counted.
        actors_ready([learner, workers[0]], deadline, what="the learner and a rollout actor")
        idle, _ = _measure(workers[:1], learner, WARM_UP_S, deadline)
        figures.point("idle", 1, 100 * idle, warmup=True)
        actors_ready(workers, deadline, what=f"{n_max} rollout actors to start")
        _measure(workers, learner, 0.05, deadline)
        for k in range(1, n_max + 1):
            for _ in range(trials):
                idle, rate = _measure(workers[:k], learner, seconds, deadline)
                figures.add(f"idle_{k}", 100 * idle, x=k)
                figures.add(f"steps_per_s_{k}", rate)
    summary = figures.as_dict()
    return {
        "figures": figures,
        "cluster_cpus": cpus,
        "trials": trials,
        "effect": (
            f"with 1 rollout actor the learner was idle {number(summary['idle_1']['median'])}% "
            f"of the time (median of {trials}) and learned "
            f"{number(summary['steps_per_s_1']['median'])} steps/s; with {n_max}: idle "
            f"{number(summary[f'idle_{n_max}']['median'])}%, "
            f"{number(summary[f'steps_per_s_{n_max}']['median'])} steps/s, on {cpus:g} CPUs"
        ),
    }
