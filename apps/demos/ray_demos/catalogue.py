"""Every demo's description, parameters and chart. Imports no Ray: the web reads this."""

from __future__ import annotations

import importlib.util

from .base import Chart, DemoSpec, Param, Series
from .cluster_catalogue import CLUSTER_DEMOS

DEMOS: tuple[DemoSpec, ...] = (
    DemoSpec(
        slug="tasks-vs-actors",
        title="Tasks vs actors",
        description="The same CPU-bound items processed in one process, as parallel Ray tasks, "
        "and by one stateful actor.",
        what_to_see="The tasks line climbs about twice as slowly as the serial one on two cores: "
        "stateless tasks spread over every CPU. The actor is no faster than serial, because one "
        "actor is one process serving calls in order, but it is the only one whose call counter "
        "is exact: state that must live between calls belongs in an actor.",
        params=(
            Param("n_items", "int", 12, 1, 64, "items to process"),
            Param("work_ms", "int", 150, 1, 500, "CPU time each item burns, in milliseconds"),
        ),
        chart=Chart(
            "items done",
            "",
            "elapsed",
            "s",
            (
                Series("serial", "one process"),
                Series("tasks", "parallel tasks"),
                Series("actor", "one actor"),
            ),
        ),
        module="tasks_vs_actors",
        expected_points=lambda p: 3 * p["n_items"],
    ),
    DemoSpec(
        slug="object-store",
        title="Object store: zero-copy reads vs copies",
        description="Many tasks read one large NumPy array: put once in the shared-memory "
        "object store and passed by reference, vs passed by value so every call copies it.",
        what_to_see="Passing the reference, every reader maps the same shared memory, so the "
        "line stays flat after the one put. Passing the array itself serialises and stores a "
        "fresh copy per call: time grows with every reader and the bytes copied are multiplied "
        "by the number of readers.",
        params=(
            Param("size_mb", "int", 100, 1, 200, "array size in megabytes"),
            Param("n_readers", "int", 8, 1, 16, "tasks that read the array"),
        ),
        chart=Chart(
            "readers done",
            "",
            "elapsed",
            "s",
            (Series("by_ref", "put once, pass ref"), Series("by_value", "copy per call")),
        ),
        module="object_store",
        expected_points=lambda p: 2 * p["n_readers"],
    ),
    DemoSpec(
        slug="sampling-throughput",
        title="Sampling is the bottleneck",
        description="Environment steps per second with 1 to N rollout actors stepping a "
        "CartPole with a fixed policy.",
        what_to_see="Throughput grows with actors while each has a core of its own, then "
        "flattens: on two cores a third and fourth actor only share the same CPUs. This is why "
        "distributed RL adds rollout workers (and machines) before anything else.",
        params=(
            Param("max_actors", "int", 4, 1, 8, "largest number of rollout actors tried"),
            Param("seconds_per_point", "float", 1.5, 0.2, 5, "sampling time per actor count"),
            Param("env_step_us", "int", 20, 0, 1000, "extra CPU per step (heavier simulator), µs"),
        ),
        chart=Chart(
            "rollout actors",
            "",
            "throughput",
            "steps/s",
            (Series("steps_per_s", "measured"), Series("ideal", "linear scaling")),
        ),
        module="sampling",
        expected_points=lambda p: 2 * p["max_actors"],
    ),
    DemoSpec(
        slug="sync-vs-async",
        title="Synchronous vs asynchronous updates",
        description="A learner collects gradients from workers, one of them a straggler: "
        "A2C-style (wait for all, then update) vs A3C-style (apply each as it arrives).",
        what_to_see="The synchronous line moves in steps, one per round, each as slow as the "
        "straggler. The asynchronous line is steeper because fast workers never wait, but the "
        "summary shows the price: gradients computed on weights several versions old "
        "(policy lag).",
        params=(
            Param("n_workers", "int", 4, 2, 8, "gradient workers"),
            Param("rounds", "int", 12, 1, 50, "synchronous rounds (async applies as many)"),
            Param("work_ms", "int", 40, 1, 200, "CPU time to produce one gradient, ms"),
            Param("straggler_ms", "int", 300, 0, 2000, "extra delay of the one slow worker, ms"),
        ),
        chart=Chart(
            "elapsed",
            "s",
            "gradients applied",
            "",
            (Series("sync", "synchronous (barrier)"), Series("async", "asynchronous")),
        ),
        module="sync_async",
        expected_points=lambda p: p["rounds"] * (1 + p["n_workers"]),
        modelled="The straggler's extra delay is a sleep: it stands for a slow environment.",
    ),
    DemoSpec(
        slug="vtrace",
        title="Policy lag and V-trace",
        description="Stale actors produce episodes with an older policy; the learner estimates "
        "its current policy's values from them, uncorrected and with V-trace.",
        what_to_see="With fresh data (lag 0) both estimates are close to the exact values. As "
        "the data gets older the uncorrected targets drift towards the old policy's values, "
        "while V-trace's truncated importance weights keep the error small.",
        params=(
            Param("max_lag", "int", 8, 1, 20, "oldest data, in policy versions behind"),
            Param("episodes", "int", 200, 20, 2000, "episodes collected per lag"),
            Param("rho_bar", "float", 1.0, 0.1, 20, "V-trace truncation of importance weights"),
            Param("drift", "float", 0.3, 0.05, 1.0, "policy change per version (logit)"),
        ),
        chart=Chart(
            "policy lag",
            "versions",
            "value error (RMS)",
            "",
            (Series("uncorrected", "uncorrected returns"), Series("vtrace", "V-trace")),
        ),
        module="vtrace",
        expected_points=lambda p: 2 * (p["max_lag"] + 1),
    ),
    DemoSpec(
        slug="seed-inference",
        title="Central batched inference (SEED) vs per-actor",
        description="Environment actors either run their own copy of the policy, or send "
        "observations to one central place that runs the policy on the whole batch.",
        what_to_see="Measured on CPU, per-actor inference usually wins: a round trip per step "
        "costs more than a small forward pass. SEED's gain needs an accelerator that runs a "
        "whole batch in about the time of one; the third line models that accelerator and is "
        "labelled as modelled.",
        params=(
            Param("n_actors", "int", 2, 1, 8, "rollout actors"),
            Param("envs_per_actor", "int", 8, 1, 32, "environments stepped by each actor"),
            Param("hidden", "int", 2048, 16, 2048, "policy layer width"),
            Param("layers", "int", 4, 1, 8, "hidden layers of the policy"),
            Param("accel_ms", "float", 1.0, 0.1, 20, "modelled accelerator: time per batch, ms"),
            Param("seconds_per_mode", "float", 2.0, 0.5, 5, "measuring time per mode, s"),
        ),
        chart=Chart(
            "elapsed",
            "s",
            "env steps",
            "",
            (
                Series("per_actor", "per-actor inference (CPU, measured)"),
                Series("central_cpu", "central batched (CPU, measured)"),
                Series("central_modelled", "central batched (modelled accelerator)"),
            ),
        ),
        module="seed",
        expected_points=lambda p: int(3 * p["seconds_per_mode"] / 0.25),
        modelled="The third run replaces the forward pass by a fixed wait per batch: it "
        "stands for an accelerator, which this machine does not have.",
    ),
    DemoSpec(
        slug="fault-tolerance",
        title="Fault tolerance: an actor dies and comes back",
        description="A learner actor with max_restarts crashes mid-run (its process exits); "
        "Ray restarts the process, the driver restores the last checkpoint and the run completes.",
        what_to_see="Step times are flat until the kill; the restart point shows how long Ray "
        "took to bring up a new process. The steps since the last checkpoint are redone and the "
        "final total equals that of a run without failure.",
        params=(
            Param("steps", "int", 30, 2, 200, "learner steps"),
            Param("kill_at_step", "int", 12, 1, 199, "step at which the actor is killed"),
            Param("checkpoint_every", "int", 5, 1, 50, "steps between checkpoints"),
            Param("work_ms", "int", 30, 1, 200, "CPU time per step, ms"),
            Param("kill", "bool", True, help="kill the actor mid-run"),
        ),
        chart=Chart(
            "step",
            "",
            "time",
            "ms",
            (Series("step_ms", "step time"), Series("restart", "restart (kill to resumed)")),
        ),
        module="fault_tolerance",
        expected_points=lambda p: p["steps"] + 1,
    ),
    DemoSpec(
        slug="placement-groups",
        title="Placement groups: gangs vs piecemeal",
        description="Two jobs that each need the whole cluster: started actor by actor, and as "
        "placement groups (gangs). Then a gang larger than the cluster.",
        what_to_see="Piecemeal, each job grabs half the CPUs and waits forever for the rest: "
        "no job finishes (hold and wait). As gangs, one job waits until the other's group is "
        "removed, and both finish. A gang that can never fit is not an error, it just never "
        "becomes ready, so the demo times out and removes it.",
        params=(
            Param("cpus_per_job", "int", 2, 2, 8, "CPUs (actors) each job needs"),
            Param("work_ms", "int", 500, 50, 3000, "CPU time each actor works, ms"),
            Param("piecemeal_wait_s", "float", 3.0, 0.5, 10, "how long to wait piecemeal, s"),
            Param("infeasible_wait_s", "float", 1.5, 0.5, 10, "wait for the oversized gang, s"),
        ),
        chart=Chart(
            "elapsed",
            "s",
            "jobs finished",
            "",
            (Series("piecemeal", "actor by actor"), Series("gang", "placement groups")),
        ),
        module="placement",
        expected_points=lambda p: int(4 * p["piecemeal_wait_s"] + 8 * p["work_ms"] / 1000 + 8),
    ),
    DemoSpec(
        slug="pbt",
        title="Population based training (Ray Tune)",
        description="Noisy SGD on a quadratic, where a large learning rate descends fast but "
        "settles high, so the best learning rate falls during training: a fixed grid of "
        "learning rates (plain Ray tasks) vs PBT in Ray Tune, which copies good trials and "
        "perturbs their settings.",
        what_to_see="Each grid trial keeps one learning rate: the large ones stall on their "
        "noise floor, the small ones are still descending at the end. PBT's population copies "
        "the leader and shrinks its learning rate as it goes, so its best score keeps climbing "
        "after the grid's has flattened.",
        params=(
            Param("trials", "int", 4, 2, 8, "trials in each population"),
            Param("steps", "int", 24, 5, 200, "training steps per trial (125 SGD updates each)"),
            Param("perturb_every", "int", 3, 1, 50, "steps between PBT exploit/explore"),
        ),
        chart=Chart(
            "training step",
            "",
            "best score",
            "−log10 loss",
            (Series("grid", "fixed grid (best trial)"), Series("pbt", "PBT (best trial)")),
        ),
        module="pbt",
        expected_points=lambda p: 2 * p["steps"],
        time_limit_s=120,
    ),
    DemoSpec(
        slug="rllib-ppo",
        title="RLlib PPO on CartPole",
        description="A real RLlib Algorithm: env runners sample CartPole, a learner updates "
        "the policy with PPO; episode return and the time spent sampling vs learning.",
        what_to_see="The mean episode return climbs towards CartPole's limit over iterations. "
        "The summary splits each iteration's time between sampling (env runners) and learning "
        "(the learner), the split that decides where to add resources.",
        params=(
            Param("iterations", "int", 6, 1, 50, "training iterations"),
            Param("env_runners", "int", 1, 0, 4, "remote env runner actors"),
            Param("batch_size", "int", 1000, 200, 8000, "env steps per iteration"),
        ),
        chart=Chart(
            "iteration",
            "",
            "mean episode return",
            "",
            (Series("return", "episode return (mean)"),),
        ),
        module="rllib_ppo",
        expected_points=lambda p: p["iterations"],
        needs=("torch", "gymnasium"),
        time_limit_s=120,
    ),
)

DEMOS += CLUSTER_DEMOS

BY_SLUG = {spec.slug: spec for spec in DEMOS}


def get_demo(slug: str) -> DemoSpec | None:
    return BY_SLUG.get(slug)


def missing_extras(spec: DemoSpec) -> list[str]:
    """Optional packages the demo needs that are not installed (looked up, never imported)."""
    return [name for name in spec.needs if importlib.util.find_spec(name) is None]


def is_available(spec: DemoSpec) -> bool:
    return not missing_extras(spec)
