"""How long one graded run of an exercise that runs Ray or RLlib takes, beside an ordinary one.
Run by hand, not in CI:

    DEBUG=true .venv/bin/python bench/exercises_ray_bench.py [--rounds 3] [--slugs a,b]

For each exercise (by default gae-advantages, then every `runtime: ray` one) it runs the shipped
reference against every test (a Submit) in the real sandbox with the learners' own limits
(apps/exercises/limits.py), one run at a time, `--rounds` times, and prints the whole run's time,
the sandbox's start (bwrap to the harness's first line), the peak memory of the run's processes
together (Ray's runs, as the worker watches it) and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

import yaml  # noqa: E402

from apps.exercises import grading, sandbox  # noqa: E402
from apps.exercises.content import exercise_parse  # noqa: E402
from apps.exercises.limits import run_limits  # noqa: E402

FILE = ROOT / "fixtures" / "exercises" / "distributed-rl-on-ray.yaml"


def load():
    data = yaml.safe_load(FILE.read_text())
    for raw in data["exercises"]:
        names = set(raw["cards"])
        yield exercise_parse("bench", raw["slug"], raw, card_names=names,
                             sections={raw.get("section", "")})  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--slugs", default="")
    args = parser.parse_args()
    exercises = list(load())
    wanted = [s for s in args.slugs.split(",") if s]
    if wanted:
        exercises = [e for e in exercises if e.slug in wanted]
    else:
        exercises = [e for e in exercises if e.slug == "gae-advantages" or e.runtime == "ray"]
    started = time.monotonic()
    sandbox.runtime_discover("numpy")
    sandbox.runtime_discover("ray")
    print(f"runtimes discovered (ldd of the packages) in {time.monotonic() - started:.1f} s")
    print(f"load average before: {Path('/proc/loadavg').read_text().strip()}")
    print(
        f"{'exercise':34} {'runtime':7} {'whole run (median, max)':>24} {'start':>8} {'peak MB':>8}"
    )
    for exercise in exercises:
        suites = [grading.Suite("hidden", exercise.tests, visible=True)]
        if exercise.examples:
            suites.insert(0, grading.Suite("examples", exercise.examples, visible=True))
        limits = run_limits(exercise.runtime)
        times, starts, peaks = [], [], []
        for _ in range(args.rounds):
            outcome = sandbox.run(exercise.reference, suites, limits)
            if not outcome.passed:
                print(f"{exercise.slug}: the reference did not pass: {outcome.problem}")
            times.append(outcome.time_ms)
            starts.append(outcome.startup_ms or 0)
            peaks.append(outcome.memory_peak_mb or 0)
        whole = f"{statistics.median(times) / 1000:.1f} s, {max(times) / 1000:.1f} s"
        print(f"{exercise.slug:34} {exercise.runtime:7} {whole:>24} "
              f"{statistics.median(starts):>6.0f}ms {max(peaks):>8}")  # fmt: skip
    print(f"load average after: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
