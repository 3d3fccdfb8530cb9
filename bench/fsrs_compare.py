"""The two FSRS implementations side by side on the same review histories (issue 24, item 2):
`fsrs` (py-fsrs, pure Python, what the app used) and `fsrs-rs-python` (the Rust FSRS that Anki
itself runs, with its optimizer). See bench/README-fsrs.md for the figures.

    .venv/bin/python bench/fsrs_compare.py                  # 1,000 cards, ~12 reviews each
    .venv/bin/python bench/fsrs_compare.py --cards 300 --no-fit

Histories come from simulated learners whose memory is FSRS with perturbed parameters (so the
optimizers have something to find), reviewed at whole days (noon), grades 1-4, at most 1,000
days apart. For each implementation: the memory state after every review (stability,
difficulty), the predicted recall 30 days after the last review, the CPU time of replaying every
history, of one review update (what the write path does per grade) and of fitting parameters to
all the reviews. Pure Python: no Django, no database.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from datetime import UTC, datetime, timedelta

import fsrs
import fsrs_rs_python as rs

START = datetime(2026, 1, 1, 12, tzinfo=UTC)
DAY = timedelta(days=1)


def histories(cards: int, seed: int) -> list[list[tuple[int, int]]]:
    """Per card, (days since the previous review, rating 1-4); the first review's days are 0.
    A learner's true memory is FSRS with the defaults perturbed (log-normal, sd 0.25); reviews
    come at the interval a 0.9 retention gives, stretched or shrunk at random, so the recall at
    review time spreads out; a few same-day re-drills after a miss."""
    rng = random.Random(seed)
    truth = [
        max(low, min(high, p * math.exp(rng.gauss(0, 0.25))))
        for p, low, high in zip(
            fsrs.scheduler.DEFAULT_PARAMETERS,
            fsrs.scheduler.LOWER_BOUNDS_PARAMETERS,
            fsrs.scheduler.UPPER_BOUNDS_PARAMETERS,
            strict=True,
        )
    ]
    model = rs.FSRS(truth)
    decay = -truth[20]
    factor = 0.9 ** (1 / decay) - 1
    out = []
    for _ in range(cards):
        state, history, days = None, [], 0
        for n in range(rng.randrange(6, 19)):
            if n == 0:
                rating = 1 if rng.random() < 0.6 else 3
            else:
                r = (1 + factor * days / state.stability) ** decay if days else 1.0
                rating = (2 if rng.random() < 0.15 else 3) if rng.random() < r else 1
                if rating == 3 and rng.random() < 0.1:
                    rating = 4
            history.append((days, rating))
            next_states = model.next_states(state, 0.9, days)
            state = [next_states.again, next_states.hard, next_states.good, next_states.easy][
                rating - 1
            ].memory
            if rating == 1 and rng.random() < 0.5:
                days = 0  # a re-drill the same day
            else:
                days = min(1000, max(1, round(state.stability * math.exp(rng.gauss(0, 0.6)))))
        out.append(history)
    return out


def py_replay(scheduler: fsrs.Scheduler, history) -> list[tuple[float, float]]:
    card = fsrs.Card(card_id=1, due=START)
    at, out = START, []
    for days, rating in history:
        at += days * DAY
        card, _ = scheduler.review_card(card, fsrs.Rating(rating), review_datetime=at)
        out.append((card.stability, card.difficulty))
    return out


def rs_replay(model: rs.FSRS, history) -> list[tuple[float, float]]:
    state, out = None, []
    for days, rating in history:
        next_states = model.next_states(state, 0.9, days)
        state = [next_states.again, next_states.hard, next_states.good, next_states.easy][
            rating - 1
        ].memory
        out.append((state.stability, state.difficulty))
    return out


def recall(stability: float, days: float, decay: float) -> float:
    factor = 0.9 ** (1 / -decay) - 1
    return (1 + factor * days / stability) ** -decay


def cpu(fn, repeat: int = 3) -> float:
    """Best of `repeat` CPU times of fn() in seconds."""
    best = math.inf
    for _ in range(repeat):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--no-fit", action="store_true", help="skip the two optimizers")
    args = parser.parse_args()
    data = histories(args.cards, args.seed)
    reviews = sum(len(h) for h in data)
    print(f"{args.cards} cards, {reviews} reviews (seed {args.seed})\n")

    scheduler = fsrs.Scheduler(enable_fuzzing=False)
    model = rs.FSRS(rs.DEFAULT_PARAMETERS)
    decay = scheduler.parameters[20]
    py_states = [py_replay(scheduler, h) for h in data]
    rs_states = [rs_replay(model, h) for h in data]
    batch = model.memory_state_batch(
        [rs.FSRSItem([rs.FSRSReview(r, d) for d, r in h]) for h in data]
    )
    ds, dd, dr, db, capped = [], [], [], [], 0
    for p_h, r_h, last in zip(py_states, rs_states, batch, strict=True):
        for (ps, pd), (rs_s, rs_d) in zip(p_h, r_h, strict=True):
            if max(ps, rs_s) >= 36500:  # fsrs-rs-python caps stability at 100 years, fsrs not
                capped += 1
                continue
            ds.append(abs(ps - rs_s) / ps)
            dd.append(abs(pd - rs_d))
        dr.append(abs(recall(p_h[-1][0], 30, decay) - recall(r_h[-1][0], 30, decay)))
        db.append(abs(last.stability - r_h[-1][0]) / r_h[-1][0])
    print("Predictions, fsrs vs fsrs-rs-python (default parameters):")
    median = statistics.median(ds)
    print(f"  stability, relative difference: max {max(ds):.2e}, median {median:.2e}")
    print(f"  ({capped} states past 36,500 days left out: fsrs-rs-python caps stability there)")
    print(f"  difficulty, absolute difference: max {max(dd):.2e}")
    print(f"  recall 30 days after the last review, absolute difference: max {max(dr):.2e}")
    print(f"  fsrs-rs-python step by step vs memory_state_batch: max {max(db):.2e}")
    identical = sum(1 for x in ds if x == 0) / len(ds)
    print(f"  bit-identical stabilities: {identical:.1%} (fsrs-rs-python computes in float32)\n")

    py_all = cpu(lambda: [py_replay(scheduler, h) for h in data])
    rs_all = cpu(lambda: [rs_replay(model, h) for h in data])
    items = [rs.FSRSItem([rs.FSRSReview(r, d) for d, r in h]) for h in data]
    rs_batch = cpu(lambda: model.memory_state_batch(items))
    card = fsrs.Card(card_id=1, due=START)
    card, _ = scheduler.review_card(card, fsrs.Rating.Good, review_datetime=START)
    state = model.next_states(None, 0.9, 0).good.memory
    n = 20_000
    py_one = cpu(
        lambda: [
            scheduler.review_card(card, fsrs.Rating.Good, review_datetime=START + 5 * DAY)
            for _ in range(n)
        ]
    )
    rs_one = cpu(lambda: [model.next_states(state, 0.9, 5).good for _ in range(n)])
    print("CPU time (best of 3):")
    print(f"  {'':44s} {'fsrs':>10s} {'fsrs-rs-python':>15s}")
    label = f"replay every history ({reviews} reviews)"
    print(f"  {label:44s} {py_all * 1000:8.1f}ms {rs_all * 1000:13.1f}ms"
          f"  (batch: {rs_batch * 1000:.1f}ms)")  # fmt: skip
    print(f"  {'one review update':44s} {py_one / n * 1e6:8.1f}µs {rs_one / n * 1e6:13.1f}µs\n")

    if args.no_fit:
        return
    logs, fsrs_items, card_ids = [], [], []
    for card_id, history in enumerate(data, start=1):
        at = START + timedelta(minutes=card_id)
        for days, rating in history:
            at += days * DAY
            logs.append(
                fsrs.ReviewLog(
                    card_id=card_id,
                    rating=fsrs.Rating(rating),
                    review_datetime=at,
                    review_duration=None,
                )  # fmt: skip
            )
        # fsrs-rs-python learns from every prefix of a history that ends in a long-term review
        for end in range(2, len(history) + 1):
            if history[end - 1][0] > 0:
                fsrs_items.append(rs.FSRSItem([rs.FSRSReview(r, d) for d, r in history[:end]]))
                card_ids.append(card_id)
    print("Fitting parameters to all the reviews:")
    if hasattr(fsrs.Optimizer, "compute_optimal_parameters"):
        started, wall = time.process_time(), time.perf_counter()
        py_fit = fsrs.Optimizer(logs).compute_optimal_parameters()
        py_fit_cpu, py_wall = time.process_time() - started, time.perf_counter() - wall
        print(f"  fsrs (torch, pandas, tqdm):      {py_fit_cpu:7.2f}s CPU ({py_wall:.2f}s wall)")
    else:
        py_fit = None
        print("  fsrs: the optimizer extra (torch, pandas, tqdm) is not installed")
    started, wall = time.process_time(), time.perf_counter()
    rs_fit = model.compute_parameters(fsrs_items)
    rs_fit_cpu, rs_wall = time.process_time() - started, time.perf_counter() - wall
    print(f"  fsrs-rs-python (nothing more):   {rs_fit_cpu:7.2f}s CPU ({rs_wall:.2f}s wall)")
    for name, params in (("defaults", list(rs.DEFAULT_PARAMETERS)), ("fsrs", py_fit),
                         ("fsrs-rs-python", rs_fit)):  # fmt: skip
        if params is not None:
            evaluation = rs.FSRS(list(params)).evaluate(fsrs_items)
            print(f"  log loss on these reviews with the {name + ' parameters:':28s} "
                  f"{evaluation.log_loss:.4f} (RMSE bins {evaluation.rmse_bins:.4f})")  # fmt: skip


if __name__ == "__main__":
    main()
