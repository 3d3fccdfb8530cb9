"""A2C-style synchronous barrier vs A3C-style asynchronous updates, with one straggler."""

from __future__ import annotations

import time

import numpy as np
import ray

from .base import Deadline, Report, cpu_spin
from .raytools import actors_ready, cluster_cpus, owned, wait_all, wait_any

DIM = 32


@ray.remote
class GradientWorker:
    """Computes a least-squares gradient on its own data shard (a stand-in for rollouts)."""

    def __init__(self, seed: int, work_s: float, straggle_s: float):
        rng = np.random.default_rng(seed)
        self.x = rng.normal(size=(256, DIM))
        self.y = self.x @ np.linspace(-1, 1, DIM) + rng.normal(scale=0.1, size=256)
        self.work_s, self.straggle_s = work_s, straggle_s

    def gradient(self, w: np.ndarray, version: int) -> tuple[np.ndarray, int]:
        cpu_spin(self.work_s)  # the real work of producing a batch
        if self.straggle_s:
            time.sleep(self.straggle_s)  # modelled: this worker's environment is slow
        residual = self.x @ w - self.y
        return self.x.T @ residual / len(self.y), version


def run(params: dict, report: Report, *, deadline: Deadline) -> dict:
    n, rounds = params["n_workers"], params["rounds"]
    work_s, straggle_s, lr = params["work_ms"] / 1000, params["straggler_ms"] / 1000, 0.05
    total = n * rounds
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

        # Synchronous: every round waits for the slowest worker, then applies the mean.
        w, applied, start = np.zeros(DIM), 0, time.perf_counter()
        for version in range(rounds):
            grads = wait_all(
                [wk.gradient.remote(w, version) for wk in workers], deadline, what="a sync round"
            )
            w = w - lr * np.mean([g for g, _ in grads], axis=0)
            applied += n
            report({"series": "sync", "x": round(time.perf_counter() - start, 3), "y": applied})
        sync_s, sync_w = time.perf_counter() - start, w

        # Asynchronous: apply each gradient as it lands and hand that worker fresh weights.
        w, version, applied, lags = np.zeros(DIM), 0, 0, []
        start = time.perf_counter()
        inflight = {wk.gradient.remote(w, version): wk for wk in workers}
        while applied < total:
            ready, _ = wait_any(list(inflight), deadline, what="an async gradient")
            for ref in ready:
                worker = inflight.pop(ref)
                grad, seen_version = ray.get(ref)
                lags.append(version - seen_version)
                w, version, applied = w - lr * grad / n, version + 1, applied + 1
                report(
                    {"series": "async", "x": round(time.perf_counter() - start, 3), "y": applied}
                )
                if applied + len(inflight) < total:
                    inflight[worker.gradient.remote(w, version)] = worker
        async_s = time.perf_counter() - start
        for ref in inflight:
            scope.ref(ref)

    lags_arr = np.array(lags)
    return {
        "gradients": total,
        "sync_s": round(sync_s, 3),
        "async_s": round(async_s, 3),
        "speedup": round(sync_s / async_s, 2),
        "sync_policy_lag": 0,
        "async_mean_policy_lag": round(float(lags_arr.mean()), 2),
        "async_max_policy_lag": int(lags_arr.max()),
        "sync_final_weight_error": round(
            float(np.linalg.norm(sync_w - np.linspace(-1, 1, DIM))), 3
        ),
        "async_final_weight_error": round(float(np.linalg.norm(w - np.linspace(-1, 1, DIM))), 3),
        "effect": (
            f"{total} gradients: the barrier took {sync_s:.2f} s, asynchronous updates "
            f"{async_s:.2f} s ({sync_s / async_s:.1f}x faster), at the price of gradients "
            f"computed on weights up to {int(lags_arr.max())} versions old "
            f"(mean {lags_arr.mean():.1f})"
        ),
    }
