"""The cluster demos at their defaults on the local two-node cluster (make ray-cluster), run as
the demos worker runs them (the pure demo code, a Ray Client driver with the cluster's token),
several times each: time to first point, total time, the verdict's share of "shown", and each
demo's own figures. Not run by CI.

    make ray-cluster
    RAY_AUTH_MODE=token RAY_AUTH_TOKEN_PATH=var/ray-cluster/auth_token \\
        .venv/bin/python bench/cluster_bench.py [--runs 5] [--address ray://127.0.0.1:6391]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIGURES = {
    "cluster-objects": ("same_node_ms", "other_node_ms", "other_node_again_ms", "bytes_moved"),
    "cluster-placement": ("pack_bundles_on", "spread_bundles_on", "infeasible_state"),
    "cluster-node-failure": ("restart_s", "rebuild_s", "object_task_runs", "learner_nodes"),
    "cluster-scheduling": ("tasks_on_that_node", "tasks", "unschedulable_ran"),
}


def alive() -> int:
    import ray

    return sum(1 for n in ray.nodes() if n["Alive"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", default="ray://127.0.0.1:6391")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("demos", nargs="*", default=list(FIGURES))
    args = parser.parse_args()

    import ray

    from apps.demos.ray_demos import Deadline, run_demo

    started = time.perf_counter()
    ray.init(address=args.address, runtime_env={"py_modules": [str(ROOT / "apps")]},
             log_to_driver=False)  # fmt: skip
    print(f"connected in {time.perf_counter() - started:.1f} s; {alive()} nodes")
    results = {}
    for slug in args.demos:
        rows = []
        for _ in range(args.runs):
            while alive() < 2:  # the node-failure demo's victim coming back
                time.sleep(1)
            first: list[float] = []
            start = time.perf_counter()

            def report(point, first=first, start=start):
                first or first.append(time.perf_counter() - start)

            summary = run_demo(slug, {}, report, deadline=Deadline(120))
            rows.append((first[0] if first else None, time.perf_counter() - start, summary))
        firsts = [r[0] for r in rows if r[0] is not None]
        totals = [r[1] for r in rows]
        shown = sum(r[2]["verdict"] == "shown" for r in rows)
        results[slug] = {
            "first_point_s_median": round(statistics.median(firsts), 2) if firsts else None,
            "total_s": [
                round(min(totals), 1),
                round(statistics.median(totals), 1),
                round(max(totals), 1),
            ],  # fmt: skip
            "shown": f"{shown}/{len(rows)}",
            "figures": [{k: r[2].get(k) for k in FIGURES[slug]} for r in rows],
        }
        print(json.dumps({slug: results[slug]}, indent=1), flush=True)
    out = ROOT / "bench" / "results" / "cluster.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
