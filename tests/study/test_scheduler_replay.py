"""The pure replay (scheduler.replay) and the bounds on a device's moment (moment_refusal): the
rules two devices' syncs rest on, for any history."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from apps.study.scheduler import (
    CLOCK_SKEW,
    CardSchedule,
    moment_refusal,
    new_state,
    replay,
    review,
)

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=30)

# A review: minutes after T0 (many at the same minute, to try ties) and a grade, or None for an
# interview plan-mode review that leaves the schedule.
moments = st.integers(min_value=0, max_value=60 * 24 * 40).map(lambda m: T0 + timedelta(minutes=m))
reviews = st.lists(
    st.tuples(moments, st.one_of(st.integers(min_value=0, max_value=5), st.none())), max_size=30
)
starts = st.one_of(
    st.none(),
    st.builds(
        CardSchedule,
        repetitions=st.integers(min_value=0, max_value=8),
        ease_factor=st.sampled_from([Decimal("1.30"), Decimal("2.50"), Decimal("2.86")]),
        interval_days=st.integers(min_value=0, max_value=400),
        due_at=st.just(T0),
        needs_redrill=st.booleans(),
        redrill_anchor=st.just(T0),
        lapses=st.integers(min_value=0, max_value=9),
    ),
)


def fold(start, ordered):
    """`review` applied one by one, in the order given (what an online learner does)."""
    state, out = start, []
    for at, grade in ordered:
        current = state if state is not None else new_state(at)
        after = current if grade is None else review(current, grade, at)
        out.append((state, after))
        state = after
    return out


def in_time_order(items):
    return sorted(items, key=lambda step: step[0])


@given(starts, reviews)
def test_replay_is_review_applied_one_by_one_in_time_order(start, history):
    assert replay(start, history) == fold(start, in_time_order(history))


@given(starts, reviews, st.data())
def test_replay_does_not_depend_on_the_order_the_reviews_arrived_in(start, history, data):
    """Two devices' reviews at distinct moments, arriving in any order, replay the same."""
    distinct = list({at: (at, grade) for at, grade in history}.values())
    arrived = data.draw(st.permutations(distinct))
    assert replay(start, arrived) == replay(start, distinct)


@given(starts, reviews, moments, st.integers(min_value=0, max_value=5))
def test_inserting_a_review_at_its_moment_then_replaying_is_replaying_the_sorted_list(
    start, history, at, grade
):
    ordered = in_time_order(history)
    # put it after the ones at the same instant (the server gives a late review the last id)
    position = sum(1 for moment, _ in ordered if moment <= at)
    inserted = [*ordered[:position], (at, grade), *ordered[position:]]
    assert replay(start, inserted) == replay(start, [*ordered, (at, grade)])


@given(starts, reviews, st.integers(min_value=0, max_value=30))
def test_replaying_the_rest_from_a_midpoint_continues_the_replay(start, history, cut):
    """What a merge does: keep the states before the new review, replay from the state then."""
    ordered = in_time_order(history)
    cut = min(cut, len(ordered))
    whole = replay(start, ordered)
    head = whole[:cut]
    midpoint = head[-1][1] if head else start
    assert head + replay(midpoint, ordered[cut:]) == whole


@given(starts, reviews)
def test_each_step_starts_where_the_one_before_ended(start, history):
    steps = replay(start, history)
    for (_, after), (before, _) in zip(steps, steps[1:], strict=False):
        assert before == after
    if steps:
        assert steps[0][0] == start


@given(starts, reviews)
def test_plan_mode_reviews_leave_the_schedule_as_it_was(start, history):
    with_plans = replay(start, history)
    without = replay(start, [(at, grade) for at, grade in history if grade is not None])
    final = with_plans[-1][1] if with_plans else start
    expected = without[-1][1] if without else start
    if start is None and without == [] and with_plans:
        return  # only plan reviews of a new card: a new state, due at the first one
    assert final == expected


@given(moments, moments)
def test_a_moment_is_taken_within_its_bounds_only(at, based_on):
    now = NOW
    refusal = moment_refusal(at, now, hold_days=7, based_on=based_on)
    inside = now - timedelta(days=7) <= at <= now + CLOCK_SKEW and at >= based_on
    assert (refusal is None) == inside
    if refusal:
        assert at.strftime("%Y-%m-%dT%H:%M:%SZ") in refusal


def test_each_bound_says_the_moment_and_the_bound():
    last = NOW - timedelta(days=1)
    future = moment_refusal(NOW + timedelta(seconds=61), NOW, hold_days=7)
    assert future and "in the future" in future and "60 seconds" in future
    assert moment_refusal(NOW + timedelta(seconds=60), NOW, hold_days=7) is None
    old = moment_refusal(NOW - timedelta(days=7, seconds=1), NOW, hold_days=7)
    assert old and "older than 7 days" in old
    before = moment_refusal(last - timedelta(minutes=1), NOW, hold_days=7, last_reviewed_at=last)
    assert before and "before this card's last review at" in before
    assert moment_refusal(last, NOW, hold_days=7, last_reviewed_at=last) is None
