"""Policy lag and V-trace: value targets from stale actors, with and without truncated
importance weights, against exact values.

V-trace with truncation rho_bar converges to the value of pi_rho_bar, the policy with
pi_rho_bar(a|x) proportional to min(rho_bar mu(a|x), pi(a|x)) (Espeholt et al., 2018,
theorem 1), not to the value of pi: whenever rho_bar truncates a weight, its estimate is
biased with respect to V of pi (its fixed point is another policy's value), and unbiased only
when rho_bar is at least every ratio pi/mu, where pi_rho_bar is pi. The demo measures the
distance of the estimate to both values, and of a V-trace with rho_bar = LARGE_RHO_BAR.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import ray

from .base import Deadline
from .claims import Figures, number
from .raytools import cluster_cpus, owned, wait_all

N_STATES = 6  # a chain: 0 .. 4 walkable, 5 is the goal (reward 1, episode ends)
GAMMA = 0.9
MAX_T = 100  # gamma**100 ~ 3e-5: cutting episodes there changes values by less than that
SWEEPS = 30
LARGE_RHO_BAR = 1000.0  # truncates nothing here


def p_right(theta: float) -> float:
    return float(1.0 / (1.0 + np.exp(-theta)))


def truncated_p_right(pi: float, mu: float, rho_bar: float) -> float:
    """pi_rho_bar's probability of moving right: proportional to min(rho_bar mu, pi)."""
    right, left = min(rho_bar * mu, pi), min(rho_bar * (1 - mu), 1 - pi)
    return right / (right + left)


def true_values(theta: float) -> np.ndarray:
    return values_of(p_right(theta))


def values_of(p: float) -> np.ndarray:
    """V for the walkable states of the policy that moves right with probability p, solved
    exactly: V = r + gamma P V."""
    n = N_STATES - 1
    trans, reward = np.zeros((n, n)), np.zeros(n)
    for s in range(n):
        trans[s, max(s - 1, 0)] += 1 - p
        if s + 1 == n:
            reward[s] = p  # stepping right from the last walkable state reaches the goal
        else:
            trans[s, s + 1] += p
    return np.linalg.solve(np.eye(n) - GAMMA * trans, reward)


@ray.remote(num_cpus=0.5)
def stale_rollouts(theta: float, episodes: int, seed: int) -> dict[str, Any]:
    """Episodes generated with a (possibly old) policy version, as a stale actor would: a
    task, as nothing survives between calls (each is seeded, so a trial is reproducible), so
    it runs in Ray's pooled worker processes and needs no process of its own to start."""
    rng = np.random.default_rng(seed)
    p = p_right(theta)
    shape = (episodes, MAX_T)
    states = np.zeros(shape, dtype=np.int64)
    actions = np.zeros(shape, dtype=np.int64)
    rewards, valid, done = np.zeros(shape), np.zeros(shape, bool), np.zeros(shape, bool)
    next_states = np.zeros(shape, dtype=np.int64)
    for e in range(episodes):
        s = 0
        moves = rng.random(MAX_T) < p
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


def estimate(batch: dict[str, Any], target_theta: float, *, rho_bar: float | None) -> np.ndarray:
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


def _rms(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((a - b) ** 2)))


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    max_lag, episodes, trials = params["max_lag"], params["episodes"], params["trials"]
    rho_bar, drift = params["rho_bar"], params["drift"]
    learner_theta = -1.0 + max_lag * drift  # the learner is at version max_lag
    truth = true_values(learner_theta)
    pi = p_right(learner_theta)
    n_actors = max(1, min(4, int(cluster_cpus())))
    at = f"at lag {max_lag}"
    figures.define("uncorrected", f"uncorrected, to V of pi, {at}", series="uncorrected")
    figures.define("vtrace", f"V-trace (rho_bar), to V of pi, {at}", series="vtrace")
    figures.define("vtrace_fixed_point", f"V-trace (rho_bar), to V of pi_rho_bar, {at}",
                   series="vtrace_fixed_point")  # fmt: skip
    figures.define("vtrace_large", f"V-trace (rho_bar {LARGE_RHO_BAR:g}), to V of pi, {at}",
                   series="vtrace_large")  # fmt: skip
    figures.define("largest_ratio", f"largest importance ratio pi/mu {at}")
    with owned() as scope:
        # Trial 1 walks every lag (the chart's curves); further trials repeat the largest lag,
        # which the claim is checked on.
        plan = [(1, lag) for lag in range(max_lag + 1)]
        plan += [(trial, max_lag) for trial in range(2, trials + 1)]
        for trial, lag in plan:
            behaviour_theta = -1.0 + (max_lag - lag) * drift
            mu = p_right(behaviour_theta)
            fixed_point = values_of(truncated_p_right(pi, mu, rho_bar))
            share = -(-episodes // n_actors)
            parts = wait_all(
                [
                    scope.ref(
                        stale_rollouts.remote(behaviour_theta, share, 1000 * trial + 100 * lag + i)
                    )
                    for i in range(n_actors)
                ],  # fmt: skip
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
            vtrace = estimate(batch, learner_theta, rho_bar=rho_bar)
            errors = {
                "uncorrected": _rms(estimate(batch, learner_theta, rho_bar=None), truth),
                "vtrace": _rms(vtrace, truth),
                "vtrace_fixed_point": _rms(vtrace, fixed_point),
                "vtrace_large": _rms(estimate(batch, learner_theta, rho_bar=LARGE_RHO_BAR), truth),
            }
            for name, err in errors.items():
                if lag == max_lag:
                    figures.add(name, err, x=lag)
                else:
                    figures.point(name, lag, err)
            if lag == max_lag:
                figures.add("largest_ratio", max(pi / mu, (1 - pi) / (1 - mu)))
            deadline.check()
    summary = figures.as_dict()
    med = {key: summary[key]["median"] for key in summary}
    mu_oldest = p_right(-1.0)
    return {
        "figures": figures,
        "learner_p_right": round(pi, 3),
        "oldest_behaviour_p_right": round(mu_oldest, 3),
        "pi_rho_bar_p_right": round(truncated_p_right(pi, mu_oldest, rho_bar), 3),
        "rho_bar": rho_bar,
        "fixed_point": "V of pi_rho_bar, pi_rho_bar(a|x) proportional to min(rho_bar mu, pi)",
        "effect": (
            f"with data {max_lag} policy versions old (median of {trials} trials), uncorrected "
            f"targets were {number(med['uncorrected'])} (RMS) from V of pi; V-trace with "
            f"rho_bar {rho_bar:g} was {number(med['vtrace'])} from V of pi and "
            f"{number(med['vtrace_fixed_point'])} from V of pi_rho_bar (its fixed point: the "
            f"bias with respect to V of pi), V-trace with rho_bar {LARGE_RHO_BAR:g} "
            f"{number(med['vtrace_large'])} from V of pi"
        ),
    }
