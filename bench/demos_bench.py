"""Demo figures on the real stack: a demos worker process (filesystem or Redis broker, local
Ray or RAY_ADDRESS), the app's database, runs created as the web creates them.

Measures, per demo at default parameters: time from "run" (row committed, task sent) to the
first stored point with a warm worker, the run's own duration, and the effect it shows.

    DEBUG=true .venv/bin/python bench/demos_bench.py            # every demo
    DEBUG=true .venv/bin/python bench/demos_bench.py vtrace pbt # some
    (the web's poll adds up to 1 s on top: pages ask for new points every second)

Results go to stdout and bench/demos_results.json. Run it on an idle machine: the demos
measure CPU throughput, so anything else running moves the numbers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "true")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402

from apps.demos import services  # noqa: E402
from apps.demos.models import DemoRun  # noqa: E402
from apps.demos.ray_demos import DEMOS, is_available  # noqa: E402

SLUGS = [spec.slug for spec in DEMOS]
HEADLINE = {  # the summary figure that states each demo's effect
    "tasks-vs-actors": "tasks_speedup",
    "object-store": "speedup",
    "sampling-throughput": "speedup_2_vs_1",
    "sync-vs-async": "speedup",
    "vtrace": "error_ratio",
    "seed-inference": "modelled_vs_per_actor",
    "fault-tolerance": "restart_ms",
    "placement-groups": "gang_both_done_s",
    "pbt": "pbt_vs_grid",
    "rllib-ppo": "last_return",
}


def start_worker() -> subprocess.Popen:
    log = open(ROOT / "var" / "bench-demos-worker.log", "w")  # noqa: SIM115
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--queues=demos",
         "--concurrency=1", "--hostname=bench-demos@%h", "--loglevel=INFO"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip


def run_once(user, slug: str, params: dict | None = None) -> dict:
    sent = time.perf_counter()
    run = services.demo_run_create(user=user, demo=slug, params=params or {})
    first = None
    while True:
        run.refresh_from_db()
        if first is None and run.last_seq:
            first = time.perf_counter() - sent
        if run.is_finished:
            break
        time.sleep(0.02)
    return {
        "demo": slug,
        "status": run.status,
        "first_point_s": round(first, 3) if first is not None else None,
        "run_s": round(run.duration_s or 0, 2),
        "points": run.last_seq,
        "headline": {HEADLINE[slug]: run.summary.get(HEADLINE[slug])},
        "effect": run.summary.get("effect") or run.error,
    }


def main(slugs: list[str]) -> None:
    (ROOT / "var").mkdir(exist_ok=True)
    user, _ = get_user_model().objects.get_or_create(username="bench-demos")
    DemoRun.objects.filter(user=user, status__in=DemoRun.ACTIVE).delete()
    worker = start_worker()
    try:
        # Warm-up: the worker connects to Ray after its fork; one tiny run proves it is ready.
        warm = run_once(user, "tasks-vs-actors", {"n_items": 1, "work_ms": 1})
        assert warm["status"] == "succeeded", warm
        first_points = [
            run_once(user, "tasks-vs-actors", {"n_items": 1, "work_ms": 1})["first_point_s"]
            for _ in range(5)
        ]
        results = {"first_point_warm_s": sorted(first_points), "demos": []}
        print(f"run -> first point, warm worker: {sorted(first_points)} s", flush=True)
        for spec in DEMOS:
            if slugs and spec.slug not in slugs:
                continue
            if not is_available(spec):
                print(f"{spec.slug}: skipped (needs {', '.join(spec.needs)})", flush=True)
                continue
            row = run_once(user, spec.slug)
            results["demos"].append(row)
            print(json.dumps(row), flush=True)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
    results["cpus"] = os.cpu_count()
    results["load_after"] = os.getloadavg()
    out = ROOT / "bench" / "demos_results.json"
    if slugs and out.exists():  # a partial run updates its demos' rows, keeps the others
        previous = json.loads(out.read_text())
        ran = {row["demo"] for row in results["demos"]}
        kept = [row for row in previous.get("demos", []) if row["demo"] not in ran]
        results["demos"] = sorted(kept + results["demos"], key=lambda r: SLUGS.index(r["demo"]))
    out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
