"""Policy lag and V-trace: value targets from stale actors, with and without truncated
importance weights, against the exact value of the learner's current policy."""

from __future__ import annotations

import numpy as np
import ray

from .base import Deadline, Report
from .raytools import actors_ready, cluster_cpus, owned, wait_all

N_STATES = 6  # a chain: 0 .. 4 walkable, 5 is the goal (reward 1, episode ends)
GAMMA = 0.9
MAX_T = 100  # gamma**100 ~ 3e-5: cutting episodes there changes values by less than that
SWEEPS = 30


def p_right(theta: float) -> float:
    return 1.0 / (1.0 + np.exp(-theta))


def true_values(theta: float) -> np.ndarray:
    """V^pi for the walkable states, solved exactly: V = r + gamma P V."""
    n, p = N_STATES - 1, p_right(theta)
    trans, reward = np.zeros((n, n)), np.zeros(n)
    for s in range(n):
        trans[s, max(s - 1, 0)] += 1 - p
        if s + 1 == n:
            reward[s] = p  # stepping right from the last walkable state reaches the goal
        else:
            trans[s, s + 1] += p
    return np.linalg.solve(np.eye(n) - GAMMA * trans, reward)


@ray.remote
class StaleActor:
    """Generates episodes with whatever (possibly old) policy version it was last sent."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def rollouts(self, theta: float, episodes: int) -> dict[str, np.ndarray]:
        p = p_right(theta)
        shape = (episodes, MAX_T)
        states = np.zeros(shape, dtype=np.int64)
        actions = np.zeros(shape, dtype=np.int64)
        rewards, valid, done = np.zeros(shape), np.zeros(shape, bool), np.zeros(shape, bool)
        next_states = np.zeros(shape, dtype=np.int64)
        for e in range(episodes):
            s = 0
            moves = self.rng.random(MAX_T) < p
            for t in range(MAX_T):
                a = int(moves[t])
                nxt = s + 1 if a else max(s - 1, 0)
                states[e, t], actions[e, t], next_states[e, t], valid[e, t] = s, a, nxt, True
                if nxt == N_STATES - 1:
                    rewards[e, t], done[e, t] = 1.0, True
                    break
                s = nxt
        return {
            "states": states,
            "actions": actions,
            "next_states": next_states,
            "rewards": rewards,
            "valid": valid,
            "done": done,
            "behaviour_p_right": p,
        }


def estimate(batch: dict, target_theta: float, *, rho_bar: float | None) -> np.ndarray:
    """Tabular value of the target policy from the batch. rho_bar=None: no correction at all
    (every ratio 1, i.e. the behaviour policy's returns). Otherwise V-trace (c_bar = 1)."""
    states, actions, valid = batch["states"], batch["actions"], batch["valid"]
    n = N_STATES - 1
    if rho_bar is None:
        rho = c = np.ones(states.shape)
    else:
        mu, pi = batch["behaviour_p_right"], p_right(target_theta)
        ratio = np.where(actions == 1, pi / mu, (1 - pi) / (1 - mu))
        rho, c = np.minimum(rho_bar, ratio), np.minimum(1.0, ratio)
    rho, c = rho * valid, c * valid
    visits = np.bincount(states[valid], minlength=n).astype(float)
    values = np.zeros(N_STATES)  # the goal's value stays 0
    for _ in range(SWEEPS):
        v_s = values[states]
        v_next = np.where(batch["done"], 0.0, values[batch["next_states"]])
        delta = rho * (batch["rewards"] + GAMMA * v_next - v_s)
        acc = np.zeros(states.shape[0])
        corr = np.zeros(states.shape)
        for t in range(states.shape[1] - 1, -1, -1):
            acc = delta[:, t] + GAMMA * c[:, t] * acc
            corr[:, t] = acc
        targets = v_s + corr
        sums = np.bincount(states[valid], weights=targets[valid], minlength=n)
        values[:n] = np.divide(sums, visits, out=values[:n].copy(), where=visits > 0)
    return values[:n]


def run(params: dict, report: Report, *, deadline: Deadline) -> dict:
    max_lag, episodes = params["max_lag"], params["episodes"]
    rho_bar, drift = params["rho_bar"], params["drift"]
    learner_theta = -1.0 + max_lag * drift  # the learner is at version max_lag
    truth = true_values(learner_theta)
    n_actors = max(1, min(4, int(cluster_cpus())))
    errors = {"uncorrected": {}, "vtrace": {}}
    with owned() as scope:
        actors = [scope.actor(StaleActor.options(num_cpus=0).remote(i)) for i in range(n_actors)]
        actors_ready(actors, deadline, what="the rollout actors to start")
        for lag in range(max_lag + 1):
            behaviour_theta = -1.0 + (max_lag - lag) * drift
            share = -(-episodes // n_actors)
            parts = wait_all(
                [a.rollouts.remote(behaviour_theta, share) for a in actors],
                deadline,
                what=f"rollouts at lag {lag}",
            )
            batch = {
                k: (
                    np.concatenate([p[k] for p in parts])
                    if k != "behaviour_p_right"
                    else parts[0][k]
                )
                for k in parts[0]
            }
            for name, rb in (("uncorrected", None), ("vtrace", rho_bar)):
                err = float(
                    np.sqrt(np.mean((estimate(batch, learner_theta, rho_bar=rb) - truth) ** 2))
                )
                errors[name][lag] = err
                report({"series": name, "x": lag, "y": round(err, 4)})
            deadline.check()
    worst = max_lag
    return {
        "learner_p_right": round(p_right(learner_theta), 3),
        "true_value_start": round(float(truth[0]), 4),
        "rho_bar": rho_bar,
        "uncorrected_error_at_max_lag": round(errors["uncorrected"][worst], 4),
        "vtrace_error_at_max_lag": round(errors["vtrace"][worst], 4),
        "error_ratio": round(errors["uncorrected"][worst] / max(errors["vtrace"][worst], 1e-9), 1),
        "effect": (
            f"with data {worst} policy versions old, uncorrected targets missed the learner's "
            f"values by {errors['uncorrected'][worst]:.3f} (RMS) and V-trace by "
            f"{errors['vtrace'][worst]:.3f}"
        ),
    }
