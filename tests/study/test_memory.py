"""The memory model (pure): FSRS-6 through fsrs-rs-python, a card's memory updated one review
at a time on the learner's local days; fitting and calibration on review histories."""

import subprocess
import sys
from datetime import UTC, date, datetime, timedelta

import fsrs_rs_python as fsrs_rs
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.interview.planner import _forecast
from apps.study import memory
from apps.study.memory import Memory, MemoryModel, Review

T0 = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
MODEL = MemoryModel()
DAY0 = date(2026, 1, 1)

grades = st.integers(0, 5)
history = st.lists(st.tuples(grades, st.integers(0, 40)), min_size=1, max_size=12)


def replay(steps, model=MODEL) -> Memory:
    day, out = DAY0, None
    for grade, gap in steps:
        day += timedelta(days=gap)
        out = model.reviewed(out, grade, day)
    return out


def test_pure_cores_import_nothing_from_django():
    code = (
        "import sys, apps.study.memory, apps.interview.planner, apps.study.scheduler; "
        "sys.exit(any(m.startswith('django') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], env={"PATH": ""}).returncode == 0


def test_sm2_grades_map_to_fsrs_ratings():
    names = {g: memory.RATING_NAMES[memory.RATINGS[g]] for g in range(6)}
    assert names == {0: "Again", 1: "Again", 2: "Again", 3: "Hard", 4: "Good", 5: "Easy"}


def test_a_card_never_seen_is_not_recalled():
    assert MODEL.recall(None, DAY0) == 0.0


@given(history, st.integers(0, 400), st.integers(0, 400))
@settings(max_examples=60, deadline=None)
def test_recall_is_a_probability_that_falls_with_time(steps, a, b):
    card = replay(steps)
    early, late = sorted((a, b))
    r_early = MODEL.recall(card, card.day + timedelta(days=early))
    r_late = MODEL.recall(card, card.day + timedelta(days=late))
    assert 0.0 <= r_late <= r_early <= 1.0


def test_a_good_review_remembers_longer_than_a_lapse():
    first = MODEL.reviewed(None, 4, DAY0)
    good, again = (
        MODEL.reviewed(first, 4, DAY0 + timedelta(5)),
        MODEL.reviewed(first, 1, DAY0 + timedelta(5)),
    )
    later = DAY0 + timedelta(days=15)
    assert MODEL.recall(good, later) > MODEL.recall(again, later)


@given(history)
@settings(max_examples=60, deadline=None)
def test_one_review_at_a_time_is_the_rust_fsrs_over_the_whole_history(steps):
    """What is stored (a review at a time) is what Anki's FSRS computes from the history."""
    stored = replay(steps)
    items, gaps = [], [0, *[gap for _, gap in steps[1:]]]
    for (grade, _), gap in zip(steps, gaps, strict=True):
        items.append(fsrs_rs.FSRSReview(memory.RATINGS[grade], gap))
    whole = fsrs_rs.FSRS(list(memory.DEFAULT_PARAMETERS)).memory_state(fsrs_rs.FSRSItem(items))
    assert stored.stability == whole.stability and stored.difficulty == whole.difficulty


@given(history, st.integers(0, 60))
@settings(max_examples=80, deadline=None)
def test_the_planners_numpy_fsrs_agrees_with_the_rust_one(steps, later):
    """The planner's vectorised formulas (float64) against fsrs-rs-python (float32)."""
    w = np.array(memory.DEFAULT_PARAMETERS)
    card = replay(steps[:-1]) if len(steps) > 1 else None
    grade, gap = steps[-1]
    if card is None:
        return
    rating = memory.RATINGS[grade]
    rating = _forecast.AGAIN if rating == memory.AGAIN else _forecast.GOOD
    grade = 1 if rating == _forecast.AGAIN else 4
    rust = MODEL.reviewed(card, grade, card.day + timedelta(days=gap))
    s, d = _forecast.review(
        w, np.float64(card.stability), np.float64(card.difficulty), np.float64(gap), rating
    )
    assert abs(float(s) - rust.stability) <= 1e-4 * rust.stability + 1e-5
    assert abs(float(d) - rust.difficulty) <= 1e-4
    r_numpy = float(_forecast.recall(w, np.float64(later), np.float64(rust.stability)))
    assert abs(r_numpy - MODEL.recall(rust, rust.day + timedelta(days=later))) <= 1e-6


def test_a_memory_round_trips_through_json():
    card = replay([(4, 0), (3, 3)])
    assert Memory.from_json(card.as_json()) == card
    assert Memory.from_json({}) is None


def reviews_of(card_id, steps, start=T0 - timedelta(days=300)):
    at, out = start, []
    for grade, days in steps:
        at += timedelta(days=days)
        out.append(Review(card_id, grade, at))
    return out


def test_fit_keeps_the_defaults_without_enough_reviews():
    few = reviews_of(1, [(4, 1)] * 10)
    assert memory.fit_parameters(few) is None
    assert MemoryModel().parameters == memory.DEFAULT_PARAMETERS


def test_first_sights_alone_are_no_fit():
    first_sights = [r for i in range(600) for r in reviews_of(i + 1, [(4, 0)])]
    assert memory.fit_parameters(first_sights) is None


def test_the_optimizer_fits_a_learner_who_forgets_faster_than_the_defaults():
    """fsrs-rs-python's optimizer, nothing else installed: a learner who forgets every card
    reviewed a week or more after the last time gets a curve below the defaults'."""
    reviews = []
    for card_id in range(1, 160):
        gaps = [0, 1, 3, 7, 10, 2, 8]
        steps = [(4 if gap < 7 else 1, gap) for gap in gaps]
        reviews += reviews_of(card_id, steps, start=T0 - timedelta(days=60, minutes=card_id))
    fitted = memory.fit_parameters(reviews)
    assert fitted is not None and len(fitted) == 21
    own, defaults = MemoryModel(fitted), MODEL
    card = Memory(10.0, 5.0, DAY0)
    assert own.recall(card, DAY0 + timedelta(days=20)) < defaults.recall(
        card, DAY0 + timedelta(days=20)
    )


def test_calibration_predicts_each_review_from_earlier_ones_only():
    reviews = []
    for card_id in range(1, 41):
        reviews += reviews_of(card_id, [(4, 0), (4 if card_id % 4 else 1, 3), (4, 7)])
    cal = memory.calibration(reviews, MODEL, held_out=0.5)
    assert cal.count == 40  # half of the 80 reviews that come a day or more after the previous
    assert sum(b.count for b in cal.bins) == cal.count
    assert all(0 <= b.predicted <= 1 and 0 <= b.observed <= 1 for b in cal.bins)
    assert cal.log_loss > 0
    same_day = [Review(1, 4, T0), Review(1, 4, T0 + timedelta(minutes=5))]
    assert memory.calibration(same_day, MODEL) is None
