"""A real RLlib PPO Algorithm on CartPole: env runners sample, a learner updates.

Needs ray[rllib] and torch (installed by `make install`).
"""

from __future__ import annotations

import time
from typing import Any

from .base import Deadline
from .claims import Figures, number


def _number(result: dict[str, Any], *path: str, default: float = 0.0) -> float:
    node: Any = result
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    try:
        return float(node)
    except (TypeError, ValueError):
        return default


class _SamplingClock:
    """Times PPO's sampling call. RLlib's own timers are smoothed averages, not per-iteration."""

    def __init__(self, ppo_module: Any) -> None:
        self.module, self.seconds = ppo_module, 0.0
        self.original = ppo_module.synchronous_parallel_sample

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return self.original(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start

    def __enter__(self) -> _SamplingClock:
        self.module.synchronous_parallel_sample = self
        return self

    def __exit__(self, *exc: object) -> None:
        self.module.synchronous_parallel_sample = self.original


def random_return(episodes: int = 20, seed: int = 0) -> float:
    """Mean return of uniformly random actions on CartPole-v1: where training starts from."""
    import gymnasium as gym

    env = gym.make("CartPole-v1")
    total = 0.0
    for e in range(episodes):
        env.reset(seed=seed + e)
        done = False
        while not done:
            _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            total += float(reward)
            done = terminated or truncated
    env.close()
    return total / episodes


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    from ray.rllib.algorithms.ppo import PPOConfig, ppo

    iterations, runners, batch = params["iterations"], params["env_runners"], params["batch_size"]
    config = (
        PPOConfig()
        .environment("CartPole-v1")
        .framework("torch")
        .env_runners(num_env_runners=runners, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=min(128, batch),
            num_epochs=4,
            lr=3e-4,
        )
        .debugging(log_level="ERROR")
    )
    figures.define("first_return", "mean episode return, first iteration", series="return")
    figures.define("last_return", "mean episode return, last iteration")
    figures.define("sampling_share", "share of the iterations' time spent sampling", "%")
    # Measured before the (seconds-long) build: random actions, drawn as a warm-up point.
    figures.point("return", 0, random_return(), warmup=True)
    start = time.perf_counter()
    algo = config.build_algo()
    build_s = time.perf_counter() - start
    returns, sample_s, learn_s, iter_s = [], 0.0, 0.0, []
    try:
        with _SamplingClock(ppo) as clock:
            for i in range(1, iterations + 1):
                deadline.check()
                t0, sampled_before = time.perf_counter(), clock.seconds
                result = algo.train()
                took = time.perf_counter() - t0
                sampling = clock.seconds - sampled_before
                iter_s.append(took)
                sample_s, learn_s = sample_s + sampling, learn_s + took - sampling
                ret = _number(result, "env_runners", "episode_return_mean")
                returns.append(ret)
                if ret == ret and ret > 0 and not figures.values["first_return"]:
                    figures.add("first_return", ret, x=i, sampling_s=round(sampling, 3))
                else:
                    figures.point("return", i, ret, sampling_s=round(sampling, 3))
    finally:
        algo.stop()
    busy = sample_s + learn_s
    finite = [r for r in returns if r == r and r > 0]  # NaN before a first finished episode
    if finite:
        figures.add("last_return", finite[-1])
    if busy:
        figures.add("sampling_share", 100 * sample_s / busy)
    return {
        "figures": figures,
        "iterations": iterations,
        "env_runners": runners,
        "first_return": round(returns[0], 1) if returns else None,
        "last_return": round(returns[-1], 1) if returns else None,
        "build_s": round(build_s, 2),
        "mean_iteration_s": round(sum(iter_s) / len(iter_s), 2) if iter_s else None,
        "sampling_s": round(sample_s, 2),
        "learning_and_other_s": round(learn_s, 2),
        "sampling_share": round(sample_s / busy, 2) if busy else None,
        "effect": (
            f"this run reached a mean episode return of {number(finite[-1])} after {iterations} "
            f"iterations (from {number(finite[0])} at the first); sampling took "
            f"{number(sample_s)} s, learning (and the rest) {number(learn_s)} s"
            if finite
            else "no iteration ran"
        ),
    }
