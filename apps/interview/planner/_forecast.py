"""FSRS-6's memory update and forgetting curve on numpy arrays: the expected recall on the
interview day of many items at once, each with the days it would be reviewed. The same formulas
as fsrs-rs-python's (tests/interview/test_planner.py checks them against it), in float64.

A planned review's outcome is not known in advance, so each one branches: recalled (rated Good)
with the predicted recall at that moment, forgotten (Again) with the rest; the expectation is
taken over every branch (2 ** reviews of them). An item never seen fails its first sight (it
is rated Again: the learner cannot know it yet).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

# Weights are FSRS-6's 21 parameters (a sequence or an array); the rest are float64 arrays.
Weights = Sequence[float] | npt.NDArray[np.float64]
Array = npt.NDArray[np.float64]

S_MIN, S_MAX = 0.001, 36500.0
AGAIN, GOOD = 1, 3


def _init_difficulty(w: Weights, rating: int) -> float:
    return float(w[4] - np.exp(w[5] * (rating - 1)) + 1)


def _next_difficulty(w: Weights, d: Array, rating: int) -> Array:
    delta = -w[6] * (rating - 3)
    d = d + delta * (10 - d) / 9
    d = w[7] * _init_difficulty(w, 4) + (1 - w[7]) * d
    return np.clip(d, 1.0, 10.0)


def _recalled(w: Weights, s: Array, d: Array, r: Array) -> Array:
    grown = s * (1 + np.exp(w[8]) * (11 - d) * s ** -w[9] * (np.exp((1 - r) * w[10]) - 1))
    return np.asarray(np.clip(grown, S_MIN, S_MAX), dtype=np.float64)


def _forgotten(w: Weights, s: Array, d: Array, r: Array) -> Array:
    long_term = w[11] * d ** -w[12] * ((s + 1) ** w[13] - 1) * np.exp((1 - r) * w[14])
    return np.asarray(
        np.clip(np.minimum(long_term, s / np.exp(w[17] * w[18])), S_MIN, S_MAX), dtype=np.float64
    )


def _same_day(w: Weights, s: Array, rating: int) -> Array:
    increase = np.exp(w[17] * (rating - 3 + w[18])) * s ** -w[19]
    if rating >= 2:
        increase = np.maximum(increase, 1.0)
    return np.asarray(np.clip(s * increase, S_MIN, S_MAX), dtype=np.float64)


def recall(w: Weights, elapsed: Array, s: Array) -> Array:
    """Retrievability after `elapsed` whole days (0 or more) at stability `s`."""
    decay = w[20]
    factor = 0.9 ** (-1 / decay) - 1
    return np.asarray((1 + factor * np.maximum(elapsed, 0) / s) ** -decay, dtype=np.float64)


def review(w: Weights, s: Array, d: Array, elapsed: Array, rating: int) -> tuple[Array, Array]:
    """Stability and difficulty after one review with `rating` `elapsed` days after the last."""
    r = recall(w, elapsed, s)
    later = _forgotten(w, s, d, r) if rating == AGAIN else _recalled(w, s, d, r)
    s_next = np.where(elapsed > 0, later, _same_day(w, s, rating))
    return s_next, _next_difficulty(w, d, rating)


def first_sight(w: Weights) -> tuple[float, float]:
    """An item never seen: Again at first sight."""
    return float(np.clip(w[0], S_MIN, S_MAX)), float(np.clip(_init_difficulty(w, AGAIN), 1, 10))


def expected_recall(
    w: Weights,
    s0: Array,
    d0: Array,
    last0: Array,
    seen: npt.NDArray[np.bool_],
    days: Array,
    interview: int,
) -> Array:
    """Expected recall on day `interview` of each lane: an item with memory (s0, d0, last
    reviewed on day last0) when `seen`, else never seen, reviewed on the days of its row of
    `days` (sorted, padded with +inf). Days are whole days from today (0); last0 may be negative."""
    w = np.asarray(w, dtype=np.float64)
    lanes, steps = days.shape
    s_new, d_new = first_sight(w)
    s = np.where(seen, s0, s_new)[:, None]
    d = np.where(seen, d0, d_new)[:, None]
    last = np.where(seen, last0, 0).astype(np.float64)[:, None]
    weight = np.where(seen, 1.0, 0.0)[:, None]  # an item never seen and never reviewed: 0
    for k in range(steps):
        day = days[:, k][:, None]
        active = np.isfinite(day)
        if not active.any():
            break
        # an item's first sight is its first review (the days are sorted): no branching
        fresh = active & ~seen[:, None] if k == 0 else np.zeros_like(active)
        if fresh.any():
            s = np.where(fresh, s_new, s)
            d = np.where(fresh, d_new, d)
            last = np.where(fresh, day, last)
            weight = np.where(fresh, 1.0, weight)
        reviewing = active & ~fresh
        elapsed = np.where(reviewing, day - last, 0.0)
        p = np.where(reviewing, recall(w, elapsed, s), 1.0)
        s_good, d_good = review(w, s, d, elapsed, GOOD)
        s_again, d_again = review(w, s, d, elapsed, AGAIN)
        s = np.concatenate([np.where(reviewing, s_good, s), np.where(reviewing, s_again, s)], 1)
        d = np.concatenate([np.where(reviewing, d_good, d), np.where(reviewing, d_again, d)], 1)
        new_last = np.where(reviewing, day, last)
        last = np.concatenate([new_last, new_last], 1)
        weight = np.concatenate([weight * p, weight * np.where(reviewing, 1 - p, 0.0)], 1)
    return np.asarray((weight * recall(w, interview - last, s)).sum(axis=1), dtype=np.float64)
