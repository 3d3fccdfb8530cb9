"""The interview scheduler (pure): an optimiser of the expected recall on the interview day
under a daily budget. Property tests: never over budget, never past the date, more budget never
lowers the predicted recall, the same inputs give the same plan; and what it does with a date."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.interview import planner
from apps.interview.planner import _forecast
from apps.study import memory

W = memory.DEFAULT_PARAMETERS

seen_item = st.builds(
    lambda key, s, d, last, due: planner.Item(key, f"g{key % 3}", s, d, -last, due),
    key=st.integers(1, 10_000),
    s=st.floats(0.05, 400),
    d=st.floats(1, 10),
    last=st.integers(0, 120),
    due=st.integers(-30, 60),
)
learners = st.tuples(
    st.lists(seen_item, max_size=25, unique_by=lambda i: i.key),
    st.integers(0, 25),  # unseen items
    st.integers(0, 40),  # days until the interview
    st.integers(0, 12),  # budget a day
    st.integers(0, 12),  # done today
)


@given(learners, st.integers(1, 6), st.floats(0.5, 0.99))
@settings(max_examples=60, deadline=None)
def test_with_a_target_more_budget_never_lowers_it_either_and_the_plan_stops_there(
    learner, more, target
):
    seen, unseen, days, per_day, done = learner
    small = build(seen, unseen, days, per_day, done, target=target)
    large = build(seen, unseen, days, per_day + more, done, target=target)
    assert large.followed.overall >= small.followed.overall - 1e-12
    free = build(seen, unseen, days, per_day, done)
    assert small.reviews <= free.reviews
    if small.reviews < free.reviews:  # it stopped early: the target was reached
        assert small.followed.overall >= target - 1e-12


def build(seen, unseen, days, per_day, done, **kw):
    new = [planner.Item(20_000 + i, f"g{i % 3}") for i in range(unseen)]
    return planner.plan_build(
        items=seen, new=new, parameters=W, days_until=days, per_day=per_day, done_today=done,
        **kw,
    )  # fmt: skip


@given(learners)
@settings(max_examples=120, deadline=None)
def test_never_over_budget_never_past_the_date_each_item_once_a_day(learner):
    seen, unseen, days, per_day, done = learner
    plan = build(seen, unseen, days, per_day, done)
    assert len(plan.days) == max(1, days)  # from today to the day before (today, on the day)
    assert len(plan.days[0].items) <= max(0, per_day - done)
    for day in plan.days:
        assert len(day.items) <= per_day
        assert len(set(day.items)) == len(day.items)
    reviewed_today = {i.key for i in seen if i.last_day == 0}
    assert not reviewed_today & set(plan.days[0].items)
    keys = {i.key for i in seen} | {20_000 + i for i in range(unseen)}
    assert {k for day in plan.days for k in day.items} <= keys
    assert 0 <= plan.now.overall <= plan.followed.overall <= 1


@given(learners, st.integers(1, 6))
@settings(max_examples=120, deadline=None)
def test_more_budget_never_lowers_the_predicted_recall(learner, more):
    seen, unseen, days, per_day, done = learner
    small = build(seen, unseen, days, per_day, done)
    large = build(seen, unseen, days, per_day + more, done)
    assert large.followed.overall >= small.followed.overall - 1e-12
    for group, recall in small.followed.groups.items():
        assert (
            large.followed.groups[group] >= recall - 1e-12
            or large.followed.overall > small.followed.overall
        )


@given(learners)
@settings(max_examples=40, deadline=None)
def test_the_same_inputs_give_the_same_plan(learner):
    seen, unseen, days, per_day, done = learner
    assert build(seen, unseen, days, per_day, done) == build(seen, unseen, days, per_day, done)
    shuffled = list(reversed(seen))  # the items' order given does not matter either
    a, b = build(seen, unseen, days, per_day, done), build(shuffled, unseen, days, per_day, done)
    assert a.followed.overall == b.followed.overall
    assert [sorted(d.items) for d in a.days] == [sorted(d.items) for d in b.days]


@given(learners)
@settings(max_examples=60, deadline=None)
def test_the_followed_recall_is_the_forecast_of_the_planned_days(learner):
    """What the plan says it gives is the expectation of its own reviews, item by item."""
    seen, unseen, days, per_day, done = learner
    plan = build(seen, unseen, days, per_day, done)
    planned: dict[int, list[int]] = {}
    for day in plan.days:
        for key in day.items:
            planned.setdefault(key, []).append(day.day)
    total = len(seen) + unseen
    expected = 0.0
    for item in [*seen, *(planner.Item(20_000 + i) for i in range(unseen))]:
        when = planned.get(item.key, [])
        lanes = np.full((1, max(1, len(when))), np.inf)
        lanes[0, : len(when)] = when
        expected += _forecast.expected_recall(
            np.array(W), np.array([item.stability or 1.0]), np.array([item.difficulty or 1.0]),
            np.array([float(min(0, item.last_day or 0))]), np.array([item.seen]), lanes,
            max(days, 0),
        )[0]  # fmt: skip
    assert abs(plan.followed.overall - (expected / total if total else 0)) < 1e-9


def test_a_tight_budget_introduces_new_cards_past_sm2s_limit_and_a_known_card_waits():
    strong = planner.Item(1, "core", stability=300.0, difficulty=3.0, last_day=-10, due_day=0)
    new = [planner.Item(100 + i, "core") for i in range(30)]
    plan = planner.plan_build(items=[strong], new=new, parameters=W, days_until=5, per_day=10)
    today = planner.study_today(plan)
    assert today.kinds and set(today.kinds.values()) == {"new"}
    assert len(today.items) == 10  # all of today's budget, past a 5-a-day new-card limit
    assert today.waiting == [1] and today.waiting_after == [1]  # due in SM-2, not needed


def test_reviews_of_a_fading_card_come_close_to_the_date():
    fading = planner.Item(1, "core", stability=3.0, difficulty=6.0, last_day=-2, due_day=5)
    plan = planner.plan_build(items=[fading], parameters=W, days_until=20, per_day=1)
    days = [d.day for d in plan.days if d.items]
    assert days and days[-1] >= 17  # the last review close to the date
    assert plan.followed.overall > plan.now.overall


def test_an_item_that_gains_too_little_is_not_reviewed_even_with_room():
    known = planner.Item(1, "core", stability=5000.0, difficulty=2.0, last_day=-1, due_day=0)
    plan = planner.plan_build(items=[known], parameters=W, days_until=10, per_day=50)
    assert plan.reviews == 0 and planner.study_today(plan).waiting == [1]


def test_the_plan_review_says_what_more_time_and_a_later_date_change():
    items = [planner.Item(i, "core", 2.0, 6.0, -3, 0) for i in range(40)]
    new = [planner.Item(100 + i, "core") for i in range(60)]
    review = planner.plan_review(
        items=items, new=new, parameters=W, days_until=6, per_day=10, extra_per_day=10
    )
    assert review.now < review.followed <= review.more_time
    assert review.later_date >= review.followed - 0.05  # more days, more room (recall may fade)
    assert review.today == 10


def test_far_dates_plan_in_blocks_and_today_is_its_own_day():
    cols = planner._allocate.columns(400)
    assert cols[0].start == 0 and cols[0].width == 1
    assert len(cols) <= planner._allocate.MAX_COLUMNS
    assert sum(c.width for c in cols) == 400 and cols[-1].start == 399
    plan = planner.plan_build(
        items=[planner.Item(1, "g", 5.0, 5.0, -1, 3)], new=[planner.Item(2, "g")], parameters=W,
        days_until=400, per_day=3,
    )  # fmt: skip
    assert len(plan.days) == 400 and all(len(d.items) <= 3 for d in plan.days)
