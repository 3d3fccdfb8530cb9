"""The physical bounds of each demo's figures: what no sound measurement on any machine can
cross, given the run's parameters and the CPUs Ray had. A trial beyond one makes the run
"inconclusive: the measurement is not trustworthy" (claims.Bound), whatever its checks say.
Pure: no Ray, no Django."""

from __future__ import annotations

import math
from collections.abc import Callable

from .claims import Bound, Conditions, Params

Limit = Callable[[Params, Conditions], float | None]

# No copy on any machine this runs on moves memory faster than this (a 2-core VM's one copying
# thread manages a few GB/s): a copy faster than it was not a copy.
MEMORY_BYTES_PER_S = 50e9
MAX_ACTORS = 6  # sampling-throughput's largest max_actors
CARTPOLE_MAX_RETURN = 500  # CartPole-v1 ends every episode by its 500th step, reward 1 a step


def _items_work_s(p: Params, c: Conditions) -> float:
    return float(p["n_items"] * p["work_ms"] / 1000)


def _fixed(value: float) -> Limit:
    return lambda p, c: value


TASKS = (
    Bound("serial_s", _items_work_s, "one task at a time, each of the {n_items} items burns "
          "{work_ms} ms of CPU, so together they need at least {limit}"),
    Bound("actor_s", _items_work_s, "one actor serves its calls one at a time, each burning "
          "{work_ms} ms of CPU, so {n_items} calls need at least {limit}"),
    Bound("tasks_s", lambda p, c: _items_work_s(p, c) / max(1, math.floor(c.ray_cpus)),
          "each task holds one of Ray's {cpus} CPUs, so at most {cpus} of the {n_items} items "
          "of {work_ms} ms run at once"),
    Bound("actor_count", lambda p, c: p["n_items"], "the actor was called {n_items} times",
          upper=True, slack=0),
    Bound("task_counter_max", lambda p, c: p["n_items"], "only {n_items} tasks ran in each "
          "mode, so no worker process can have counted more", upper=True, slack=0),
)  # fmt: skip


def _copy_ms(copies: Callable[[Params], float]) -> Limit:
    return lambda p, c: copies(p) * p["size_mb"] * 2**20 / MEMORY_BYTES_PER_S * 1000


OBJECT_STORE = (
    Bound("by_value_ms", _copy_ms(lambda p: p["n_readers"]), "each call copies the "
          "{size_mb} MB array into the object store, and {n_readers} copies cannot be made "
          "faster than memory bandwidth allows (50 GB/s at the very most)"),
    Bound("by_ref_ms", _copy_ms(lambda p: 1), "the one put copies the {size_mb} MB array into "
          "the object store, which cannot go faster than memory bandwidth allows"),
    Bound("by_ref_copies", lambda p, c: 1, "the one put stores the array once, so the object "
          "store cannot have created less than one copy", slack=0.05),
    Bound("by_value_copies", lambda p, c: p["n_readers"], "Ray stores every argument over "
          "100 KB in the object store, so each of the {n_readers} calls stored a copy",
          slack=0.05),
)  # fmt: skip


def _actors_steps_per_s(k: int) -> Limit:
    """k rollout actors' steps a second, each step costing env_step_us of CPU."""
    return lambda p, c: k * 1e6 / p["env_step_us"] if p["env_step_us"] else None


def _sampling_bounds() -> tuple[Bound, ...]:
    bounds: list[Bound] = []
    for k in range(1, MAX_ACTORS + 1):
        actors = f"{k} rollout actor{'s' * (k != 1)}"
        bounds += [
            Bound(f"idle_{k}", _fixed(100), "a share of the time cannot exceed 100%",
                  upper=True, slack=0),
            Bound(f"idle_{k}", _fixed(0), "a share of the time cannot be negative", slack=0),
            Bound(f"steps_per_s_{k}",
                  _actors_steps_per_s(k),
                  f"each step costs a rollout actor {{env_step_us}} µs of CPU, so {actors} "
                  "cannot produce more than {limit}", upper=True),
            Bound(f"steps_per_s_{k}",
                  lambda p, c: 1e6 / p["learn_us"] if p["learn_us"] else None,
                  "the learner spends {learn_us} µs of CPU on each step, so it cannot learn "
                  "more than {limit}", upper=True),
        ]  # fmt: skip
    return tuple(bounds)


SAMPLING = _sampling_bounds()

