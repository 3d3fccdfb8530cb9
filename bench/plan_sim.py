"""Simulated learners study a 200-card deck to an interview date: plain SM-2 against SM-2 plus the
interview plan, on the same learners (same seeds). See bench/README-plan.md.

    .venv/bin/python bench/plan_sim.py                 # the full table (a few minutes)
    .venv/bin/python bench/plan_sim.py --learners 4    # quicker, noisier

Each learner's memory follows a known model the planner does not know: FSRS with the learner's
parameters perturbed from the defaults and a per-card difficulty, or an exponential forgetting
curve with per-card difficulty. The planner predicts with FSRS's default parameters from the
reviews it has seen, as the app does. Pure Python: no Django, no database.
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import statistics
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fsrs
from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from apps.study import scheduler  # noqa: E402
from apps.study.memory import MemoryModel, Review, calibration, fit_parameters  # noqa: E402
from apps.study.plan import PlanCard, plan_build  # noqa: E402

CARDS, SECTIONS, NEW_PER_DAY = 200, 8, 20
# Whether the plan's new cards pass SM-2's daily new-card limit. The main queue as merged
# (apps.study.queue) shows only planned cards already seen and not due: False.
NEW_THROUGH = False
START = datetime(2026, 1, 1, tzinfo=UTC)
NOON = timedelta(hours=12)
PLANNER = MemoryModel()


def moment(day: int, minute: int = 0) -> datetime:
    return START + timedelta(days=day) + NOON + timedelta(minutes=minute)


class FsrsTruth:
    """FSRS with this learner's parameters (the defaults times log-normal noise) and a per-card
    factor on elapsed time (a hard card forgets faster)."""

    name = "fsrs-perturbed"

    def __init__(self, rng: random.Random):
        params = []
        for p, low, high in zip(
            fsrs.Scheduler().parameters,
            LOWER_BOUNDS_PARAMETERS,
            UPPER_BOUNDS_PARAMETERS,
            strict=True,
        ):
            params.append(min(high, max(low, p * math.exp(rng.gauss(0, 0.3)))))
        self.model = fsrs.Scheduler(parameters=params, enable_fuzzing=False)
        self.factor = [math.exp(rng.gauss(0, 0.5)) for _ in range(CARDS)]
        self.cards: dict[int, fsrs.Card] = {}

    def recall(self, card: int, at: datetime) -> float:
        memory = self.cards.get(card)
        if memory is None:
            return 0.0
        days = math.floor((at - memory.last_review) / timedelta(days=1) * self.factor[card])
        return (1 + self.model._FACTOR * max(0, days) / memory.stability) ** self.model._DECAY

    def review(self, card: int, grade: int, at: datetime) -> None:
        rating = fsrs.Rating.Again if grade < 3 else fsrs.Rating(grade - 1)
        memory = self.cards.get(card) or fsrs.Card(card_id=card + 1, due=at)
        self.cards[card], _ = self.model.review_card(memory, rating, review_datetime=at)


class ExponentialTruth:
    """R = exp(-t / S). First sight sets S from the learner's and the card's difficulty; a
    success multiplies S by more the lower R was (spacing); a lapse halves it."""

    name = "exponential"

    def __init__(self, rng: random.Random):
        self.learner = math.exp(rng.gauss(0, 0.3))
        self.difficulty = [math.exp(rng.gauss(0, 0.5)) for _ in range(CARDS)]
        self.stability: dict[int, float] = {}
        self.last: dict[int, datetime] = {}

    def recall(self, card: int, at: datetime) -> float:
        if card not in self.stability:
            return 0.0
        days = (at - self.last[card]) / timedelta(days=1)
        return math.exp(-max(0.0, days) / self.stability[card])

    def review(self, card: int, grade: int, at: datetime) -> None:
        d = self.difficulty[card]
        if card not in self.stability:
            self.stability[card] = 1.5 * self.learner / d
        elif (at - self.last[card]) < timedelta(hours=12):
            self.stability[card] *= 1.1  # same-day repetition: little lasting effect
        elif grade >= 3:
            r = self.recall(card, at)
            self.stability[card] *= 1.5 + 4.0 * (1 - r) / d
        else:
            self.stability[card] = max(0.2, self.stability[card] * 0.5)
        self.last[card] = at


@dataclass
class Learner:
    truth: FsrsTruth | ExponentialTruth
    rng: random.Random
    sm2: dict[int, scheduler.CardSchedule] = field(default_factory=dict)
    seen: dict[int, fsrs.Card] = field(default_factory=dict)  # the planner's view of memory
    reviews: int = 0
    log: list[Review] = field(default_factory=list)

    def grade(self, card: int, at: datetime) -> int:
        r = self.truth.recall(card, at)
        if self.rng.random() >= r:
            return 1
        return 5 if r > 0.9 else 4 if r > 0.6 else 3

    def study(self, card: int, at: datetime, *, plan_mode: bool = False) -> None:
        """One review: a due (or new) card is an SM-2 review; a not-due card in plan mode leaves
        SM-2's schedule alone, as the app's plan mode does."""
        grade = self.grade(card, at)
        self.truth.review(card, grade, at)
        self.seen[card] = PLANNER.reviewed(self.seen.get(card), grade, at, card_id=card + 1)
        self.log.append(Review(card + 1, grade, at))
        state = self.sm2.get(card) or scheduler.new_state(at)
        if scheduler.is_due(state, at):
            self.sm2[card] = scheduler.review(state, grade, at)
        elif not plan_mode:
            raise AssertionError("plain SM-2 reviewed a card that is not due")
        self.reviews += 1


def sm2_day(learner: Learner, day: int, budget: int, new_limit: int = NEW_PER_DAY) -> int:
    """Plain SM-2's day: due cards (most overdue first), then new cards, then same-day re-drills,
    within `budget` reviews. Returns the reviews done."""
    at, end = moment(day), scheduler.day_end(moment(day), UTC)
    due = sorted((s.due_at, c) for c, s in learner.sm2.items() if s.due_at < end)
    new = [c for c in range(CARDS) if c not in learner.sm2][:new_limit]
    work = [c for _, c in due] + new
    done = 0
    for i, card in enumerate(work[:budget]):
        learner.study(card, at + timedelta(minutes=i))
        done += 1
    return done + redrills(learner, day, budget - done)


def redrills(learner: Learner, day: int, left: int) -> int:
    end, done = scheduler.day_end(moment(day), UTC), 0
    for round_ in range(1, 4):
        again = [c for c, s in learner.sm2.items() if s.due_at < end and s.last_reviewed_at
                 and s.last_reviewed_at >= moment(day) - NOON]  # fmt: skip
        for card in again:
            if done >= left:
                return done
            learner.study(card, moment(day, 60 * round_ + done))
            done += 1
    return done


def plan_day(
    learner: Learner, day: int, interview: int, budget: int, target: float, defer: str | None
) -> int:
    """SM-2 plus the plan, as the product's main queue shows it: SM-2's due cards (less those
    the plan lets wait, `deferred_today`, unless `defer` is None), then SM-2's new cards (the
    same daily limit as plain SM-2), then the plan's cards "for your interview"
    (`planned_today`; as the queue shows them, only cards already seen that SM-2 has not made
    due, unless NEW_THROUGH), then same-day re-drills; the learner stops at the day's budget."""
    cards = [
        PlanCard(c, f"s{c % SECTIONS}", learner.seen.get(c), learner.sm2.get(c))
        for c in range(CARDS)
    ]
    plan = plan_build(
        cards=cards,
        model=PLANNER,
        today_start=START + timedelta(days=day),
        days_until=interview - day,
        per_day=budget,
        target=target,
        defer=defer,
    )
    at, end = moment(day), scheduler.day_end(moment(day), UTC)
    waiting = set(plan.deferred)
    due = [c for _, c in sorted((s.due_at, c) for c, s in learner.sm2.items() if s.due_at < end)]
    new = [c for c in range(CARDS) if c not in learner.sm2][:NEW_PER_DAY]
    extra = plan.days[0].cards
    if not NEW_THROUGH:  # the queue as merged: only seen cards SM-2 has not made due
        extra = [c for c in extra if c in learner.sm2 and learner.sm2[c].due_at >= end]
    work = list(dict.fromkeys([c for c in due if c not in waiting] + new + extra))
    done = 0
    for i, card in enumerate(work[:budget]):
        learner.study(card, at + timedelta(minutes=i), plan_mode=True)
        done += 1
    return done + redrills(learner, day, budget - done)


