"""Population based training with Ray Tune on a toy objective whose best learning rate falls
during training, against a fixed grid of learning rates.

The grid runs as plain Ray tasks (fixed learning rates need no scheduler), which keeps
Tune's start-up cost to the one population that needs it.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import ray
from ray import tune
from ray.tune import Callback, Checkpoint, Result, Stopper
from ray.tune.experiment import Trial
from ray.tune.schedulers import PopulationBasedTraining, TrialScheduler

from .base import Deadline, DemoStopped
from .claims import Figures, number
from .raytools import POLL_S, Owned, owned, share_for, wait_all

LR_LOW, LR_HIGH = 1e-3, 1.0
DIM, UPDATES_PER_STEP, NOISE = 10, 190, 1.0


def sgd_step(theta: np.ndarray, lr: float, rng: np.random.Generator) -> float:
    """One training step (UPDATES_PER_STEP noisy SGD updates) in place; returns the score."""
    for _ in range(UPDATES_PER_STEP):
        theta -= lr * (theta + rng.normal(scale=NOISE, size=DIM))
    return -math.log10(float(np.mean(theta**2)))


@ray.remote(num_cpus=0.5)
def fixed_lr_scores(lr: float, steps: int) -> list[float]:
    """A grid point: the same training with one learning rate throughout."""
    theta, rng = np.full(DIM, 10.0), np.random.default_rng()
    return [sgd_step(theta, lr, rng) for _ in range(steps)]


def toy_training(config: dict[str, Any]) -> None:
    """Noisy SGD on a quadratic, a Tune function trainable. A large learning rate descends fast
    but settles on a high noise floor (about lr/2); a small one settles low but descends slowly,
    so the best learning rate falls as training goes on. State travels through checkpoints."""
    state: dict[str, Any] = {"step": 0, "theta": [10.0] * DIM}
    checkpoint = tune.get_checkpoint()
    if checkpoint:
        with checkpoint.as_directory() as folder:
            state = json.loads((Path(folder) / "state.json").read_text())
    rng = np.random.default_rng()
    theta = np.array(state["theta"])
    steps, every, lr = config["steps"], config["perturb_every"], config["lr"]
    while state["step"] < steps:
        score = sgd_step(theta, lr, rng)
        state["step"] += 1
        state["theta"] = theta.tolist()
        metrics = {"score": score, "step": state["step"], "lr": lr}
        if state["step"] % every == 0 or state["step"] == steps:
            with tempfile.TemporaryDirectory() as folder:
                (Path(folder) / "state.json").write_text(json.dumps(state))
                tune.report(metrics, checkpoint=Checkpoint.from_directory(folder))
        else:
            tune.report(metrics)


@ray.remote(num_cpus=0)
class _Relay:
    """Carries points from Tune's callback to the driver, and the driver's stop to Tune.

    Under Ray Client, Tune runs the whole experiment on the cluster, so its callbacks and
    stoppers are pickled there: they must hold nothing of the driver's (its report() writes to
    the app's database), only this actor's handle."""

    def __init__(self) -> None:
        self.points: list[dict[str, Any]] = []
        self.stop = False

    def push(self, point: dict[str, Any]) -> None:
        self.points.append(point)

    def take(self) -> list[dict[str, Any]]:
        points, self.points = self.points, []
        return points

    def request_stop(self) -> None:
        self.stop = True

    def should_stop(self) -> bool:
        return self.stop


class _Points(Callback):
    """Reports the population's best score at each step once every trial has passed it."""

    def __init__(self, series: str, relay: Any) -> None:
        self.series, self.relay = series, relay
        self.best: dict[int, float] = {}
        self.last_step: dict[str, int] = {}
        self.sent = 0

    def on_trial_result(
        self, iteration: int, trials: list[Trial], trial: Trial, result: dict[str, Any], **info: Any
    ) -> None:
        step = int(result["step"])
        self.best[step] = max(self.best.get(step, -99.0), float(result["score"]))
        self.last_step[trial.trial_id] = step
        self.flush(min(self.last_step.values()) if len(self.last_step) == len(trials) else 0)

    def on_experiment_end(self, trials: list[Trial], **info: Any) -> None:
        self.flush(max(self.best, default=0))

    def flush(self, upto: int) -> None:
        while self.sent < upto:
            self.sent += 1
            if self.sent in self.best:
                best = round(self.best[self.sent], 4)
                loss = float(f"{10**-best:.3g}")
                self.relay.push.remote({"series": self.series, "x": self.sent, "y": best,
                                        "loss": loss})  # fmt: skip


class _RelayStopper(Stopper):
    """Stops every trial once the driver asks (its deadline, or a cancel)."""

    def __init__(self, relay: Any) -> None:
        self.relay, self.asked, self.checked = relay, False, 0.0

    def __call__(self, trial_id: str, result: dict[str, Any]) -> bool:
        return False

    def stop_all(self) -> bool:
        if not self.asked and time.monotonic() - self.checked >= 0.25:
            self.checked = time.monotonic()
            self.asked = bool(ray.get(self.relay.should_stop.remote(), timeout=10))
        return self.asked