SYNC_ASYNC = (
    Bound("sync_s", lambda p, c: p["rounds"] * p["straggler_ms"] / 1000, "each of the {rounds} "
          "rounds waits for the straggler's extra {straggler_ms} ms, so the barrier needs at "
          "least {limit}"),
    Bound("async_s", lambda p, c: (p["n_workers"] - 1) * p["rounds"] * p["work_ms"] / 1000
          / max(1.0, c.ray_cpus), "at least the fast workers' gradients burn {work_ms} ms of "
          "CPU each, on Ray's {cpus} CPUs, so applying them needs at least {limit}"),
    Bound("max_lag", lambda p, c: p["n_workers"] * p["rounds"], "a gradient cannot be older "
          "than every update the run applied", upper=True, slack=0),
    Bound("mean_lag", _fixed(0), "a gradient cannot come from a newer policy than the "
          "current one", slack=0),
)  # fmt: skip

VTRACE = (
    Bound("uncorrected", _fixed(1), "an uncorrected estimate averages returns of a chain "
          "whose one reward is 1, so it lies between 0 and 1 as V of pi does, and the two "
          "cannot be more than 1 apart", upper=True, slack=0),
)  # fmt: skip

SEED = (
    Bound("central_modelled",
          lambda p, c: p["n_actors"] * p["envs_per_actor"] / (p["accel_ms"] / 1000),
          "each batch on the assumed accelerator takes {accel_ms} ms and holds at most the "
          "{n_actors} actors' {envs_per_actor} environments each", upper=True),
    Bound("central_inference_share", _fixed(100), "a share of the time cannot exceed 100%",
          upper=True, slack=0),
)  # fmt: skip

FAULT = (
    Bound("steps_redone", lambda p, c: p["checkpoint_every"] - 1, "a restarted learner resumes "
          "from its last checkpoint, saved every {checkpoint_every} steps, so it redoes fewer "
          "steps than that", upper=True, slack=0),
    Bound("task_attempts", _fixed(3), "the task may run at most 3 times (max_retries=2)",
          upper=True, slack=0),
)  # fmt: skip

PLACEMENT = (
    Bound("piecemeal_min_held", _fixed(1), "hold and wait needs held resources: a job that "
          "got none of its actors held nothing while it waited, so the deadlock was not set up",
          slack=0),
    Bound("piecemeal_jobs_done", _fixed(2), "there were 2 jobs", upper=True, slack=0),
    Bound("gang_jobs_done", _fixed(2), "there were 2 jobs", upper=True, slack=0),
    Bound("piecemeal_actors_started", lambda p, c: math.floor(c.ray_cpus), "each actor holds "
          "one CPU, and the cluster has {cpus}", upper=True, slack=0),
)  # fmt: skip

PBT = (
    Bound("grid_best_loss", _fixed(0), "a mean of squares cannot be negative", slack=0),
    Bound("pbt_best_loss", _fixed(0), "a mean of squares cannot be negative", slack=0),
)  # fmt: skip

RLLIB = tuple(
    bound
    for key in ("first_return", "last_return")
    for bound in (
        Bound(key, _fixed(CARTPOLE_MAX_RETURN), "CartPole-v1 ends every episode by its "
              "500th step, with a reward of 1 a step", upper=True, slack=0),
        Bound(key, _fixed(1), "every episode lasts at least one step, worth 1", slack=0),
    )
) + (
    Bound("sampling_share", _fixed(100), "a share of the time cannot exceed 100%",
          upper=True, slack=0),
)  # fmt: skip

CLUSTER_OBJECTS = (
    Bound("mb_moved", lambda p, c: p["size_mb"], "the whole {size_mb} MB array has to arrive "
          "for the read to return", slack=0.01),
)  # fmt: skip

CLUSTER_PLACEMENT = (
    Bound("pack_nodes", _fixed(1), "a placed group sits on at least one node", slack=0),
    Bound("cpus_reserved_while_pending", lambda p, c: c.ray_cpus, "the cluster has {cpus} "
          "CPUs", upper=True, slack=0),
)  # fmt: skip

CLUSTER_SCHEDULING = (
    Bound("steered_on_target", _fixed(100), "a share of the tasks cannot exceed 100%",
          upper=True, slack=0),
)  # fmt: skip

CLUSTER_FAILURE = (
    Bound("object_task_runs", _fixed(4), "the task may run at most 4 times (max_retries=3)",
          upper=True, slack=0),
)  # fmt: skip
