"""The pure memory model (FSRS) and interview planner: properties that hold for any history."""

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from apps.study import memory, plan
from apps.study.memory import MemoryModel, Review
from apps.study.plan import PlanCard, plan_build
from apps.study.scheduler import CardSchedule

T0 = datetime(2026, 3, 2, 0, 0, tzinfo=UTC)
MODEL = MemoryModel()

grades = st.integers(0, 5)
history = st.lists(st.tuples(grades, st.integers(0, 60 * 24 * 40)), min_size=1, max_size=12)


def reviews_of(card_id, steps):
    """Reviews of one card at T0 - 60 days + cumulative minutes."""
    at, out = T0 - timedelta(days=60), []
    for grade, minutes in steps:
        at += timedelta(minutes=minutes)
        out.append(Review(card_id, grade, at))
    return out


def test_pure_core_imports_nothing_from_django():
    code = "import sys, apps.study.plan; sys.exit(any(m.startswith('django') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], env={"PATH": ""}).returncode == 0


def test_sm2_grades_map_to_fsrs_ratings():
    ratings = {g: memory.RATINGS[g].name for g in range(6)}
    assert ratings == {0: "Again", 1: "Again", 2: "Again", 3: "Hard", 4: "Good", 5: "Easy"}


def test_a_card_never_seen_is_not_recalled():
    assert MODEL.recall(None, T0) == 0.0


@given(history, st.integers(0, 400), st.integers(0, 400))
@settings(max_examples=60, deadline=None)
def test_recall_is_a_probability_that_falls_with_time(steps, a, b):
    card = MODEL.memory(reviews_of(7, steps))
    early, late = sorted((a, b))
    r_early = MODEL.recall(card, card.last_review + timedelta(days=early))
    r_late = MODEL.recall(card, card.last_review + timedelta(days=late))
    assert 0.0 <= r_late <= r_early <= 1.0


def test_a_good_review_remembers_longer_than_a_lapse():
    first = MODEL.memory([Review(1, 4, T0 - timedelta(days=5))])
    good = MODEL.reviewed(first, 4, T0)
    again = MODEL.reviewed(first, 1, T0)
    later = T0 + timedelta(days=10)
    assert MODEL.recall(good, later) > MODEL.recall(again, later)


def test_fit_keeps_the_defaults_without_enough_reviews():
    few = reviews_of(1, [(4, 60 * 24)] * 10)
    assert memory.fit_parameters(few) is None
    assert MemoryModel().parameters == memory.DEFAULT_PARAMETERS


def test_a_fit_that_cannot_move_off_the_defaults_is_no_fit():
    # 600 first sights: enough reviews for the app, none in FSRS's Review state for the
    # optimizer, which then hands back its defaults; that must not count as the learner's own
    first_sights = [r for i in range(600) for r in reviews_of(i + 1, [(4, 60)])]
    assert memory.fit_parameters(first_sights) is None


def test_the_optimizer_counts_as_available_only_when_fsrs_has_it():
    import fsrs

    assert memory.optimizer_available() == hasattr(fsrs.Optimizer, "compute_optimal_parameters")


def test_calibration_predicts_each_review_from_earlier_ones_only():
    reviews = []
    for card_id in range(1, 41):
        reviews += reviews_of(
            card_id, [(4, 0), (4 if card_id % 4 else 1, 60 * 24 * 3), (4, 60 * 24 * 7)]
        )
    cal = memory.calibration(reviews, MODEL, held_out=0.5)
    assert cal.count == 40  # half of the 80 reviews that come a day or more after the previous
    assert sum(b.count for b in cal.bins) == cal.count
    assert all(0 <= b.predicted <= 1 and 0 <= b.observed <= 1 for b in cal.bins)
    assert cal.log_loss > 0
    assert memory.calibration(reviews_of(1, [(4, 0), (4, 5)]), MODEL) is None  # same day only


def test_seconds_per_review_is_the_median_of_the_learners_timed_reviews():
    assert plan.seconds_per_review([5000] * 5) == plan.DEFAULT_SECONDS_PER_REVIEW
    timed = [4000] * 15 + [8000] * 10 + [None] * 30 + [900_000] * 50
    assert plan.seconds_per_review(timed) == 4.0
    assert plan.reviews_per_day(10, 4.0) == 150


# A deck: each card new, or known with a short history and an SM-2 schedule due some day.
card_strategy = st.tuples(
    st.sampled_from(["tasks", "actors", "vtrace"]),
    st.one_of(st.none(), st.lists(st.tuples(grades, st.integers(60, 60 * 24 * 20)), max_size=4)),
    st.integers(-5, 30),  # SM-2 due day relative to today
)


