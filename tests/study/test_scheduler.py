"""The pure SM-2 scheduler: DESIGN.md's check vectors, then properties that hold for any history."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.study import scheduler
from apps.study.scheduler import (
    MAX_INTERVAL_DAYS,
    CardSchedule,
    GradeError,
    days_until_due,
    is_due,
    new_state,
    preview,
    review,
)

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def run_on_due_days(grades, start=T0):
    """Grade a new card on the days it falls due; return the day-interval each review gave."""
    state, now, intervals = new_state(start), start, []
    for grade in grades:
        now = max(now, state.due_at)
        state = review(state, grade, now)
        intervals.append(days_until_due(state, now))
    return state, intervals


def test_design_check_vector_with_redrills():
    grades = [4, 3, 3, 4, 5, 3, 0, 1, 3, 3, 4, 5, 3]
    _, intervals = run_on_due_days(grades)
    assert intervals == [1, 0, 0, 6, 15, 0, 0, 0, 0, 0, 35, 85, 0]


def test_design_check_vector_six_fives_has_no_float_drift():
    state, intervals = run_on_due_days([5] * 6)
    assert intervals == [1, 6, 17, 50, 150, 465]
    # 150 x 3.1 is 465 exactly; binary floats give 465.00000000000006 and ceil to 466.
    assert state.ease_factor == Decimal("3.10")


def test_new_card_starts_due_now_with_default_ease():
    state = new_state(T0)
    assert (state.repetitions, state.ease_factor, state.interval_days) == (0, Decimal("2.50"), 0)
    assert state.due_at == T0 and not state.needs_redrill and state.lapses == 0


def test_grade_three_flags_a_same_day_redrill_and_the_clearing_review_counts_from_the_flag():
    state = review(new_state(T0), 4, T0)  # n=1, I=1
    flagged_at = T0 + timedelta(days=1)
    state = review(state, 3, flagged_at)
    assert state.needs_redrill and state.redrill_anchor == flagged_at
    assert (state.repetitions, state.interval_days, state.due_at) == (2, 6, flagged_at)
    later_today = flagged_at + timedelta(hours=5)
    cleared = review(state, 5, later_today)
    assert not cleared.needs_redrill
    assert cleared.due_at == flagged_at + timedelta(days=6)
    assert (cleared.repetitions, cleared.ease_factor, cleared.interval_days) == (
        state.repetitions,
        state.ease_factor,
        state.interval_days,
    )


def test_a_failed_redrill_keeps_the_card_due_today_without_a_lapse():
    state = review(review(new_state(T0), 4, T0), 3, T0 + timedelta(days=1))
    again = review(state, 0, T0 + timedelta(days=1, hours=1))
    assert again.needs_redrill and again.lapses == 0 and again.repetitions == 2
    assert is_due(again, T0 + timedelta(days=1, hours=1))


def test_a_lapse_resets_and_counts_only_for_learnt_cards():
    fresh = review(new_state(T0), 1, T0)
    assert (fresh.repetitions, fresh.interval_days, fresh.lapses) == (0, 0, 0)
    learnt = review(new_state(T0), 5, T0)
    lapsed = review(learnt, 2, T0 + timedelta(days=1))
    assert (lapsed.repetitions, lapsed.interval_days, lapsed.lapses) == (0, 0, 1)
    assert lapsed.ease_factor == learnt.ease_factor
    assert lapsed.due_at == T0 + timedelta(days=1)


def test_ease_is_floored_at_one_point_three():
    state = CardSchedule(repetitions=3, ease_factor=Decimal("1.35"), interval_days=10, due_at=T0)
    assert review(state, 3, T0).ease_factor == Decimal("1.30")


def test_interval_is_capped_at_36500_days():
    state = CardSchedule(repetitions=9, ease_factor=Decimal("3.00"), interval_days=20000, due_at=T0)
    after = review(state, 5, T0)
    assert after.interval_days == MAX_INTERVAL_DAYS
    assert after.due_at == T0 + timedelta(days=MAX_INTERVAL_DAYS)
    assert review(after, 5, after.due_at).interval_days == MAX_INTERVAL_DAYS


@pytest.mark.parametrize("bad", [-1, 6, 7, 4.0, "4", None, True])
def test_bad_grades_are_refused_with_a_message_a_person_can_act_on(bad):
    with pytest.raises(GradeError, match=r"grade must be 0 to 5, got"):
        review(new_state(T0), bad, T0)


def test_grade_error_message_names_the_grade():
    with pytest.raises(GradeError) as raised:
        review(new_state(T0), 7, T0)
    assert str(raised.value) == "grade must be 0 to 5, got 7"


def test_preview_gives_the_interval_on_each_button():
    second = review(new_state(T0), 4, T0)
    assert preview(second, T0 + timedelta(days=1)) == {0: 0, 1: 0, 2: 0, 3: 0, 4: 6, 5: 6}
    third = review(second, 5, T0 + timedelta(days=1))
    assert preview(third, third.due_at)[4] == 16  # EF 2.6 after the 5: ceil(6 x 2.6)


def test_preview_ease_tells_good_from_easy_on_a_new_card():
    new = new_state(T0)
    assert preview(new, T0)[4] == preview(new, T0)[5] == 1
    changes = scheduler.preview_ease(new, T0)
    assert changes == {
        0: Decimal("0.00"), 1: Decimal("0.00"), 2: Decimal("0.00"),
        3: Decimal("-0.14"), 4: Decimal("0.00"), 5: Decimal("0.10"),
    }  # fmt: skip
    labels = [scheduler.format_ease_change(changes[g]) for g in (1, 3, 4, 5)]
    assert labels == ["ease ±0", "ease \u22120.14", "ease ±0", "ease +0.10"]


def test_preview_ease_is_zero_on_a_redrill_and_respects_the_floor():
    redrill = review(new_state(T0), 3, T0)
    assert set(scheduler.preview_ease(redrill, T0).values()) == {Decimal("0.00")}
    floored = CardSchedule(repetitions=3, ease_factor=Decimal("1.35"), interval_days=6, due_at=T0)
    assert scheduler.preview_ease(floored, T0)[3] == Decimal("-0.05")


def test_json_round_trip_is_exact():
    state, _ = run_on_due_days([4, 3])
    assert CardSchedule.from_json(state.as_json()) == state


# --- due is a matter of local days ---------------------------------------------------------


def test_due_today_means_on_or_before_the_end_of_local_today():
    tokyo = ZoneInfo("Asia/Tokyo")  # UTC+9
    # 15:30 UTC Jan 5 is 00:30 Jan 6 in Tokyo; a card due 14:00 UTC Jan 6 (23:00 Tokyo) is due.
    now = datetime(2026, 1, 5, 15, 30, tzinfo=UTC)
    card = CardSchedule(due_at=datetime(2026, 1, 6, 14, 0, tzinfo=UTC))
    assert is_due(card, now, tokyo)
    assert not is_due(card, now, UTC)  # still Jan 5 in London; due tomorrow
    # One minute past local midnight in Tokyo is tomorrow there.
    assert not is_due(CardSchedule(due_at=datetime(2026, 1, 6, 15, 1, tzinfo=UTC)), now, tokyo)


def test_day_end_honours_daylight_saving():
    new_york = ZoneInfo("America/New_York")
    # 8 Mar 2026 is 23 hours long in New York; its end is 04:00 UTC on 9 Mar (EDT, UTC-4).
    now = datetime(2026, 3, 8, 12, 0, tzinfo=UTC)
    assert scheduler.day_end(now, new_york) == datetime(2026, 3, 9, 4, 0, tzinfo=UTC)
    assert scheduler.day_start(now, new_york) == datetime(2026, 3, 8, 5, 0, tzinfo=UTC)


def test_an_interval_of_one_day_is_due_from_local_midnight():
    paris = ZoneInfo("Europe/Paris")
    evening = datetime(2026, 1, 5, 22, 30, tzinfo=UTC)  # 23:30 in Paris
    state = review(new_state(evening), 4, evening)
    assert not is_due(state, evening, paris)
    assert is_due(state, datetime(2026, 1, 6, 23, 0, tzinfo=UTC), paris)  # 00:00 Jan 7 Paris
    assert days_until_due(state, evening, paris) == 1


# --- properties --------------------------------------------------------------------------

grade_lists = st.lists(st.integers(min_value=0, max_value=5), min_size=1, max_size=60)
gaps = st.integers(min_value=0, max_value=400)


@st.composite
def histories(draw):
    """A card reviewed with arbitrary grades at arbitrary (due or late) times."""
    grades = draw(grade_lists)
    state, now, steps = new_state(T0), T0, []
    for grade in grades:
        now = max(now, state.due_at) + timedelta(hours=draw(gaps))
        after = review(state, grade, now)
        steps.append((state, grade, now, after))
        state = after
    return steps


@settings(max_examples=300)
@given(histories())
def test_ease_never_drops_below_1_3_and_always_has_two_places(steps):
    for _, _, _, after in steps:
        assert after.ease_factor >= Decimal("1.30")
        assert after.ease_factor == after.ease_factor.quantize(Decimal("0.01"))
        assert after.ease_factor.as_tuple().exponent == -2


@settings(max_examples=300)
@given(histories())
def test_interval_stays_within_0_and_the_cap(steps):
    for _, _, _, after in steps:
        assert 0 <= after.interval_days <= MAX_INTERVAL_DAYS


@settings(max_examples=300)
@given(histories())
def test_redrill_grades_never_change_repetitions_ease_or_interval(steps):
    for before, grade, now, after in steps:
        if before.needs_redrill:
            assert (after.repetitions, after.ease_factor, after.interval_days, after.lapses) == (
                before.repetitions,
                before.ease_factor,
                before.interval_days,
                before.lapses,
            )
            if grade >= 4:
                assert not after.needs_redrill
                assert after.due_at == before.redrill_anchor + timedelta(days=before.interval_days)
            else:
                assert after.needs_redrill and is_due(after, now)


@settings(max_examples=300)
@given(histories())
def test_failing_grades_reset_and_count_lapses(steps):
    for before, grade, now, after in steps:
        if before.needs_redrill or grade >= 3:
            continue
        assert (after.repetitions, after.interval_days) == (0, 0)
        assert after.ease_factor == before.ease_factor
        assert after.lapses == before.lapses + (1 if before.repetitions > 0 else 0)
        assert after.due_at == now


@settings(max_examples=300)
@given(histories())
def test_successes_count_up_and_schedule_forward(steps):
    for before, grade, now, after in steps:
        if before.needs_redrill or grade < 3:
            continue
        assert after.repetitions == before.repetitions + 1
        assert after.needs_redrill == (grade == 3)
        if grade >= 4:
            assert after.due_at == now + timedelta(days=after.interval_days)
            assert after.interval_days >= 1
        else:
            assert after.due_at == now and after.redrill_anchor == now


@given(histories())
def test_lapses_equal_failures_of_learnt_cards_outside_redrills(steps):
    expected = sum(
        1
        for before, grade, _, _ in steps
        if not before.needs_redrill and grade < 3 and before.repetitions > 0
    )
    assert steps[-1][3].lapses == expected


@given(histories())
def test_json_round_trip_holds_for_any_state(steps):
    for _, _, _, after in steps:
        assert CardSchedule.from_json(after.as_json()) == after


@given(st.integers(min_value=1, max_value=MAX_INTERVAL_DAYS), st.sampled_from([4, 5]))
def test_interval_growth_never_shrinks_a_success(interval, grade):
    state = CardSchedule(repetitions=3, ease_factor=Decimal("1.30"), interval_days=interval)
    assert review(state, grade, T0).interval_days >= interval
