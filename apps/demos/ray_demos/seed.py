"""SEED-style central batched inference vs inference inside each rollout actor.

Each actor steps several CartPoles (as SEED's and RLlib's actors do). Three modes, in
repeated interleaved trials: per-actor inference on CPU (each actor runs its own copy of the
policy, so the forward passes are spread over the actor processes); central batched
inference on CPU (one process, the driver, runs every forward pass, batching dynamically
whatever observations have arrived, as SEED's inference server does); and central inference
on an assumed accelerator, where the forward pass is replaced by a fixed wait per batch (a
sleep standing for an accelerator's kernel time whatever the batch size: a model, labelled
as such).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import ray

from .base import Deadline
from .claims import Figures, number
from .envs import CartPole
from .raytools import actors_ready, get_within, owned, share_for, wait_any


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
        return np.asarray(np.argmax(h @ self.last, axis=-1))


@ray.remote
class EnvActor:
    def __init__(self, seed: int, n_envs: int, hidden: int, layers: int):
        self.envs = [CartPole(seed=seed * 1000 + i) for i in range(n_envs)]
        self.obs = [env.reset() for env in self.envs]
        self.policy = Policy(hidden, layers)

    def observe(self) -> list[list[float]]:
        return self.obs

    def step(self, actions: Sequence[int] | np.ndarray) -> list[list[float]]:
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


def _per_actor(actors: Sequence[Any], seconds: float, deadline: Deadline) -> float:
    start = time.perf_counter()
    total = sum(get_within([a.run_local.remote(seconds) for a in actors], deadline))
    return float(total / (time.perf_counter() - start))


def _central(
    actors: Sequence[Any],
    per_actor: int,
    seconds: float,
    infer: Callable[[np.ndarray], np.ndarray],
    deadline: Deadline,
) -> tuple[float, float, float]:
    """Dynamic batching: run the policy on whatever observations have arrived, send each
    actor its actions, repeat. Returns (steps/s, mean batch, share of time in inference)."""
    inflight = {a.observe.remote(): i for i, a in enumerate(actors)}
    steps, batches, infer_s, start = 0, [], 0.0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        ready, pending = wait_any(list(inflight), deadline, what="the environment actors")
        if pending:  # everything else that has arrived by now joins this batch
            ready += ray.wait(pending, num_returns=len(pending), timeout=0)[0]
        who = [inflight.pop(ref) for ref in ready]
        obs = np.concatenate([np.asarray(o, dtype=np.float32) for o in ray.get(ready)])
        t0 = time.perf_counter()
        actions = infer(obs).tolist()
        infer_s += time.perf_counter() - t0
        for k, i in enumerate(who):
            inflight[actors[i].step.remote(actions[k * per_actor : (k + 1) * per_actor])] = i
        steps += len(obs)
        batches.append(len(obs))
    elapsed = time.perf_counter() - start
    get_within(list(inflight), deadline, what="the last steps")
    return steps / elapsed, float(np.mean(batches)), infer_s / elapsed


MODES = ("per_actor", "central_cpu", "central_modelled")


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    n_actors, per_actor = params["n_actors"], params["envs_per_actor"]
    hidden, layers, seconds = params["hidden"], params["layers"], params["seconds_per_mode"]
    trials, accel_s = params["trials"], params["accel_ms"] / 1000
    policy = Policy(hidden, layers)

    def modelled_accelerator(obs: np.ndarray) -> np.ndarray:
        time.sleep(accel_s)  # an assumption: an accelerator's fixed time per batch
        return (obs[:, 2] + 0.5 * obs[:, 3] > 0).astype(int)

    figures.define("per_actor", f"per-actor: forward passes in {n_actors} actor processes",
                   "steps/s", series="per_actor")  # fmt: skip
    figures.define("central_cpu", "central: every forward pass in one process", "steps/s",
                   series="central_cpu")  # fmt: skip
    figures.define("central_modelled", f"central, assumed {params['accel_ms']:g} ms per batch",
                   "steps/s", series="central_modelled")  # fmt: skip
    figures.define("central_batch", "central: mean dynamic batch", "observations")
    figures.define("central_inference_share", "central process: share of time in inference", "%")
    share = share_for(n_actors)
    with owned() as scope:
        actors = [
            scope.actor(EnvActor.options(num_cpus=share).remote(i, per_actor, hidden, layers))  # type: ignore[attr-defined]
            for i in range(n_actors)
        ]
        actors_ready(actors, deadline, what=f"{n_actors} environment actors to start")
        # Warm-up, not timed: each mode once, briefly (BLAS threads, first calls).
        _per_actor(actors, 0.05, deadline)
        _central(actors, per_actor, 0.05, policy.act, deadline)
        for trial in range(1, trials + 1):
            turn = (trial - 1) % 3  # trial 1 starts with per-actor inference
            for mode in MODES[turn:] + MODES[:turn]:
                if mode == "per_actor":
                    rate = _per_actor(actors, seconds, deadline)
                elif mode == "central_cpu":
                    rate, batch, busy = _central(actors, per_actor, seconds, policy.act, deadline)
                    figures.add("central_batch", batch)
                    figures.add("central_inference_share", 100 * busy)
                else:
                    rate, _, _ = _central(
                        actors, per_actor, seconds, modelled_accelerator, deadline
                    )
                figures.add(mode, rate, x=trial)
    summary = figures.as_dict()
    med = {k: summary[k]["median"] for k in summary}
    where = "per-actor" if med["per_actor"] >= med["central_cpu"] else "central"
    return {
        "figures": figures,
        "environments": n_actors * per_actor,
        "trials": trials,
        "assumption": (
            f"central_modelled replaces the forward pass by a {params['accel_ms']:g} ms wait per "
            "batch, whatever its size: a modelled accelerator, not a measurement"
        ),
        "effect": (
            f"measured on CPU (median of {trials}): per-actor inference, its forward passes "
            f"spread over {n_actors} actor processes, {number(med['per_actor'])} steps/s; "
            f"central inference, every forward pass in one process (busy "
            f"{number(med['central_inference_share'])}% of the time, mean batch "
            f"{number(med['central_batch'])}), {number(med['central_cpu'])} steps/s: {where} "
            f"was faster here. Assuming {params['accel_ms']:g} ms per batch on an accelerator, "
            f"central inference would serve {number(med['central_modelled'])} steps/s"
        ),
    }
