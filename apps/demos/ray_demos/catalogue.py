"""Every demo's description, parameters and chart. Imports no Ray: the web reads this."""

from __future__ import annotations

import importlib.util

from . import bounds
from .base import Chart, DemoSpec, Param, Series
from .claims import Check, Claim
from .cluster_catalogue import CLUSTER_DEMOS
from .hidden import (
    fault_hidden,
    object_store_hidden,
    pbt_hidden,
    rllib_hidden,
    sampling_hidden,
    seed_hidden,
    sync_async_hidden,
    tasks_hidden,
    vtrace_hidden,
)

DEMOS: tuple[DemoSpec, ...] = (
    DemoSpec(
        slug="tasks-vs-actors",
        title="Tasks vs actors",
        description="The same CPU-bound items processed one task at a time, as parallel Ray "
        "tasks, and by one stateful actor, in repeated trials whose order rotates.",
        what_to_see="Each point is one trial's time for all the items, one line for each way "
        "of running them, each line's median drawn across. Compare the parallel tasks with one "
        "task at a time (the bracket on the right is the ratio of their medians), and see "
        "where the one actor sits. The table then sets the actor's count of its calls against "
        "the number of items, and a counter kept in task globals, which lives in whichever "
        "worker process ran each task.",
        params=(
            Param("n_items", "int", 8, 1, 64, "items to process"),
            Param("work_ms", "int", 50, 1, 500, "CPU time each item burns, in milliseconds"),
            Param("trials", "int", 3, 1, 7, "repeated trials (interleaved)"),
        ),
        chart=Chart(
            "trial",
            "",
            "time for all items",
            "s",
            (
                Series("serial", "one task at a time"),
                Series("tasks", "parallel tasks"),
                Series("actor", "one actor"),
            ),
        ),
        module="tasks_vs_actors",
        claim=Claim(
            "Parallel tasks finished the items at least 1.5x as fast as one task at a time, "
            "and the actor's counter was exact.",
            (
                Check(
                    "serial_s",
                    over="tasks_s",
                    at_least=1.5,
                    part="parallel tasks at least 1.5x as fast as one task at a time",
                ),
                Check("actor_counter_exact", at_least=1, part="the actor's counter was exact"),
            ),  # fmt: skip
            bounds=bounds.TASKS,
            hidden_by=tasks_hidden,
            needs_cpus=2,
        ),
        expected_points=lambda p: 3 * p.get("trials", 3),
    ),
    DemoSpec(
        slug="object-store",
        title="Object store: zero-copy reads vs copies",
        description="Many tasks read one large NumPy array: put once in the shared-memory "
        "object store and passed by reference, vs passed by value so every call copies it.",
        what_to_see="Each point is one trial: the time from just before the first reader was "
        "submitted until every reader had read, passing one reference and passing a copy per "
        "call, each line's median drawn across; the bracket on the right is the ratio of the "
        "medians. The table adds how many copies of the array each way stored in the object "
        "store, as counted by Ray's raylet.",
        params=(
            Param("size_mb", "int", 100, 1, 200, "array size in megabytes"),
            Param("n_readers", "int", 8, 1, 16, "tasks that read the array"),
            Param("trials", "int", 3, 1, 7, "repeated trials (interleaved)"),
        ),
        chart=Chart(
            "trial",
            "",
            "time until every reader had read",
            "ms",
            (Series("by_ref", "one reference"), Series("by_value", "a copy per call")),
        ),
        module="object_store",
        claim=Claim(
            "Passing one reference stored the array in the object store once (on each node "
            "that read it), and passing a copy per call took at least 1.5x as long for every "
            "reader to read.",
            (
                Check(
                    "by_ref_copies_per_node",
                    at_most=1.1,
                    part="one reference stored the array once on each node",
                ),
                Check(
                    "by_value_ms",
                    over="by_ref_ms",
                    at_least=1.5,
                    part="a copy per call at least 1.5x as long as one reference",
                ),
            ),  # fmt: skip
            bounds=bounds.OBJECT_STORE,
            hidden_by=object_store_hidden,
        ),
        expected_points=lambda p: 2 * p.get("trials", 3),
    ),
    DemoSpec(
        slug="sampling-throughput",
        title="Is sampling the bottleneck? A learner waiting for samples",
        description="Rollout actors step a CartPole and send batches to one learner actor, "
        "which spends a fixed CPU time per sampled step; measured with 1 to N rollout actors.",
        what_to_see="Each point is the share of time the learner sat idle, waiting for "
        "samples, in one trial; the line joins the medians at each number of rollout actors "
        "and the band spans the trials (the hollow point is a warm-up, not counted). Look at "
        "its level with one rollout actor and how it changes as actors are added. The table "
        "gives the steps per second the learner consumed, to set beside the CPUs Ray had.",
        params=(
            Param("max_actors", "int", 3, 1, 6, "largest number of rollout actors tried"),
            Param("seconds_per_point", "float", 0.3, 0.2, 5, "measuring time per trial, s"),
            Param("env_step_us", "int", 20, 0, 1000, "extra CPU per step (heavier simulator), µs"),
            Param("learn_us", "int", 5, 0, 1000, "learner CPU per sampled step, µs"),
            Param("trials", "int", 3, 1, 7, "repeated trials per actor count"),
        ),
        chart=Chart(
            "rollout actors",
            "",
            "learner idle",
            "%",
            (Series("idle", "learner idle, each trial"),),
        ),
        module="sampling",
        claim=Claim(
            "With one rollout actor, the learner sat idle waiting for samples at least half of "
            "the time: sampling was the bottleneck. That holds by construction here (the "
            "learner's CPU per step is set below the simulator's); a heavier learner flips it.",
            (
                Check(
                    "idle_1",
                    at_least=50,
                    part="with one rollout actor the learner sat idle at least half of the time",
                ),
            ),  # fmt: skip
            bounds=bounds.SAMPLING,
            hidden_by=sampling_hidden,
        ),
        expected_points=lambda p: 1 + p["max_actors"] * p.get("trials", 3),
    ),
    DemoSpec(
        slug="sync-vs-async",
        title="Synchronous vs asynchronous updates",
        description="A central learner collects least-squares gradients from workers, one of "
        "them a straggler: a barrier (A2C-style: wait for all, apply the mean) vs a central "
        "parameter server that applies each gradient as it lands (asynchronous, not "
        "Hogwild's lock-free shared memory).",
        what_to_see="Each point is one trial: how many times as long the barrier took as the "
        "asynchronous updates to apply the same gradients, and how many times the loss the "
        "stale asynchronous gradients left against the same updates made with gradients taken "
        "on the current weights (fresh): what staleness costs without any correction. The "
        "dashed lines are what the claim needs; the hollow point is a warm-up round, not "
        "counted. The table gives the wall times, the policy lag and the losses.",
        params=(
            Param("n_workers", "int", 3, 2, 8, "gradient workers"),
            Param("rounds", "int", 6, 1, 50, "synchronous rounds (async applies as many)"),
            Param("work_ms", "int", 30, 1, 200, "CPU time to produce one gradient, ms"),
            Param("straggler_ms", "int", 200, 0, 2000, "extra delay of the one slow worker, ms"),
            Param("lr", "float", 1.0, 0.01, 2.0, "learning rate"),
            Param("trials", "int", 3, 1, 5, "repeated trials (interleaved)"),
        ),
        chart=Chart(
            "trial",
            "",
            "how many times",
            "x",
            (
                Series("speedup", "time: barrier / asynchronous"),
                Series("staleness", "loss: stale / fresh gradients"),
            ),
            y_log=True,  # the loss ratio can be tens of times the time ratio
        ),
        module="sync_async",
        claim=Claim(
            "The asynchronous parameter server applied the same gradients at least 1.5x sooner "
            "than the barrier, and its stale gradients left at least 1.1x the loss the same "
            "updates reach with fresh gradients.",
            (
                Check(
                    "speedup",
                    at_least=1.5,
                    part="the asynchronous updates at least 1.5x as fast as the barrier",
                ),
                Check(
                    "stale_vs_fresh_loss",
                    at_least=1.1,
                    part="stale gradients left at least 1.1x the loss of fresh ones",
                ),
            ),  # fmt: skip
            bounds=bounds.SYNC_ASYNC,
            hidden_by=sync_async_hidden,
        ),
        expected_points=lambda p: 1 + 2 * p.get("trials", 3),
        modelled="The straggler's extra delay is a sleep: it stands for a slow environment.",
    ),
    DemoSpec(
        slug="vtrace",
        title="Policy lag and V-trace",
        description="Stale rollout workers produce episodes with an older policy mu; the learner "
        "estimates the value of its current policy pi from them, uncorrected and with V-trace "
        "(truncation rho_bar), against values solved exactly.",
        what_to_see="Each line is the RMS distance of an estimate from exact values, against "
        "how many policy versions old the data was: trial 1 walks every lag, and every trial "
        "repeats the largest lag (its band spans them). V-trace with rho_bar converges to the "
        "value of pi_rho_bar, the policy proportional to min(rho_bar mu, pi): compare its "
        "distance to V of pi with its distance to V of pi_rho_bar (the bracket at the largest "
        "lag is their ratio). The large rho_bar line truncates nothing.",
        params=(
            Param("max_lag", "int", 8, 1, 20, "oldest data, in policy versions behind"),
            Param("episodes", "int", 200, 20, 2000, "episodes collected per lag"),
            Param("rho_bar", "float", 1.0, 0.1, 20, "V-trace truncation of importance weights"),
            Param("drift", "float", 0.3, 0.05, 1.0, "policy change per version (logit)"),
            Param("trials", "int", 3, 1, 7, "repeated trials at the largest lag"),
        ),
        chart=Chart(
            "policy lag",
            "versions",
            "RMS distance",
            "",
            (
                Series("uncorrected", "uncorrected, to V of pi"),
                Series("vtrace", "V-trace (rho_bar), to V of pi"),
                Series("vtrace_fixed_point", "V-trace (rho_bar), to V of pi_rho_bar"),
                Series("vtrace_large", "V-trace (rho_bar 1000), to V of pi"),
            ),
        ),
        module="vtrace",
        claim=Claim(
            "At the largest lag, V-trace with rho_bar converged to the value of pi_rho_bar, not "
            "of pi: its estimate was at least 2x closer to V of pi_rho_bar than to V of pi.",
            (
                Check(
                    "vtrace",
                    over="vtrace_fixed_point",
                    at_least=2,
                    part="V-trace at least 2x closer to V of pi_rho_bar than to V of pi",
                ),
            ),  # fmt: skip
            bounds=bounds.VTRACE,
            hidden_by=vtrace_hidden,
            timing=False,
        ),
        expected_points=lambda p: 4 * (p["max_lag"] + p.get("trials", 3)),
        cpus_needed=lambda params, cpus: 0,  # seeded data: a busy cluster only slows it
    ),
    DemoSpec(
        slug="seed-inference",
        title="Central batched inference (SEED) vs per-actor",
        description="Environment actors either run their own copy of the policy, or send "
        "observations to one central place that runs the policy on whatever observations "
        "have arrived (dynamic batching, as SEED does).",
        what_to_see="Each point is one trial's throughput, each line's median drawn across. "
        "On CPU, look at where the forward passes run: per-actor, spread over the actor "
        "processes; central, all in one process. The third line is not a measurement of "
        "inference: it assumes an accelerator that takes accel_ms per batch whatever its size, "
        "and shows what that assumption implies (the bracket is its median over per-actor's).",
        params=(
            Param("n_actors", "int", 2, 1, 8, "rollout actors"),
            Param("envs_per_actor", "int", 8, 1, 32, "environments stepped by each actor"),
            Param("hidden", "int", 2048, 16, 2048, "policy layer width"),
            Param("layers", "int", 4, 1, 8, "hidden layers of the policy"),
            Param("accel_ms", "float", 1.0, 0.1, 20, "assumed accelerator time per batch, ms"),
            Param("seconds_per_mode", "float", 0.4, 0.2, 5, "measuring time per mode, s"),
            Param("trials", "int", 3, 1, 5, "repeated trials (interleaved)"),
        ),
        chart=Chart(
            "trial",
            "",
            "throughput",
            "steps/s",
            (
                Series("per_actor", "per-actor inference (CPU, measured)"),
                Series("central_cpu", "central batched (CPU, measured)"),
                Series("central_modelled", "central batched (assumed accelerator)"),
            ),
        ),
        module="seed",
        claim=Claim(
            "Assuming an accelerator that runs a whole batch in accel_ms (modelled, not "
            "measured), central batched inference served at least 1.5x the steps/s of "
            "per-actor CPU inference.",
            (
                Check(
                    "central_modelled",
                    over="per_actor",
                    at_least=1.5,
                    part="the assumed "
                    "accelerator served at least 1.5x the steps/s of per-actor CPU inference",
                ),
            ),
            bounds=bounds.SEED,
            hidden_by=seed_hidden,
        ),  # fmt: skip
        expected_points=lambda p: 3 * p.get("trials", 3),
        modelled="The third line replaces the forward pass by a fixed wait of accel_ms per "
        "batch: an assumption about an accelerator, which this machine does not have.",
    ),
    DemoSpec(
        slug="fault-tolerance",
        title="Fault tolerance: an actor dies and comes back",
        description="A learner actor with max_restarts checkpoints to a file; its process is "
        "killed mid-run, Ray restarts it and it restores the file. Then a task with "
        "max_retries whose worker process dies on the first attempt.",
        what_to_see="Look at the step times around the kill, and the restart point: how long "
        "Ray took to bring up a new process. Compare the final total with that of a run "
        "without failure, and count the task's attempts.",
        params=(
            Param("steps", "int", 30, 2, 200, "learner steps"),
            Param("kill_at_step", "int", 12, 1, 199, "step at which the actor is killed"),
            Param("checkpoint_every", "int", 5, 1, 50, "steps between checkpoints"),
            Param("work_ms", "int", 30, 1, 200, "CPU time per step, ms"),
            Param("kill", "bool", True, help="kill the actor and the task's process"),
        ),
        chart=Chart(
            "step",
            "",
            "time",
            "ms",
            (Series("step_ms", "step time"), Series("restart", "restart (kill to resumed)")),
        ),
        module="fault_tolerance",
        claim=Claim(
            "After the kill, Ray restarted the learner, which restored its checkpoint from disk "
            "and ended with the same total as a run without failure; the task whose worker "
            "process died was retried and returned.",
            (
                Check("restarted", at_least=1, part="Ray restarted the learner in a new process"),
                Check(
                    "completed_correctly",
                    at_least=1,
                    part="it ended with the total of a run without failure",
                ),
                Check(
                    "task_retried_and_returned",
                    at_least=1,
                    part="the task whose process died was retried and returned",
                ),
            ),  # fmt: skip
            bounds=bounds.FAULT,
            hidden_by=fault_hidden,
            timing=False,
        ),
        expected_points=lambda p: p["steps"] + 1,
    ),
    DemoSpec(
        slug="placement-groups",
        title="Placement groups: gangs vs piecemeal",
        description="Two jobs that each need the whole cluster: started actor by actor, and as "
        "placement groups (gangs). Then a gang larger than the cluster.",
        what_to_see="Each line counts the jobs finished as time passes: actor by actor, then "
        "as placement groups. The table says how many actors each job held while it waited "
        "for the rest (hold and wait), how long the gangs took, one waiting for the other's "
        "group to be removed, and what became of a gang larger than the cluster.",
        params=(
            Param("cpus_per_job", "int", 2, 2, 8, "CPUs (actors) each job needs"),
            Param("work_ms", "int", 200, 50, 3000, "CPU time each actor works, ms"),
            Param("piecemeal_wait_s", "float", 1.0, 0.5, 10, "how long to wait piecemeal, s"),
            Param("infeasible_wait_s", "float", 0.5, 0.5, 10, "wait for the oversized gang, s"),
        ),
        chart=Chart(
            "elapsed",
            "s",
            "jobs finished",
            "",
            (Series("piecemeal", "actor by actor"), Series("gang", "placement groups")),
        ),
        module="placement",
        claim=Claim(
            "Started actor by actor, no job finished while each held part of the cluster (hold "
            "and wait); as placement groups both did, and the gang larger than the cluster "
            "never became ready.",
            (
                Check("piecemeal_jobs_done", at_most=0, part="actor by actor, no job finished"),
                Check(
                    "piecemeal_min_held",
                    at_least=1,
                    part="each job held some of its actors while it waited",
                ),
                Check("gang_jobs_done", at_least=2, part="as placement groups, both jobs finished"),
                Check(
                    "oversized_gang_ready",
                    at_most=0,
                    part="the gang larger than the cluster never became ready",
                ),
            ),  # fmt: skip
            bounds=bounds.PLACEMENT,
            needs_cpus=2,
            timing=False,
        ),
        expected_points=lambda p: int(4 * p["piecemeal_wait_s"] + 8 * p["work_ms"] / 1000 + 12),
    ),
    DemoSpec(
        slug="pbt",
        title="Population based training (Ray Tune)",
        description="Noisy SGD on a quadratic, where a large learning rate descends fast but "
        "settles high, so the best learning rate falls during training: a fixed grid of "
        "learning rates (plain Ray tasks) vs PBT in Ray Tune, which copies good trials and "
        "perturbs their settings.",
        what_to_see="Each line is a population's best score at each training step (higher is "
        "a lower loss: a point's tooltip gives the loss): see where the grid's line flattens, "
        "and what PBT's does after each exploit and explore. The table gives the lowest loss "
        "each population's best trial reached, and how many times lower PBT's was.",
        params=(
            Param("trials", "int", 4, 2, 8, "trials in each population"),
            Param("steps", "int", 16, 5, 200, "training steps per trial (190 SGD updates each)"),
            Param("perturb_every", "int", 2, 1, 50, "steps between PBT exploit/explore"),
        ),
        chart=Chart(
            "training step",
            "",
            "best score",
            "−log10 loss",
            (Series("grid", "fixed grid (best trial)"), Series("pbt", "PBT (best trial)")),
        ),
        module="pbt",
        claim=Claim(
            "PBT's best trial reached a loss at least 2x lower than the best trial of the "
            "fixed grid.",
            (
                Check(
                    "grid_best_loss",
                    over="pbt_best_loss",
                    at_least=2,
                    part="PBT's best loss at least 2x lower than the fixed grid's",
                ),
            ),  # fmt: skip
            bounds=bounds.PBT,
            hidden_by=pbt_hidden,
            timing=False,
        ),
        expected_points=lambda p: 2 * p["steps"],
        time_limit_s=120,
    ),
    DemoSpec(
        slug="rllib-ppo",
        title="RLlib PPO on CartPole",
        description="A real RLlib Algorithm: env runners sample CartPole, a learner updates "
        "the policy with PPO; episode return and the time spent sampling vs learning.",
        what_to_see="The line is the mean episode return at each training iteration "
        "(CartPole's limit is 500); the hollow point at 0 is random actions, measured before "
        "training and not counted. The bracket is the last iteration's return over the "
        "first's. The table splits the time between sampling (env runners) and learning (the "
        "learner): the split that decides where to add resources.",
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
        claim=Claim(
            "The mean episode return rose over the run: the last iteration's was at least 1.5x "
            "the first's.",
            (
                Check(
                    "last_return",
                    over="first_return",
                    at_least=1.5,
                    part="the last iteration's return at least 1.5x the first's",
                ),
            ),  # fmt: skip
            bounds=bounds.RLLIB,
            hidden_by=rllib_hidden,
            timing=False,
        ),
        expected_points=lambda p: 1 + p["iterations"],
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
