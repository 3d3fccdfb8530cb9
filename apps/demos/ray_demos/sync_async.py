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

import numpy as np
import ray

from .base import Deadline, Report, cpu_spin
from .claims import Figures
from .raytools import actors_ready, cluster_cpus, owned, wait_all, wait_any

DIM, ROWS = 32, 256
TARGET = np.linspace(-1, 1, DIM)


def shard(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(ROWS, DIM))
    return x, x @ TARGET + rng.normal(scale=0.1, size=ROWS)


def gradient(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    return x.T @ (x @ w - y) / len(y)


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


def run(params: dict, report: Report, *, deadline: Deadline) -> dict:
    n, rounds, trials = params["n_workers"], params["rounds"], params["trials"]
    work_s, straggle_s, lr = params["work_ms"] / 1000, params["straggler_ms"] / 1000, params["lr"]
    total = n * rounds
    shards = [shard(i) for i in range(n)]
    x_all = np.concatenate([x for x, _ in shards])
    y_all = np.concatenate([y for _, y in shards])

    def loss(w: np.ndarray) -> float:
        return float(np.mean((x_all @ w - y_all) ** 2) / 2)

    figures = Figures()
    figures.define("speedup", "time to apply every gradient: barrier / asynchronous", "x")
    figures.define("sync_s", f"barrier: time for {total} gradients", "s")
    figures.define("async_s", f"asynchronous: time for {total} gradients", "s")
    figures.define("mean_lag", "asynchronous: mean policy lag of an applied gradient", "versions")
    figures.define("max_lag", "asynchronous: largest policy lag", "versions")
    figures.define("stale_vs_fresh_loss", "loss after the stale updates / after fresh ones", "x")
    figures.define("sync_loss", "barrier: loss at the end", "")
    figures.define("async_loss", "asynchronous (stale): loss at the end", "")
    share = min(1.0, cluster_cpus() / n)
    with owned() as scope:
        workers = [
            scope.actor(
                GradientWorker.options(num_cpus=share).remote(
                    i, work_s, straggle_s if i == 0 else 0
                )
            )
            for i in range(n)
        ]
        actors_ready(workers, deadline, what=f"{n} gradient workers to start")
        # Warm-up, not timed: one gradient from every worker calibrates their spin loops.
        wait_all([wk.gradient.remote(np.zeros(DIM), 0) for wk in workers], deadline,
                 what="a warm-up")  # fmt: skip
        for trial in range(1, trials + 1):
            chart = trial == 1  # the chart draws the first trial; the figures keep every one
            if chart:
                report({"series": "sync", "x": 0, "y": round(loss(np.zeros(DIM)), 4)})
            times = {}
            for mode in ("sync", "async") if trial % 2 else ("async", "sync"):
                start = time.perf_counter()
                if mode == "sync":
                    # Every round waits for the slowest worker, then applies the mean.
                    w = np.zeros(DIM)
                    for version in range(rounds):
                        grads = wait_all([wk.gradient.remote(w, version) for wk in workers],
                                         deadline, what="a sync round")  # fmt: skip
                        w = w - lr * np.mean([g for g, _ in grads], axis=0)
                        if chart:
                            report({"series": "sync", "x": (version + 1) * n,
                                    "y": round(loss(w), 4)})  # fmt: skip
                    times["sync"] = time.perf_counter() - start
                    figures.add("sync_loss", loss(w))
                    continue
                # Asynchronous: apply each gradient as it lands, hand that worker fresh weights.
                w, fresh, version, applied, lags = np.zeros(DIM), np.zeros(DIM), 0, 0, []
                inflight = {wk.gradient.remote(w, version): (i, wk) for i, wk in
                            enumerate(workers)}  # fmt: skip
                while applied < total:
                    ready, _ = wait_any(list(inflight), deadline, what="an async gradient")
                    for ref in ready:
                        i, worker = inflight.pop(ref)
                        grad, seen_version = ray.get(ref)
                        lags.append(version - seen_version)
                        w, version, applied = w - lr * grad / n, version + 1, applied + 1
                        # The same update with the gradient taken on the current weights.
                        fresh = fresh - lr * gradient(*shards[i], fresh) / n
                        if chart:
                            report({"series": "async", "x": applied, "y": round(loss(w), 4)})
                            report({"series": "fresh", "x": applied, "y": round(loss(fresh), 4)})
                        if applied + len(inflight) < total:
                            inflight[worker.gradient.remote(w, version)] = (i, worker)
                times["async"] = time.perf_counter() - start
                for ref in inflight:
                    scope.ref(ref)
                figures.add("mean_lag", float(np.mean(lags)))
                figures.add("max_lag", max(lags))
                figures.add("async_loss", loss(w))
                figures.add("stale_vs_fresh_loss", loss(w) / max(loss(fresh), 1e-12))
            figures.add("sync_s", times["sync"])
            figures.add("async_s", times["async"])
            figures.add("speedup", times["sync"] / times["async"])
            deadline.check()

    summary = figures.as_dict()
    return {
        "figures": figures,
        "gradients": total,
        "trials": trials,
        "scheme": "central parameter server (not Hogwild)",
        "effect": (
            f"{total} gradients, median of {trials} trials: the barrier took "
            f"{summary['sync_s']['median']:g} s, asynchronous updates "
            f"{summary['async_s']['median']:g} s with gradients up to "
            f"{summary['max_lag']['max']:g} versions old (mean {summary['mean_lag']['median']:g});"
            f" those stale updates ended at {summary['stale_vs_fresh_loss']['median']:g}x the "
            "loss the same updates reach with fresh gradients"
        ),
    }
