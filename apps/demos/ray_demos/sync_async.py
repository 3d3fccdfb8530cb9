"""Synchronous barrier (A2C-style) vs asynchronous updates through a central parameter server,
with one straggler, on a least-squares problem split over the workers.

The asynchronous scheme is a central parameter server (the driver holds the weights and
applies each gradient as it lands, as a GORILA- or IMPALA-style learner does without
correction), not Hogwild (lock-free writes to shared memory by every worker, A3C's scheme).
Staleness is measured twice: the policy lag of each applied gradient, and its cost to
learning: the same updates replayed with every gradient computed on the current weights
("fresh") reach a lower loss than the stale ones did.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import ray

from .base import Deadline, cpu_spin
from .claims import Figures, number
from .raytools import Owned, actors_ready, owned, share_for, wait_all, wait_any

DIM, ROWS = 32, 256
TARGET = np.linspace(-1, 1, DIM)


def shard(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(ROWS, DIM))
    return x, x @ TARGET + rng.normal(scale=0.1, size=ROWS)


def gradient(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.asarray(x.T @ (x @ w - y) / len(y))


@ray.remote
class GradientWorker:
    """Computes a least-squares gradient on its own data shard (a stand-in for rollouts)."""

    def __init__(self, seed: int, work_s: float, straggle_s: float):
        self.x, self.y = shard(seed)
        self.work_s, self.straggle_s = work_s, straggle_s

    def gradient(self, w: np.ndarray, version: int) -> tuple[np.ndarray, int]:
        cpu_spin(self.work_s)  # the real work of producing a batch
        if self.straggle_s:
            time.sleep(self.straggle_s)  # modelled: this worker's environment is slow
        return gradient(self.x, self.y, w), version


def _sync(
    workers: Sequence[Any],
    w: np.ndarray,
    rounds: int,
    lr: float,
    deadline: Deadline,
    on_round: Callable[[int, np.ndarray], None] | None = None,
) -> np.ndarray:
    """Every round waits for the slowest worker, then applies the mean gradient."""
    for version in range(rounds):
        grads = wait_all([wk.gradient.remote(w, version) for wk in workers], deadline,
                         what="a sync round")  # fmt: skip
        w = w - lr * np.mean([g for g, _ in grads], axis=0)
        if on_round is not None:
            on_round(version, w)
    return w


def _async(
    workers: Sequence[Any],
    shards: Sequence[tuple[np.ndarray, np.ndarray]],
    total: int,
    lr: float,
    deadline: Deadline,
    scope: Owned,
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Apply each gradient as it lands and hand that worker fresh weights; beside it, the same
    updates with every gradient taken on the current weights ("fresh"). Returns (stale
    weights, fresh weights, policy lag of each applied gradient)."""
    n = len(workers)
    w, fresh, version, applied, lags = np.zeros(DIM), np.zeros(DIM), 0, 0, []
    inflight = {wk.gradient.remote(w, version): (i, wk) for i, wk in enumerate(workers)}
    while applied < total:
        ready, _ = wait_any(list(inflight), deadline, what="an async gradient")
        for ref in ready:
            i, worker = inflight.pop(ref)
            grad, seen_version = ray.get(ref)
            lags.append(version - seen_version)
            w, version, applied = w - lr * grad / n, version + 1, applied + 1
            fresh = fresh - lr * gradient(*shards[i], fresh) / n
            if applied + len(inflight) < total:
                inflight[worker.gradient.remote(w, version)] = (i, worker)
    for ref in inflight:
        scope.ref(ref)
    return w, fresh, lags


def run(params: dict[str, Any], figures: Figures, *, deadline: Deadline) -> dict[str, Any]:
    n, rounds, trials = params["n_workers"], params["rounds"], params["trials"]
    work_s, straggle_s, lr = params["work_ms"] / 1000, params["straggler_ms"] / 1000, params["lr"]
    total = n * rounds
    shards = [shard(i) for i in range(n)]
    x_all = np.concatenate([x for x, _ in shards])
    y_all = np.concatenate([y for _, y in shards])

    def loss(w: np.ndarray) -> float:
        return float(np.mean((x_all @ w - y_all) ** 2) / 2)

    figures.define("speedup", "time to apply every gradient: barrier / asynchronous", "x",
                   series="speedup")  # fmt: skip
    figures.define("stale_vs_fresh_loss", "loss after the stale updates / after fresh ones", "x",
                   series="staleness")  # fmt: skip
    figures.define("sync_s", f"barrier: time for {total} gradients", "s")
    figures.define("async_s", f"asynchronous: time for {total} gradients", "s")
    figures.define("mean_lag", "asynchronous: mean policy lag of an applied gradient", "versions")
    figures.define("max_lag", "asynchronous: largest policy lag", "versions")
    figures.define("sync_loss", "barrier: loss at the end")
    figures.define("async_loss", "asynchronous (stale): loss at the end")
    figures.define("fresh_loss", "the same updates with fresh gradients: loss at the end")
    share = share_for(n)
    with owned() as scope:
        workers = [
            scope.actor(
                GradientWorker.options(num_cpus=share).remote(  # type: ignore[attr-defined]
                    i, work_s, straggle_s if i == 0 else 0
                )
            )
            for i in range(n)
        ]
        actors_ready(workers, deadline, what=f"{n} gradient workers to start")
        # Warm-up, not counted: one round each way (every worker's first call), drawn as a
        # warm-up point so the chart starts at once.
        start = time.perf_counter()
        _sync(workers, np.zeros(DIM), 1, lr, deadline)
        warm_sync = time.perf_counter() - start
        start = time.perf_counter()
        _async(workers, shards, n, lr, deadline, scope)
        figures.point("speedup", 0, warm_sync / (time.perf_counter() - start), warmup=True)
        for trial in range(1, trials + 1):
            times = {}
            for mode in ("sync", "async") if trial % 2 else ("async", "sync"):
                start = time.perf_counter()
                if mode == "sync":
                    w = _sync(workers, np.zeros(DIM), rounds, lr, deadline)
                    times["sync"] = time.perf_counter() - start
                    figures.add("sync_loss", loss(w))
                    continue
                w, fresh, lags = _async(workers, shards, total, lr, deadline, scope)
                times["async"] = time.perf_counter() - start
                figures.add("mean_lag", float(np.mean(lags)))
                figures.add("max_lag", max(lags))
                figures.add("async_loss", loss(w))
                figures.add("fresh_loss", loss(fresh))
                stale = loss(w) / max(loss(fresh), 1e-12)
            figures.add("sync_s", times["sync"])
            figures.add("async_s", times["async"])
            figures.add("speedup", times["sync"] / times["async"], x=trial)
            figures.add("stale_vs_fresh_loss", stale, x=trial)
            deadline.check()

    summary = figures.as_dict()
    med = {key: summary[key]["median"] for key in summary}
    return {
        "figures": figures,
        "gradients": total,
        "trials": trials,
        "scheme": "central parameter server (not Hogwild)",
        "effect": (
            f"{total} gradients, median of {trials} trials: the barrier took "
            f"{number(med['sync_s'])} s, asynchronous updates {number(med['async_s'])} s with "
            f"gradients up to {number(summary['max_lag']['max'])} versions old (mean "
            f"{number(med['mean_lag'])}); those stale updates ended at "
            f"{number(med['stale_vs_fresh_loss'])}x the loss the same updates reach with fresh "
            "gradients"
        ),
    }
