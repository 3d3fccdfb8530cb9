"""Demo verdicts and timings across load, on the real stack: a demos worker process (the app's
database and broker; a local Ray in the worker, or RAY_ADDRESS), runs created as the web
creates them.

Every demo runs --runs times on the machine as it is ("idle") and --runs times beside a CPU
hog pinned to one core ("hog"), interleaved: round 1 runs every demo idle then every demo
hogged, then round 2, and so on, so load that drifts over the bench falls on both alike. Per
demo and condition it reports the verdicts (shown / not shown / inconclusive, and failed
runs), the runs whose figures broke a physical bound (a shown run with a breach would be a
bug: the verdict code never allows it, and the bench counts them to prove it), the median
(and max) time from "run" to the first stored point and of the run itself, and the 1-minute
load average each run recorded just before it started.

    make bench-demos                                       # every demo, 10 + 10 runs
    DEBUG=true .venv/bin/python bench/demos_bench.py --runs 3 vtrace pbt
    DEBUG=true .venv/bin/python bench/demos_bench.py --conditions idle --runs 1

It prints one JSON line per run and the table (Markdown), and writes bench/demos_results.json
(every run and the aggregates). A page adds up to 1 s to the first point: it polls every 1 s.
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

CONDITIONS = ("idle", "hog")
HOG = "import os\nos.sched_setaffinity(0, {0})\nwhile True:\n    pass\n"


def start_worker() -> subprocess.Popen:
    (ROOT / "var").mkdir(exist_ok=True)
    log = open(ROOT / "var" / "bench-demos-worker.log", "w")  # noqa: SIM115
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--queues=demos",
         "--concurrency=1", "--hostname=bench-demos@%h", "--loglevel=INFO"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip


def start_hog() -> subprocess.Popen:
    """One process spinning on CPU 0 at normal priority, as a neighbour's job would."""
    return subprocess.Popen([sys.executable, "-c", HOG], start_new_session=True)


def stop(proc: subprocess.Popen | None) -> None:
    if proc is not None and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def run_once(user, slug: str, params: dict | None = None) -> dict:
    load_at_submit = os.getloadavg()[0]
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
    summary = run.summary or {}
    claim = summary.get("claim") or {}
    conditions = summary.get("conditions") or {}
    return {
        "demo": slug,
        "status": run.status,
        "verdict": claim.get("verdict") or run.status,
        "breaches": len(claim.get("breaches") or []),
        "reason": claim.get("reason") or run.error,
        "first_point_s": round(first, 3) if first is not None else None,
        "run_s": round(run.duration_s or 0, 2),
        "load_1m_before": conditions.get("load_1m", round(load_at_submit, 2)),
        "parts": [p.get("sentence") for p in claim.get("parts") or []],
    }


def _median_max(values: list[float]) -> tuple[float | None, float | None]:
    return (statistics.median(values), max(values)) if values else (None, None)


def aggregate(rows: list[dict]) -> dict:
    firsts = [r["first_point_s"] for r in rows if r["first_point_s"] is not None]
    totals = [r["run_s"] for r in rows if r["status"] == "succeeded"]
    verdicts = Counter(r["verdict"] for r in rows)
    loads = [r["load_1m_before"] for r in rows if r["load_1m_before"] is not None]
    first_median, first_max = _median_max(firsts)
    run_median, run_max = _median_max(totals)
    return {
        "runs": len(rows),
        "shown": verdicts.get("shown", 0),
        "not_shown": verdicts.get("not_shown", 0),
        "inconclusive": verdicts.get("inconclusive", 0),
        "failed": sum(1 for r in rows if r["status"] != "succeeded"),
        "with_breach": sum(1 for r in rows if r["breaches"]),
        "shown_with_breach": sum(1 for r in rows if r["breaches"] and r["verdict"] == "shown"),
        "first_point_median_s": first_median,
        "first_point_max_s": first_max,
        "run_median_s": run_median,
        "run_max_s": run_max,
        "load_1m_range": [min(loads), max(loads)] if loads else None,
        "reasons_not_shown": sorted({r["reason"] for r in rows if r["verdict"] != "shown"}),
    }


def _s(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table(results: dict) -> str:
    lines = [
        "| demo | condition | runs | shown | not shown | inconclusive | failed | breach (shown "
        "with one) | first point, median (max) s | run, median (max) s | load 1m before |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for slug, by_condition in results.items():
        for condition, a in by_condition.items():
            low, high = a["load_1m_range"] or (None, None)
            lines.append(
                f"| {slug} | {condition} | {a['runs']} | {a['shown']} | {a['not_shown']} | "
                f"{a['inconclusive']} | {a['failed']} | {a['with_breach']} "
                f"({a['shown_with_breach']}) | {_s(a['first_point_median_s'])} "
                f"({_s(a['first_point_max_s'])}) | {_s(a['run_median_s'], 1)} "
                f"({_s(a['run_max_s'], 1)}) | {_s(low, 1)}-{_s(high, 1)} |"
            )
    return "\n".join(lines)


def main(slugs: list[str], runs: int, conditions: list[str]) -> None:
    user, _ = get_user_model().objects.get_or_create(username="bench-demos")
    DemoRun.objects.filter(user=user, status__in=DemoRun.ACTIVE).delete()
    specs = [s for s in DEMOS if (not slugs or s.slug in slugs)]
    for spec in [s for s in specs if not is_available(s)]:
        print(f"{spec.slug}: skipped (needs {', '.join(spec.needs)})", flush=True)
    # The node-failure demo kills a node (the cluster brings it back): it goes last.
    specs = sorted(
        (s for s in specs if is_available(s)), key=lambda s: s.slug == "cluster-node-failure"
    )
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_start = os.getloadavg()
    worker, hog = start_worker(), None
    rows: dict[str, dict[str, list[dict]]] = {s.slug: {c: [] for c in conditions} for s in specs}
    try:
        # Warm-up: the worker connects to Ray after its fork; one tiny run proves it is ready.
        warm = run_once(user, "tasks-vs-actors", {"n_items": 1, "work_ms": 1, "trials": 1})
        assert warm["status"] == "succeeded", warm
        for round_no in range(1, runs + 1):
            for condition in conditions:
                hog = start_hog() if condition == "hog" else None
                try:
                    for spec in specs:
                        row = run_once(user, spec.slug)
                        rows[spec.slug][condition].append(row)
                        print(json.dumps({"round": round_no, "condition": condition, **row}),
                              flush=True)  # fmt: skip
                finally:
                    stop(hog)
                    hog = None
    finally:
        stop(hog)
        stop(worker)
    results = {slug: {c: aggregate(r) for c, r in by.items()} for slug, by in rows.items()}
    out = {
        "when": started,
        "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cpus": os.cpu_count(),
        "load_avg_start": [round(x, 2) for x in load_start],
        "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        "conditions": {
            "idle": "the machine as it was",
            "hog": "plus one process spinning on CPU 0 at normal priority",
        },  # fmt: skip
        "demos": results,
        "runs": rows,
    }
    (ROOT / "bench" / "demos_results.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"\n{started} to {out['finished']}, {out['cpus']} CPUs, load average at the start "
          f"{out['load_avg_start']}, at the end {out['load_avg_end']}\n")  # fmt: skip
    print(table(results), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", help="demos to run (default: all)")
    parser.add_argument("--runs", type=int, default=10, help="runs per demo and condition")
    parser.add_argument("--conditions", nargs="+", choices=CONDITIONS, default=list(CONDITIONS))
    args = parser.parse_args()
    main(args.slugs, args.runs, args.conditions)
