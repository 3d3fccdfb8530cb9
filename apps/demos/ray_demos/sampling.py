"""Sampling is the bottleneck: environment steps per second with 1..N rollout actors."""

from __future__ import annotations

import time

import ray

from .base import Deadline, Report
from .envs import CartPole
from .raytools import actors_ready, cluster_cpus, owned, wait_all


@ray.remote
class RolloutWorker:
    def __init__(self, seed: int, step_cost_s: float):
        self.env = CartPole(seed=seed, step_cost_s=step_cost_s)
        self.obs = self.env.reset()

    def sample(self, seconds: float) -> int:
        """Step the environment with the policy for `seconds` of wall time; return steps."""
        steps, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            for _ in range(50):
                self.obs, _, done = self.env.step(self.env.heuristic_action(self.obs))
                if done:
                    self.obs = self.env.reset()
            steps += 50
        return steps


def run(params: dict, report: Report, *, deadline: Deadline) -> dict:
    n_max, seconds = params["max_actors"], params["seconds_per_point"]
    step_cost_s = params["env_step_us"] / 1e6
    cpus = cluster_cpus()
    # Fractions beyond what the cluster has would leave actors pending forever.
    share = min(1.0, cpus / n_max)
    with owned() as scope:
        workers = [
            scope.actor(RolloutWorker.options(num_cpus=share).remote(i, step_cost_s))
            for i in range(n_max)
        ]
        actors_ready(workers, deadline, what=f"{n_max} rollout actors to start")
        wait_all([w.sample.remote(0.05) for w in workers], deadline, what="a warm-up")
        rates = {}
        for k in range(1, n_max + 1):
            start = time.perf_counter()
            steps = sum(
                wait_all(
                    [w.sample.remote(seconds) for w in workers[:k]],
                    deadline,
                    what=f"{k} rollout actors",
                )
            )
            rates[k] = steps / (time.perf_counter() - start)
            report({"series": "steps_per_s", "x": k, "y": round(rates[k], 1)})
            report({"series": "ideal", "x": k, "y": round(rates[1] * k, 1)})
    best_k = max(rates, key=rates.get)
    return {
        "cluster_cpus": cpus,
        "steps_per_s": {str(k): round(v) for k, v in rates.items()},
        "speedup_2_vs_1": round(rates[2] / rates[1], 2) if 2 in rates else None,
        "best_actors": best_k,
        "best_speedup": round(rates[best_k] / rates[1], 2),
        "effect": (
            f"1 actor sampled {rates[1]:,.0f} steps/s; {best_k} actors reached "
            f"{rates[best_k]:,.0f} steps/s ({rates[best_k] / rates[1]:.1f}x) on {cpus:g} CPUs"
            " — beyond one actor per core, more actors only share the same cores"
        ),
    }