def readiness(learner: Learner, interview: int) -> float:
    at = moment(interview)
    return sum(learner.truth.recall(c, at) for c in range(CARDS)) / CARDS


VARIANTS = ("sm2", "plan", "plan-no-defer", "plan-matched", "sm2-eager")


def run(truth_cls, seed, warmup, horizon, budget, target, defer="card"):
    """One learner (one seed): the same warm-up, then a copy per variant to the interview."""
    rng = random.Random(seed)
    learner = Learner(truth=truth_cls(rng), rng=rng)
    for day in range(warmup):
        sm2_day(learner, day, budget)
    interview = warmup + horizon
    results = {}
    plain = copy.deepcopy(learner)
    plain.reviews = 0
    for day in range(warmup, interview):
        sm2_day(plain, day, budget)
    results["sm2"] = (readiness(plain, interview), plain.reviews)
    eager = copy.deepcopy(learner)  # SM-2 taking as many new cards a day as the budget allows
    eager.reviews = 0
    for day in range(warmup, interview):
        sm2_day(eager, day, budget, new_limit=budget)
    results["sm2-eager"] = (readiness(eager, interview), eager.reviews)
    matched = max(1, round(plain.reviews / horizon))
    for name, per_day, mode in (
        ("plan", budget, defer),
        ("plan-no-defer", budget, None),
        ("plan-matched", matched, defer),
    ):
        planned = copy.deepcopy(learner)
        planned.reviews = 0
        for day in range(warmup, interview):
            plan_day(planned, day, interview, per_day, target, mode)
        results[name] = (readiness(planned, interview), planned.reviews)
    return results