def deck(specs):
    cards = []
    for i, (section, steps, due_day) in enumerate(specs, start=1):
        if not steps:
            cards.append(PlanCard(i, section, None))
            continue
        history = reviews_of(i, steps)
        last = history[-1].at
        schedule = CardSchedule(
            repetitions=1,
            ease_factor=Decimal("2.50"),
            interval_days=max(1, due_day),
            due_at=T0 + timedelta(days=due_day, hours=9),
            last_reviewed_at=last,
        )
        cards.append(PlanCard(i, section, MODEL.memory(history), schedule))
    return cards


@given(
    st.lists(card_strategy, min_size=1, max_size=25),
    st.integers(0, 30),
    st.integers(0, 12),
    st.integers(0, 5),
    st.floats(0.5, 0.99),
)
@settings(max_examples=60, deadline=None)
def test_the_plan_never_exceeds_the_budget(specs, days_until, per_day, done_today, target):
    cards = deck(specs)
    result = plan_build(
        cards=cards,
        model=MODEL,
        today_start=T0,
        days_until=days_until,
        per_day=per_day,
        target=target,
        done_today=done_today,
    )
    assert len(result.days) == max(1, days_until)
    assert len(result.days[0].cards) <= max(0, per_day - done_today)
    ids = {c.card_id for c in cards}
    for day in result.days:
        assert len(day.cards) <= day.capacity <= per_day
        assert len(set(day.cards)) == len(day.cards)  # a card at most once a day
        assert set(day.cards) <= ids
        assert day.due <= len(day.cards)
    for readiness in (result.now, result.followed):
        assert 0.0 <= readiness.overall <= 1.0
        assert all(0.0 <= r <= 1.0 for r in readiness.sections.values())
        assert set(readiness.cards) == ids
    assert 0.0 <= result.shortfall <= target
    assert all(r < target for _, r in result.short_sections)


@given(st.lists(card_strategy, min_size=1, max_size=25), st.integers(1, 30), st.integers(1, 12))
@settings(max_examples=40, deadline=None)
def test_without_sm2_reviews_the_plan_only_raises_recall(specs, days_until, per_day):
    cards = [PlanCard(c.card_id, c.section, c.memory) for c in deck(specs)]
    result = plan_build(
        cards=cards, model=MODEL, today_start=T0, days_until=days_until, per_day=per_day, target=0.9
    )
    for card in cards:
        assert result.followed.cards[card.card_id] >= result.now.cards[card.card_id] - 1e-9
    assert result.followed.overall >= result.now.overall - 1e-9


def test_new_cards_come_early_and_last_reviews_close_to_the_date():
    cards = deck([("tasks", None, 0)] * 10)  # ten new cards
    result = plan_build(
        cards=cards, model=MODEL, today_start=T0, days_until=10, per_day=5, target=0.6
    )
    assert result.now.overall == 0.0
    assert set(result.days[0].cards + result.days[1].cards) == set(range(1, 11))  # introduced
    assert result.days[-1].cards  # and reviewed again close to the date
    assert result.followed.overall >= 0.6 and result.shortfall == 0
    assert result.reviews < 10 * 5  # not the whole budget: the target was reached


def test_a_known_card_is_reviewed_the_day_before_not_today():
    cards = deck([("tasks", [(4, 60), (4, 60 * 24 * 3)], 30)])
    result = plan_build(
        cards=cards, model=MODEL, today_start=T0, days_until=10, per_day=5, target=0.95
    )
    assert 1 in result.days[-1].cards and 1 not in result.days[0].cards


def test_a_budget_too_small_says_by_how_much_and_which_sections():
    cards = deck([("tasks", None, 0)] * 6 + [("vtrace", None, 0)] * 6)
    result = plan_build(
        cards=cards, model=MODEL, today_start=T0, days_until=3, per_day=1, target=0.9
    )
    assert result.reviews == 3
    assert result.shortfall > 0.5
    assert {name for name, _ in result.short_sections} == {"tasks", "vtrace"}


def test_sm2_due_cards_come_first_on_their_due_day():
    cards = deck([("tasks", [(4, 60)], 2), ("tasks", None, 0), ("tasks", None, 0)])
    result = plan_build(
        cards=cards, model=MODEL, today_start=T0, days_until=5, per_day=1, target=0.99
    )
    assert result.days[2].cards == [1] and result.days[2].due == 1
