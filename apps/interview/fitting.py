"""The learner's own memory parameters: the worker fits them (`memory_fit_run`, on every review
for the planner and on the reviews before the held-out split for calibration), and the stats page
scores the model on held-out reviews it never saw (`calibration`). Scoring replays every review,
so for a history over CALIBRATION_INLINE_MAX reviews the worker stores the score
(`MemoryFit.calibration`, after each fit and in `calibration_refresh_run`) and the page reads it
(`stats_calibration`). The tasks in `apps.interview.tasks` call these, and asking for them
(`tasks.memory_fit_enqueue`, `tasks.calibration_refresh_enqueue`) lives there too, so imports go
one way: tasks -> fitting.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta

from django.db.models import Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.accounts.models import Profile, profile_for
from apps.interview.models import StudyPlan
from apps.study import memory, services
from apps.study.memory import MemoryModel, Review
from apps.study.models import MemoryFit, ReviewLog

CALIBRATION_MIN_REVIEWS = 50  # scored reviews before the stats page shows calibration
REFIT_GROWTH = 1.2  # refit once the learner has 20% more reviews than the last fit used
# Up to this many reviews the stats page scores the model itself, on every view (it costs about
# 100 ms there: bench/README-stats-page.md); over it, it shows the worker's stored score.
CALIBRATION_INLINE_MAX = 4_000
# The stored score is refreshed once the reviews moved by this share from those it was made of.
CALIBRATION_STALE = 0.05
# A page that asked for a refresh asks again after this if the worker has not answered.
CALIBRATION_ASK_AGAIN = timedelta(minutes=10)
# Part of the stored score's key: a change to how calibration scores makes every one stale.
CALIBRATION_VERSION = 1


def reviews_of(user) -> list[tuple[Review, str]]:
    """The learner's (a user or its id) reviews, not undone, in time order, each with its kind."""
    rows = (
        ReviewLog.objects.filter(user=user, undone_at=None)
        .order_by("reviewed_at", "id")
        .values_list("card_id", "grade", "reviewed_at", "duration_ms", "kind")
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


def _score(reviews: list[Review], row: dict | None, zone) -> tuple[memory.Calibration | None, str]:
    """The calibration of `reviews` with the parameters and split `row` (FIT_FIELDS of the fit
    row, or None) chooses, or None under CALIBRATION_MIN_REVIEWS scored; and the key of what was
    scored (`_scored_key`)."""
    parameters, split, why = _calibration_choice(row)
    key = _scored_key(row, zone)
    result = memory.calibration(reviews, MemoryModel(parameters), split=split, zone=zone)
    if result is None or result.count < CALIBRATION_MIN_REVIEWS:
        return None, key
    if parameters is None:
        return replace(result, model=memory.DEFAULTS, defaults_reason=why), key
    return replace(result, model=memory.HOLDOUT), key


def _scored_key(row: dict | None, zone) -> str:
    """What a calibration scored, short: the parameters and split `row` chooses, why the
    defaults, the learner's time zone (local days decide the intervals) and CALIBRATION_VERSION.
    A stored score with another key is stale whatever its count of reviews."""
    parameters, split, why = _calibration_choice(row)
    what = [CALIBRATION_VERSION, parameters, split and split.isoformat(), why, str(zone)]
    return hashlib.sha256(json.dumps(what).encode()).hexdigest()[:32]


def _calibration_json(cal: memory.Calibration | None) -> dict | None:
    """The stored form (what the stats page shows: no per-review pairs)."""
    if cal is None:
        return None
    out = asdict(replace(cal, test_pairs=()))
    del out["test_pairs"]
    for moment in ("test_start", "split"):
        out[moment] = out[moment] and out[moment].isoformat()
    return out


def _calibration_from_json(data: dict | None) -> memory.Calibration | None:
    if data is None:
        return None
    moments = {k: data[k] and datetime.fromisoformat(data[k]) for k in ("test_start", "split")}
    bins = [memory.CalibrationBin(**b) for b in data["bins"]]
    return memory.Calibration(**{**data, **moments, "bins": bins})


def calibration_and_fit_due(user) -> tuple[memory.Calibration | None, bool]:
    """`calibration` computed now, and whether a (re)fit is due (`memory_fit_due`), from the
    same two queries: the fit row and the reviews."""
    row = MemoryFit.objects.filter(user=user).values(*FIT_FIELDS).first()
    reviews = [r for r, _ in reviews_of(user)]
    return _score(reviews, row, profile_for(user).zone)[0], _due(row, len(reviews))


def _due(row: dict | None, count: int) -> bool:
    return memory.optimizer_available() and count >= memory.FIT_MIN_REVIEWS and _fit_due(row, count)


@dataclass(frozen=True)
class StatsCalibration:
    """What the stats page shows of calibration. `stored_at` None: computed for this view;
    else the worker's, as of then, from `stored_reviews` reviews. `pending`: a history too big
    to score inline with none stored yet (the worker is asked for it). `fit_due` and `refresh`:
    what to ask the worker for (a refit stores a fresh score itself, so never both)."""

    calibration: memory.Calibration | None
    reviews: int  # the learner's reviews now
    fit_due: bool = False
    refresh: bool = False
    pending: bool = False
    stored_at: datetime | None = None
    stored_reviews: int = 0


def stats_calibration(user) -> StatsCalibration:
    """The stats page's calibration: computed now for a history of up to CALIBRATION_INLINE_MAX
    reviews (three queries: the fit row, the count, the reviews); over it, the worker's stored
    one (two: the fit row, the count), `refresh` when it is stale (`MemoryFit.calibration_stale`)
    or missing."""
    fit = MemoryFit.objects.filter(user=user).first()
    row = None if fit is None else {f: getattr(fit, f) for f in FIT_FIELDS}
    count = ReviewLog.objects.filter(user=user, undone_at=None).count()
    due = _due(row, count)
    zone = profile_for(user).zone
    if count <= CALIBRATION_INLINE_MAX:
        reviews = [r for r, _ in reviews_of(user)]
        return StatsCalibration(_score(reviews, row, zone)[0], count, fit_due=due)
    if fit is None:  # a fit is due with this many reviews: it makes the row and stores a score
        return StatsCalibration(None, count, fit_due=True, pending=True)
    if fit.calibration_reviews is None:
        return StatsCalibration(None, count, fit_due=due, refresh=not due, pending=True)
    stale = fit.calibration_stale(
        reviews=count, key=_scored_key(row, zone), tolerance=CALIBRATION_STALE
    )
    return StatsCalibration(
        _calibration_from_json(fit.calibration), count, fit_due=due, refresh=stale and not due,
        stored_at=fit.calibrated_at, stored_reviews=fit.calibration_reviews,
    )  # fmt: skip


def calibration_ask(user) -> bool:
    """Claim the asking for a fresh calibration of this learner: True for the first page to ask
    (one UPDATE), False while an ask younger than CALIBRATION_ASK_AGAIN is waiting for the
    worker (or the learner has no fit row: then a fit is due, and it stores one)."""
    now = timezone.now()
    waiting = Q(calibration_asked_at=None) | Q(calibration_asked_at__lt=now - CALIBRATION_ASK_AGAIN)
    return MemoryFit.objects.filter(waiting, user=user).update(calibration_asked_at=now) == 1


def calibration_ask_failed(user_id: int) -> None:
    """The broker did not take the ask: the next page asks again."""
    MemoryFit.objects.filter(user_id=user_id).update(calibration_asked_at=None)


def calibration(user) -> memory.Calibration | None:
    """The memory model's predictions against this learner's outcomes on held-out reviews, or
    None until CALIBRATION_MIN_REVIEWS reviews can be scored. The model never saw the reviews it
    is scored on: FSRS's defaults, or the learner's parameters fitted by the worker on the
    reviews before the split only (`MemoryFit.holdout_parameters`), scored from that split on;
    `model` and `defaults_reason` say which and why. Computed now; two queries."""
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


def _claim(user_id: int) -> bool:
    """Take the learner's fit row for one worker (a fit or a calibration refresh): two never
    work on one learner at once; a claim older than an hour is taken over."""
    now = timezone.now()
    MemoryFit.objects.get_or_create(user_id=user_id)
    stale = now - timedelta(hours=1)
    claimed = (
        MemoryFit.objects.filter(user_id=user_id)
        .filter(Q(claimed_at=None) | Q(claimed_at__lt=stale))
        .update(claimed_at=now)
    )
    return claimed == 1


def _calibration_store(user_id: int, reviews: list[Review], zone) -> None:
    """Score `reviews` with what the fit row now chooses and store it with its count and key."""
    rows = MemoryFit.objects.filter(user_id=user_id)
    cal, key = _score(reviews, rows.values(*FIT_FIELDS).get(), zone)
    rows.update(
        calibration=_calibration_json(cal), calibration_reviews=len(reviews),
        calibrated_at=timezone.now(), calibration_key=key, calibration_asked_at=None,
    )  # fmt: skip


def memory_fit_run(*, user_id: int) -> bool:
    """Fit and store a learner's parameters (the worker's side): the full fit on every review
    (the planner's), then the held-out fit on the reviews before `memory.holdout_split` only
    (the stats page's calibration), stored with that split, and the calibration they give
    (`MemoryFit.calibration`). Claimed first (`_claim`). Idempotent: a rerun refits and
    replaces, or does nothing while the last fit is not due for a refit (a page asks on every
    view until the worker has run). True when the full fit moved off the defaults."""
    now = timezone.now()
    if not _claim(user_id):
        return False
    try:
        reviews = [r for r, _ in reviews_of(user_id)]
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
            _calibration_store(user_id, reviews, zone)
            return False
        # The stored memories were worked out with the old parameters: again with the new ones,
        # and the day's interview plan with them.
        services.card_memories_fill(user_id=user_id)
        StudyPlan.objects.filter(user_id=user_id).delete()
        training = [r for r in reviews if r.at < split]
        holdout = memory.fit_parameters(training, zone)
        row.update(holdout_parameters=list(holdout or ()), holdout_split_at=split)
        _calibration_store(user_id, reviews, zone)
        return True
    finally:
        MemoryFit.objects.filter(user_id=user_id).update(claimed_at=None)


def calibration_refresh_run(*, user_id: int) -> bool:
    """Score the learner's reviews again and store it (the worker's side of the stats page's
    ask), when the stored score is stale (`MemoryFit.calibration_stale`). Claimed as a fit is
    (`_claim`: while a fit runs, which stores a score itself, this does nothing). Idempotent:
    a second ask finds the score fresh and leaves it. True when it stored one."""
    if not _claim(user_id):
        return False
    try:
        reviews = [r for r, _ in reviews_of(user_id)]
        fit = MemoryFit.objects.get(user_id=user_id)
        zone = Profile.objects.get_or_create(user_id=user_id)[0].zone
        key = _scored_key({f: getattr(fit, f) for f in FIT_FIELDS}, zone)
        if not fit.calibration_stale(reviews=len(reviews), key=key, tolerance=CALIBRATION_STALE):
            MemoryFit.objects.filter(user_id=user_id).update(calibration_asked_at=None)
            return False
        _calibration_store(user_id, reviews, zone)
        return True
    finally:
        MemoryFit.objects.filter(user_id=user_id).update(claimed_at=None)