def calibration_table(truth_cls, learners: int, budget: int, days: int) -> None:
    """FSRS predicting the simulated learners' own reviews: `days` of plain SM-2, the most
    recent 30% of the scored reviews held out (`apps.study.memory.calibration`, as the stats
    page), all learners pooled. Twice: with FSRS's default parameters (the planner's model until
    a fit), and with each learner's own parameters fitted (`memory.fit_parameters`, the worker's
    fit) on that learner's reviews before the held-out ones only."""
    pooled: dict[str, list[tuple[float, bool, float]]] = {"default": [], "fitted": []}
    fits = 0
    for seed in range(learners):
        log = run_sm2_only(truth_cls, seed, days, budget)
        params = fit_parameters([r for r in log if r.at < _held_out_start(log)])
        if params is None:  # too few Review-state reviews: both columns skip this learner
            continue
        fits += 1
        pooled["default"] += _scored(log, PLANNER)
        pooled["fitted"] += _scored(log, MemoryModel(params))
    print(f"\n{truth_cls.name}: {fits} of {learners} learners had enough reviews for a fit")
    for name, rows in pooled.items():
        if not rows:
            continue
        loss, constant = _loss(rows), _loss(rows, constant=True)
        print(f"\n{truth_cls.name}, {name} parameters: {len(rows)} held-out reviews, "
              f"log loss {loss:.3f} (constant prediction {constant:.3f})")  # fmt: skip
        print("| predicted | reviews | mean predicted | recalled | median days since last / S |")
        print("|---|---|---|---|---|")
        for low in (0.0, 0.2, 0.4, 0.6, 0.8):
            inside = [r for r in rows if low <= r[0] < low + 0.2 or (low == 0.8 and r[0] == 1)]
            if inside:
                print(f"| {low:.0%}-{low + 0.2:.0%} | {len(inside)} "
                      f"| {statistics.mean(r[0] for r in inside):.1%} "
                      f"| {statistics.mean(r[1] for r in inside):.1%} "
                      f"| {statistics.median(r[2] for r in inside):.1f} |")  # fmt: skip


