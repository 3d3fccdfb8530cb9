"""The learner's own memory parameters: the worker fits them (`memory_fit_run`, on every review
for the planner and on the reviews before the held-out split for calibration), and the stats page
scores the model on held-out reviews it never saw (`calibration`). The task in
`apps.study.tasks` calls `memory_fit_run`, and asking for a fit (`tasks.memory_fit_enqueue`)
lives there too, so imports go one way: tasks -> fitting.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from django.db.models import Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.accounts.models import Profile, profile_for
from apps.study import memory, services
from apps.study.memory import MemoryModel, Review
from apps.study.models import MemoryFit, ReviewLog, StudyPlan

CALIBRATION_MIN_REVIEWS = 50  # scored reviews before the stats page shows calibration
REFIT_GROWTH = 1.2  # refit once the learner has 20% more reviews than the last fit used


def reviews_of(user) -> list[tuple[Review, str]]:
    rows = ReviewLog.objects.filter(user=user, undone_at=None).values_list(
        "card_id", "grade", "reviewed_at", "duration_ms", "kind"
    )
    return [(Review(card_id=c, grade=g, at=at, duration_ms=d), kind) for c, g, at, d, kind in rows]


# Why calibration scored FSRS's defaults (memory.Calibration.defaults_reason).
NOT_FITTED = "not fitted"  # no parameters of the learner's own (yet)
FITTED_ON_ALL = "fitted on all"  # an old fit, made from every review: a refit is due
TOO_FEW = "too few"  # the reviews before the split are too few for the optimizer


def _calibration_choice(row: dict | None) -> tuple[tuple[float, ...] | None, datetime | None, str]:
    """Which parameters calibration scores, from when, and why the defaults: (the learner's
    held-out parameters or None for FSRS's defaults, the split of their fit or None for
    `memory.holdout_split` of today's reviews, one of the reasons above or ""). Never the full
    fit: it has seen the reviews it would be scored on."""
    if row is None or not row["parameters"]:
        return None, None, NOT_FITTED
    if row["holdout_split_at"] is None:
        return None, None, FITTED_ON_ALL
    if not row["holdout_parameters"]:
        return None, row["holdout_split_at"], TOO_FEW
    return tuple(row["holdout_parameters"]), row["holdout_split_at"], ""


def _fit_due(row: dict | None, count: int) -> bool:
    """With `count` reviews, whether the worker should (re)fit (the optimizer and the
    FIT_MIN_REVIEWS floor aside): no fit yet, an old fit without held-out parameters, or 20%
    more reviews than the last fit (or attempt at one) used."""
    if row is None:
        return True
    if row["parameters"] and row["holdout_split_at"] is None:
        return True
    return count >= row["reviews"] * REFIT_GROWTH


FIT_FIELDS = ("parameters", "holdout_parameters", "holdout_split_at", "reviews")


def calibration_and_fit_due(user) -> tuple[memory.Calibration | None, bool]:
    """`calibration`, and whether a (re)fit is due (`memory_fit_due`), from the same two
    queries: the fit row and the reviews."""
    row = MemoryFit.objects.filter(user=user).values(*FIT_FIELDS).first()
    reviews = [r for r, _ in reviews_of(user)]
    due = (
        memory.optimizer_available()
        and len(reviews) >= memory.FIT_MIN_REVIEWS
        and _fit_due(row, len(reviews))
    )
    parameters, split, why = _calibration_choice(row)
    zone = profile_for(user).zone
    result = memory.calibration(reviews, MemoryModel(parameters), split=split, zone=zone)
    if result is None or result.count < CALIBRATION_MIN_REVIEWS:
        return None, due
    if parameters is None:
        return replace(result, model=memory.DEFAULTS, defaults_reason=why), due
    return replace(result, model=memory.HOLDOUT), due


def calibration(user) -> memory.Calibration | None:
    """The memory model's predictions against this learner's outcomes on held-out reviews, or
    None until CALIBRATION_MIN_REVIEWS reviews can be scored. The model never saw the reviews it
    is scored on: FSRS's defaults, or the learner's parameters fitted by the worker on the
    reviews before the split only (`MemoryFit.holdout_parameters`), scored from that split on;
    `model` and `defaults_reason` say which and why. Two queries."""
    return calibration_and_fit_due(user)[0]


def memory_fit_due(user) -> bool:
    """Whether the worker should (re)fit this learner's parameters: enough reviews, the optimizer
    installed, and no fit yet, an old fit without held-out parameters, or 20% more reviews since
    the last one. No query without the optimizer, one under FIT_MIN_REVIEWS, else two."""
    if not memory.optimizer_available():
        return False
    count = ReviewLog.objects.filter(user=user, undone_at=None).count()
    if count < memory.FIT_MIN_REVIEWS:
        return False
    return _fit_due(MemoryFit.objects.filter(user=user).values(*FIT_FIELDS).first(), count)


def memory_fit_run(*, user_id: int) -> bool:
    """Fit and store a learner's parameters (the worker's side): the full fit on every review
    (the planner's), then the held-out fit on the reviews before `memory.holdout_split` only
    (the stats page's calibration), stored with that split. Claimed first, so two workers
    never fit the same learner at once; a claim older than an hour is taken over. Idempotent: a
    rerun refits and replaces, or does nothing while the last fit is not due for a refit (a
    page asks on every view until the worker has run). True when the full fit moved off the
    defaults."""
    now = timezone.now()
    MemoryFit.objects.get_or_create(user_id=user_id)
    stale = now - timedelta(hours=1)
    claimed = (
        MemoryFit.objects.filter(user_id=user_id)
        .filter(Q(claimed_at=None) | Q(claimed_at__lt=stale))
        .update(claimed_at=now)
    )
    if claimed != 1:
        return False
    try:
        reviews = [
            Review(card_id=c, grade=g, at=at, duration_ms=d)
            for c, g, at, d in ReviewLog.objects.filter(user_id=user_id, undone_at=None)
            .order_by("reviewed_at")
            .values_list("card_id", "grade", "reviewed_at", "duration_ms")
        ]
        row = MemoryFit.objects.filter(user_id=user_id)
        if not _fit_due(row.values(*FIT_FIELDS).get(), len(reviews)):
            return False  # a duplicate of a fit done since it was asked for (pages ask again)
        # No review a day after the previous one: none will be scored before the next one,
        # so every review so far may train the held-out fit.
        split = memory.holdout_split(reviews) or now
        zone = Profile.objects.get_or_create(user_id=user_id)[0].zone
        parameters = memory.fit_parameters(reviews, zone)
        # The full fit and the attempt are stored first, so a time limit in the second fit
        # keeps them and memory_fit_due waits for 20% more reviews instead of asking again on
        # every page. A first fit also gets its split with no held-out parameters (the stats
        # page then scores the defaults) until the second fit replaces both.
        first: dict[str, object] = {"reviews": len(reviews)}
        if parameters is not None:
            first |= {"parameters": list(parameters), "fitted_at": timezone.now()}
        row.update(**first, holdout_split_at=Coalesce("holdout_split_at", Value(split)))
        if parameters is None:
            row.update(holdout_parameters=[], holdout_split_at=split)
            return False
        # The stored memories were worked out with the old parameters: again with the new ones,
        # and the day's interview plan with them.
        services.card_memories_fill(user_id=user_id)
        StudyPlan.objects.filter(user_id=user_id).delete()
        training = [r for r in reviews if r.at < split]
        holdout = memory.fit_parameters(training, zone)
        row.update(holdout_parameters=list(holdout or ()), holdout_split_at=split)
        return True
    finally:
        MemoryFit.objects.filter(user_id=user_id).update(claimed_at=None)
