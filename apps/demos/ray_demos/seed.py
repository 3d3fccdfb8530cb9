"""SEED-style central batched inference vs inference inside each rollout actor.

Each actor steps several CartPoles (as SEED's and RLlib's actors do). Three measured runs:
per-actor inference on CPU (each actor runs its own copy of the policy on its batch);
central batched inference on CPU (the learner process runs one forward pass for every
environment, one round trip per step); and central inference on a modelled accelerator,
where the forward pass is replaced by a fixed wait per batch (a sleep that stands for an
accelerator's kernel time, whatever the batch size).
"""

from __future__ import annotations

import time

import numpy as np
import ray

from .base import Deadline, Report
from .envs import CartPole
from .raytools import actors_ready, cluster_cpus, get_within, owned

CHUNK_S = 0.25  # how often each mode reports its step count


class Policy:
    """An MLP on CartPole observations (float32), deep and wide enough to cost real CPU."""

    def __init__(self, hidden: int, layers: int, seed: int = 0):
        rng = np.random.default_rng(seed)
        scale = 1 / np.sqrt(hidden)
        self.first = rng.normal(scale=0.5, size=(4, hidden)).astype(np.float32)
        self.hidden = [
            rng.normal(scale=scale, size=(hidden, hidden)).astype(np.float32) for _ in range(layers)
        ]
        self.last = rng.normal(scale=scale, size=(hidden, 2)).astype(np.float32)

    def act(self, obs: np.ndarray) -> np.ndarray:
        h = np.tanh(np.asarray(obs, dtype=np.float32) @ self.first)
        for w in self.hidden:
            h = np.tanh(h @ w)
        return np.argmax(h @ self.last, axis=-1)


@ray.remote
class EnvActor:
    def __init__(self, seed: int, n_envs: int, hidden: int, layers: int):
        self.envs = [CartPole(seed=seed * 1000 + i) for i in range(n_envs)]
        self.obs = [env.reset() for env in self.envs]
        self.policy = Policy(hidden, layers)

    def observe(self) -> list[list[float]]:
        return self.obs

    def step(self, actions) -> list[list[float]]:
        for i, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            obs, _, done = env.step(int(action))
            self.obs[i] = env.reset() if done else obs
        return self.obs

    def run_local(self, seconds: float) -> int:
        """Per-actor inference: this actor runs its own policy copy on its own CPU."""
        steps, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            self.step(self.policy.act(np.array(self.obs)))
            steps += len(self.envs)
        return steps


def _per_actor(actors, seconds, report, deadline) -> float:
    total, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        total += sum(get_within([a.run_local.remote(CHUNK_S) for a in actors], deadline))
        report({"series": "per_actor", "x": round(time.perf_counter() - start, 3), "y": total})
    return total / (time.perf_counter() - start)


def _central(actors, per_actor, seconds, infer, series, report, deadline) -> float:
    obs = np.concatenate(get_within([a.observe.remote() for a in actors], deadline))
    total, start, next_report = 0, time.perf_counter(), CHUNK_S
    while time.perf_counter() - start < seconds:
        actions = infer(obs).tolist()  # one batch for every environment of every actor
        refs = [
            a.step.remote(actions[i * per_actor : (i + 1) * per_actor])
            for i, a in enumerate(actors)
        ]
        obs = np.concatenate(get_within(refs, deadline))
        total += len(obs)
        elapsed = time.perf_counter() - start
        if elapsed >= next_report:
            report({"series": series, "x": round(elapsed, 3), "y": total})
            next_report += CHUNK_S
    return total / (time.perf_counter() - start)


def run(params: dict, report: Report, *, deadline: Deadline) -> dict:
    n_actors, per_actor = params["n_actors"], params["envs_per_actor"]
    hidden, layers, seconds = params["hidden"], params["layers"], params["seconds_per_mode"]
    accel_s = params["accel_ms"] / 1000
    policy = Policy(hidden, layers)

    def modelled_accelerator(obs):
        time.sleep(accel_s)  # modelled: an accelerator's fixed time per batch
        return (obs[:, 2] + 0.5 * obs[:, 3] > 0).astype(int)

    share = min(1.0, cluster_cpus() / n_actors)
    with owned() as scope:
        actors = [
            scope.actor(EnvActor.options(num_cpus=share).remote(i, per_actor, hidden, layers))
            for i in range(n_actors)
        ]
        actors_ready(actors, deadline, what=f"{n_actors} environment actors to start")
        rates = {"per_actor": _per_actor(actors, seconds, report, deadline)}
        rates["central_cpu"] = _central(
            actors, per_actor, seconds, policy.act, "central_cpu", report, deadline
        )
        rates["central_modelled"] = _central(
            actors, per_actor, seconds, modelled_accelerator, "central_modelled", report, deadline
        )
    cpu_winner = "per-actor" if rates["per_actor"] >= rates["central_cpu"] else "central"
    batch = n_actors * per_actor
    return {
        "batch": batch,
        "steps_per_s": {k: round(v) for k, v in rates.items()},
        "cpu_winner": cpu_winner,
        "modelled_vs_per_actor": round(rates["central_modelled"] / rates["per_actor"], 2),
        "modelled": (
            f"central_modelled replaces the forward pass by a {params['accel_ms']:g} ms wait"
        ),
        "effect": (
            f"measured on CPU: per-actor {rates['per_actor']:,.0f} steps/s vs central "
            f"{rates['central_cpu']:,.0f} steps/s ({cpu_winner} wins); with a modelled "
            f"accelerator ({params['accel_ms']:g} ms per batch of {batch}) central inference "
            f"reaches {rates['central_modelled']:,.0f} steps/s "
            f"({rates['central_modelled'] / rates['per_actor']:.1f}x per-actor)"
        ),
    }
