"""When a demo's parameters hide its lesson: for each demo, the sentence that says which
parameter does and why (None when the run can show it). A claim's check reads these before it
draws a verdict (claims.Claim.hidden_by). Pure: no Ray, no Django."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def _p(params: Mapping[str, Any], name: str) -> str:
    value = params[name]
    return f"{name}={str(value).lower() if isinstance(value, bool) else f'{value:g}'}"


def tasks_hidden(params: Mapping[str, Any]) -> str | None:
    if params["n_items"] < 2:
        return f"{_p(params, 'n_items')}: one item leaves nothing to run in parallel"
    if params["work_ms"] < 10:
        return (
            f"{_p(params, 'work_ms')}: an item this short costs about as much as Ray's own "
            "round trip for a task, which hides the gain of running items in parallel"
        )
    return None


def object_store_hidden(params: Mapping[str, Any]) -> str | None:
    if params["n_readers"] < 2:
        return f"{_p(params, 'n_readers')}: a single reader gets one copy either way"
    if params["size_mb"] < 5:
        return (
            f"{_p(params, 'size_mb')}: copying an array this small costs less than a task's own "
            "overhead, which hides the cost of the copies"
        )
    return None


def sampling_hidden(params: Mapping[str, Any]) -> str | None:
    if params["learn_us"] >= params["env_step_us"] + 10:
        return (
            f"{_p(params, 'learn_us')}: the learner spends about as much CPU per step as "
            f"sampling it ({_p(params, 'env_step_us')}), so learning, not sampling, is the "
            "bottleneck"
        )
    return None


def sync_async_hidden(params: Mapping[str, Any]) -> str | None:
    if params["straggler_ms"] < 2 * params["work_ms"]:
        return (
            f"{_p(params, 'straggler_ms')}: a straggler barely slower than the others "
            f"({_p(params, 'work_ms')}) leaves the barrier little to wait for"
        )
    if params["lr"] < 0.7:
        return (
            f"{_p(params, 'lr')}: at a learning rate this small the delayed gradients barely "
            "overshoot, so staleness costs little here"
        )
    return None


def vtrace_largest_ratio(max_lag: int, drift: float) -> float:
    """The largest importance ratio pi/mu in the oldest data of the V-trace demo: the learner
    moves right with p(-1 + max_lag * drift), the oldest actors with p(-1) (p: a logistic)."""
    pi = 1 / (1 + math.exp(1 - max_lag * drift))
    mu = 1 / (1 + math.exp(1))
    return max(pi / mu, (1 - pi) / (1 - mu))


def vtrace_hidden(params: Mapping[str, Any]) -> str | None:
    ratio = vtrace_largest_ratio(params["max_lag"], params["drift"])
    if params["rho_bar"] >= ratio:
        return (
            f"{_p(params, 'rho_bar')} is at least every importance ratio in this data (the "
            f"largest is {ratio:.2f}): no weight is truncated, so pi_rho_bar is pi and the two "
            "values coincide"
        )
    return None


def seed_hidden(params: Mapping[str, Any]) -> str | None:
    if params["accel_ms"] >= 10:
        return (
            f"{_p(params, 'accel_ms')}: the modelled accelerator takes as long per batch as a "
            "CPU forward pass does here"
        )
    return None


def fault_hidden(params: Mapping[str, Any]) -> str | None:
    if not params["kill"]:
        return f"{_p(params, 'kill')}: nothing was killed, so there is no recovery to see"
    if params["kill_at_step"] >= params["steps"]:
        return (
            f"{_p(params, 'kill_at_step')} is not before the last step ({_p(params, 'steps')}):"
            " the run ended before the kill"
        )
    return None


def pbt_hidden(params: Mapping[str, Any]) -> str | None:
    if params["perturb_every"] >= params["steps"]:
        return (
            f"{_p(params, 'perturb_every')} with {_p(params, 'steps')}: PBT never exploited or "
            "explored, so it was a grid with random learning rates"
        )
    return None


def rllib_hidden(params: Mapping[str, Any]) -> str | None:
    if params["iterations"] < 3:
        return f"{_p(params, 'iterations')}: too few iterations for learning to show"
    return None
