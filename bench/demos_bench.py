"""Demo figures on the real stack: a demos worker process (filesystem or Redis broker, local
Ray or RAY_ADDRESS), the app's database, runs created as the web creates them.

Measures, per demo at default parameters, over --runs runs (interleaved: one run of every
demo per round, so a neighbour's load drifting over the bench falls on every demo alike):
time from "run" (row committed, task sent) to the first stored point with a warm worker,
the run's own duration, and the share of runs whose verdict was *shown*, with the verdicts'
reasons otherwise and the 1-minute load average each run recorded before it started.

    DEBUG=true .venv/bin/python bench/demos_bench.py                 # every demo, 10 runs
    DEBUG=true .venv/bin/python bench/demos_bench.py --runs 3 vtrace # some, fewer runs
    (the web's poll adds up to 1 s on top: pages ask for new points every second)

Results go to stdout and bench/demos_results.json. The demos measure CPU throughput, so
anything else running moves the numbers: the load averages are recorded beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
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
    claim = (run.summary or {}).get("claim") or {}
    conditions = (run.summary or {}).get("conditions") or {}
    return {
        "demo": slug,
        "status": run.status,
        "first_point_s": round(first, 3) if first is not None else None,
        "run_s": round(run.duration_s or 0, 2),
        "verdict": claim.get("verdict") or run.status,
        "reason": claim.get("reason") or run.error,
        "load_1m_before": conditions.get("load_1m"),
        "effect": run.summary.get("effect") or run.error,
    }


def aggregate(rows: list[dict]) -> dict:
    firsts = [r["first_point_s"] for r in rows if r["first_point_s"] is not None]
    totals = [r["run_s"] for r in rows]
    verdicts = Counter(r["verdict"] for r in rows)
    loads = [r["load_1m_before"] for r in rows if r["load_1m_before"] is not None]
    return {
        "runs": len(rows),
        "first_point_median_s": round(statistics.median(firsts), 2) if firsts else None,
        "first_point_max_s": round(max(firsts), 2) if firsts else None,
        "run_median_s": round(statistics.median(totals), 1),
        "run_max_s": round(max(totals), 1),
        "shown": verdicts.get("shown", 0),
        "verdicts": dict(verdicts),
        "load_1m_range": [min(loads), max(loads)] if loads else None,
        "reasons_not_shown": sorted({r["reason"] for r in rows if r["verdict"] != "shown"}),
    }


def main(slugs: list[str], runs: int) -> None:
    (ROOT / "var").mkdir(exist_ok=True)
    user, _ = get_user_model().objects.get_or_create(username="bench-demos")
    DemoRun.objects.filter(user=user, status__in=DemoRun.ACTIVE).delete()
    specs = [s for s in DEMOS if (not slugs or s.slug in slugs)]
    for spec in [s for s in specs if not is_available(s)]:
        print(f"{spec.slug}: skipped (needs {', '.join(spec.needs)})", flush=True)
    specs = [s for s in specs if is_available(s)]
    load_start = os.getloadavg()
    worker = start_worker()
    rows: dict[str, list[dict]] = {spec.slug: [] for spec in specs}
    try:
        # Warm-up: the worker connects to Ray after its fork; one tiny run proves it is ready.
        warm = run_once(user, "tasks-vs-actors", {"n_items": 1, "work_ms": 1, "trials": 1})
        assert warm["status"] == "succeeded", warm
        for round_no in range(1, runs + 1):
            for spec in specs:
                row = run_once(user, spec.slug)
                rows[spec.slug].append(row)
                print(json.dumps({"round": round_no, **row}), flush=True)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
    results = {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "load_avg_start": [round(x, 2) for x in load_start],
        "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        "demos": {slug: aggregate(r) for slug, r in rows.items()},
        "runs": rows,
    }
    for slug, agg in results["demos"].items():
        print(f"{slug:22} first point {agg['first_point_median_s']} s (max "
              f"{agg['first_point_max_s']}), run {agg['run_median_s']} s (max {agg['run_max_s']}),"
              f" shown {agg['shown']}/{agg['runs']} {agg['verdicts']}", flush=True)  # fmt: skip
    out = ROOT / "bench" / "demos_results.json"
    if slugs and out.exists():  # a partial run updates its demos, keeps the others' figures
        previous = json.loads(out.read_text())
        if isinstance(previous.get("demos"), dict):
            for key in ("demos", "runs"):
                kept = {k: v for k, v in previous.get(key, {}).items() if k not in rows}
                results[key] = {**kept, **results[key]}
            results["earlier"] = previous.get("earlier", []) + [
                {k: previous.get(k) for k in ("when", "load_avg_start", "load_avg_end")}
            ]
    out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", help="demos to run (default: all)")
    parser.add_argument("--runs", type=int, default=10, help="runs of each demo (default 10)")
    args = parser.parse_args()
    main(args.slugs, args.runs)