def _held_out_start(log: list[Review]) -> datetime:
    """The moment the held-out share of `calibration` begins (its scored reviews' last 30%)."""
    return calibration(log, PLANNER, held_out=0.3).test_start


def _scored(log: list[Review], model: MemoryModel) -> list[tuple[float, bool, float]]:
    """(predicted, recalled, days since the last review / stability) of the held-out reviews."""
    return [(p, y, ratio) for p, y, ratio in calibration(log, model, held_out=0.3).test_pairs]


def _loss(rows, constant: bool = False) -> float:
    share = statistics.mean(r[1] for r in rows)
    total = 0.0
    for p, y, _ in rows:
        p = min(1 - 1e-4, max(1e-4, share if constant else p))
        total -= math.log(p) if y else math.log(1 - p)
    return total / len(rows)


def run_sm2_only(truth_cls, seed: int, days: int, budget: int) -> list[Review]:
    rng = random.Random(seed)
    learner = Learner(truth=truth_cls(rng), rng=rng)
    for day in range(days):
        sm2_day(learner, day, budget)
    return learner.log


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--learners", type=int, default=10)
    parser.add_argument("--budgets", default="40,70,100", help="reviews a day, comma-separated")
    parser.add_argument("--days", default="14,30", help="days to the interview")
    parser.add_argument("--warmups", default="0,20", help="days of plain SM-2 before the date")
    parser.add_argument("--truths", default="fsrs-perturbed,exponential")
    parser.add_argument(
        "--defer",
        default="card",
        choices=("card", "total"),
        help="which due cards wait: card = the product's (predicted at the target on the "
        "day); total = an experiment (also the least useful ones, down to the target overall)",
    )
    parser.add_argument("--target", type=float, default=0.9)
    parser.add_argument("--calibration", action="store_true", help="only the calibration tables")
    parser.add_argument("--calibration-days", type=int, default=60)
    parser.add_argument(
        "--plan-new",
        default="limit",
        choices=("limit", "through"),
        help="limit: the plan's new cards wait for SM-2's new-card limit, as the merged queue "
        "does; through: the queue shows them too",
    )
    args = parser.parse_args()
    global NEW_THROUGH
    NEW_THROUGH = args.plan_new == "through"
    if args.calibration:
        for truth_cls in (FsrsTruth, ExponentialTruth):
            calibration_table(truth_cls, args.learners, 40, args.calibration_days)
        return
    budgets = [int(b) for b in args.budgets.split(",")]
    truths = [t for t in (FsrsTruth, ExponentialTruth) if t.name in args.truths.split(",")]
    print(f"{args.learners} learners per row, 200 cards, target {args.target:.0%}; recall on the "
          "day: mean ± sd over learners; reviews: mean (same seeds in every column)\n")  # fmt: skip
    print(
        "| truth | budget/day | warm-up | days | SM-2 recall | reviews | plan recall | reviews "
        "| plan - SM-2 (min..max) | plan, no deferral | reviews | plan at SM-2's reviews "
        "| reviews | SM-2, new cards up to the budget | reviews |"
    )
    print("|" + "---|" * 15)
    for truth_cls, budget in [(t, b) for t in truths for b in budgets]:
        for warmup in [int(w) for w in args.warmups.split(",")]:
            for horizon in [int(h) for h in args.days.split(",")]:
                rows = [
                    run(truth_cls, seed, warmup, horizon, budget, args.target, args.defer)
                    for seed in range(args.learners)
                ]
                cells = []
                for name in VARIANTS:
                    recall = [100 * r[name][0] for r in rows]
                    sd = statistics.stdev(recall) if len(recall) > 1 else 0.0
                    cells.append(f"{statistics.mean(recall):.1f} ± {sd:.1f}%")
                    cells.append(f"{statistics.mean(r[name][1] for r in rows):.0f}")
                    if name == "plan":
                        gain = [100 * (r["plan"][0] - r["sm2"][0]) for r in rows]
                        cells.append(
                            f"{statistics.mean(gain):+.1f} ({min(gain):+.1f}..{max(gain):+.1f})"
                        )
                print(
                    f"| {truth_cls.name} | {budget} | {warmup} d | {horizon} | "
                    + " | ".join(cells)
                    + " |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
