"""The stats page's calibration, in-sample (before) against held-out (now), on the same simulated
learners and the same held-out reviews. See bench/README-plan.md, "Calibration".

    .venv/bin/python bench/calibration_holdout.py                # 10 learners per truth
    .venv/bin/python bench/calibration_holdout.py --learners 4   # quicker, noisier

Needs the `fit` extra (fsrs's optimizer: torch, pandas, tqdm). Each learner studies plain SM-2
for `--days` days at 40 reviews a day (`bench/plan_sim.py`'s learners: FSRS with perturbed
parameters, or exponential forgetting). Their reviews are split where the stats page splits them
(`memory.holdout_split`: the latest 30% of the reviews a day or more after the card's previous
one), and the held-out reviews are scored (`memory.calibration`, split passed in) by:

- defaults: FSRS's default parameters;
- in-sample: the parameters fitted on every review, the held-out ones included (what the page
  scored once the worker had fitted, before this change);
- held-out: the parameters fitted on the reviews before the split only (what the page scores
  now; FSRS's defaults when that part is too small for the optimizer, as the page does).

Only learners whose full fit moves off the defaults count (the others were never shown a fit).
Two fits a learner: about half a minute each on a loaded 2-core machine.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from plan_sim import ExponentialTruth, FsrsTruth, run_sm2_only  # noqa: E402

from apps.study import memory  # noqa: E402
from apps.study.memory import MemoryModel  # noqa: E402

COLUMNS = ("defaults", "in-sample", "held-out")


def learner(truth_cls, seed: int, days: int, budget: int) -> dict | None:
    """One learner's held-out (predicted, recalled) pairs under each model, or None when the
    full fit does not move off the defaults."""
    log = run_sm2_only(truth_cls, seed, days, budget)
    full = memory.fit_parameters(log)
    if full is None:
        return None
    split = memory.holdout_split(log)
    held = memory.fit_parameters([r for r in log if r.at < split])
    out = {"reviews": len(log), "held_fitted": held is not None}
    for name, params in zip(COLUMNS, (None, full, held), strict=True):
        cal = memory.calibration(log, MemoryModel(params), split=split)
        out[name] = [(p, y) for p, y, _ in cal.test_pairs]
    return out


def loss(pairs, constant: float | None = None) -> float:
    total = 0.0
    for p, y in pairs:
        p = min(1 - memory.EPSILON, max(memory.EPSILON, p if constant is None else constant))
        total -= math.log(p) if y else math.log(1 - p)
    return total / len(pairs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--learners", type=int, default=10)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--budget", type=int, default=40, help="reviews a day")
    args = parser.parse_args()
    if not memory.optimizer_available():
        sys.exit("needs fsrs's optimizer: pip install -c constraints.txt -e '.[fit]'")
    print(f"{args.learners} learners per truth, {args.days} days of plain SM-2 at "
          f"{args.budget} reviews a day; log loss on each learner's held-out reviews "
          "(lower is better)\n")  # fmt: skip
    print("| truth | learner | reviews | held out | constant | defaults | in-sample (before) "
          "| held-out (now) | in-sample flatters by |")  # fmt: skip
    print("|" + "---|" * 9)
    pooled = {}
    for truth_cls in (FsrsTruth, ExponentialTruth):
        rows = []
        for seed in range(args.learners):
            started = time.monotonic()
            r = learner(truth_cls, seed, args.days, args.budget)
            took = time.monotonic() - started
            if r is None:
                print(f"| {truth_cls.name} | {seed} | - | - | no full fit | | | | |", flush=True)
                continue
            rows.append(r)
            share = statistics.mean(y for _, y in r["defaults"])
            cells = [loss(r[name]) for name in COLUMNS]
            held = f"{cells[2]:.3f}" + ("" if r["held_fitted"] else " (defaults)")
            print(f"| {truth_cls.name} | {seed} | {r['reviews']} | {len(r['defaults'])} "
                  f"| {loss(r['defaults'], share):.3f} | {cells[0]:.3f} | {cells[1]:.3f} "
                  f"| {held} | {cells[2] - cells[1]:+.3f} |", flush=True)  # fmt: skip
            print(f"  ({took:.0f} s)", file=sys.stderr, flush=True)
        pooled[truth_cls.name] = rows
    print("\nPooled over the learners with a full fit (the same held-out reviews in every "
          "column):\n")  # fmt: skip
    print("| truth | learners | held-out fit moved off the defaults | held-out reviews | constant "
          "| defaults | in-sample (before) | held-out (now) |")  # fmt: skip
    print("|" + "---|" * 8)
    for name, rows in pooled.items():
        if not rows:
            continue
        pairs = {c: [pair for r in rows for pair in r[c]] for c in COLUMNS}
        share = statistics.mean(y for _, y in pairs["defaults"])
        print(f"| {name} | {len(rows)} | {sum(r['held_fitted'] for r in rows)} "
              f"| {len(pairs['defaults'])} | {loss(pairs['defaults'], share):.3f} | "
              + " | ".join(f"{loss(pairs[c]):.3f}" for c in COLUMNS) + " |")  # fmt: skip


if __name__ == "__main__":
    main()