def _fit(name: str, config: dict[str, Any], scheduler: TrialScheduler | None, series: str,
         trials: int, share: float, storage: str, figures: Figures, deadline: Deadline,
         scope: Owned, on_tick: Callable[[], None] = lambda: None,
         ) -> tuple[float, Result]:  # fmt: skip
    relay = scope.actor(_Relay.remote())  # type: ignore[attr-defined]
    tuner = tune.Tuner(
        tune.with_resources(toy_training, {"cpu": share}),
        param_space=config,
        tune_config=tune.TuneConfig(
            metric="score",
            mode="max",
            scheduler=scheduler,
            num_samples=trials if scheduler else 1,
            time_budget_s=max(1.0, deadline.remaining()),
            reuse_actors=True,
        ),
        run_config=tune.RunConfig(
            name=name,
            storage_path=storage,
            stop=_RelayStopper(relay),
            callbacks=[_Points(series, relay)],
            verbose=0,
            checkpoint_config=tune.CheckpointConfig(num_to_keep=4),
        ),
    )
    # Tune runs in a thread; this one relays points to report() and checks the deadline, so
    # the demo's database writes stay on the thread that opened its connection.
    outcome: dict[str, Any] = {}
    fitting = threading.Thread(target=lambda: outcome.update(results=tuner.fit()), daemon=True)
    fitting.start()
    stopped: DemoStopped | None = None
    while fitting.is_alive():
        fitting.join(timeout=POLL_S)
        on_tick()
        for point in ray.get(relay.take.remote(), timeout=10):
            figures.report(point)
        if stopped is None:
            try:
                deadline.check()
            except DemoStopped as exc:
                stopped = exc
                relay.request_stop.remote()
    for point in ray.get(relay.take.remote(), timeout=10):
        figures.report(point)
    if stopped is not None:
        raise stopped
    if "results" not in outcome:
        raise RuntimeError("Ray Tune stopped without results (see the worker's log)")
    results = outcome["results"]
    errors = [r.error for r in results if r.error]
    if errors:
        raise RuntimeError(f"a Tune trial failed: {errors[0]}")
    best = results.get_best_result(metric="score", mode="max")
    return float(best.metrics["score"]), best


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    trials, steps, every = params["trials"], params["steps"], params["perturb_every"]
    share = share_for(trials)
    storage = tempfile.mkdtemp(prefix="raydeck-pbt-")
    grid = [float(x) for x in np.logspace(math.log10(LR_LOW), math.log10(LR_HIGH), trials)]
    base = {"steps": steps, "perturb_every": every}
    figures.define("grid_best_loss", "fixed grid: lowest loss of its best trial")
    figures.define("pbt_best_loss", "PBT: lowest loss of its best trial")
    done: dict[str, Any] = {}
    try:
        with owned() as scope:
            # The grid runs beside Tune's start-up (the figures are losses, not timings): its
            # curve is drawn as soon as its tasks return, while PBT's trials start.
            refs = [scope.ref(fixed_lr_scores.remote(lr, steps)) for lr in grid]

            def grid_done() -> None:
                if done or ray.wait(refs, num_returns=len(refs), timeout=0)[1]:
                    return
                curves = ray.get(refs)
                for step in range(steps):
                    best = max(c[step] for c in curves)
                    figures.point("grid", step + 1, best, loss=float(f"{10**-best:.3g}"))
                finals = [c[-1] for c in curves]
                done["score"], done["lr"] = max(finals), grid[int(np.argmax(finals))]
                figures.add("grid_best_loss", 10 ** -done["score"])

            pbt = PopulationBasedTraining(
                time_attr="training_iteration",
                perturbation_interval=every,
                hyperparam_mutations={"lr": tune.loguniform(LR_LOW, LR_HIGH)},
                quantile_fraction=0.5,
                synch=True,  # exploit on the whole population, however the trials are scheduled
                resample_probability=0.25,
                perturbation_factors=(2.5, 0.4),  # explore in big log-space moves
            )
            pbt_score, pbt_best = _fit(
                "pbt",
                {**base, "lr": tune.sample_from(lambda _: float(np.random.choice(grid)))},
                pbt,
                "pbt",
                trials,
                share,
                storage,
                figures,
                deadline,
                scope,
                on_tick=grid_done,
            )
            figures.add("pbt_best_loss", 10**-pbt_score)
            wait_all(refs, deadline, what="the fixed-grid trainings")
            grid_done()
            grid_score, grid_lr = done["score"], done["lr"]
    finally:
        shutil.rmtree(storage, ignore_errors=True)
    ratio = 10 ** (pbt_score - grid_score)
    lower = "lower" if ratio >= 1 else "higher"
    return {
        "figures": figures,
        "trials": trials,
        "steps": steps,
        "grid_lrs": [f"{lr:.0e}" for lr in grid],
        "grid_best_lr": f"{grid_lr:.0e}",
        "pbt_best_final_lr": f"{(pbt_best.config or {})['lr']:.0e}",
        "effect": (
            f"lowest loss after {steps} steps in this run: fixed grid {number(10**-grid_score)} "
            f"(lr {grid_lr:.0e}), PBT {number(10**-pbt_score)}, "
            f"{number(max(ratio, 1 / ratio))}x {lower}; PBT's best trial ended on lr "
            f"{(pbt_best.config or {})['lr']:.0e}"
        ),
    }
