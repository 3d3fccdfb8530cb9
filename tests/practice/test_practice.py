"""Practice items that are not cards (exercises, drills) keep an SM-2 schedule of their own."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.practice.models import PracticeLog, PracticeState
from apps.practice.services import (
    AGAIN,
    GOOD,
    HARD,
    practice_due,
    practice_failed_since_due,
    practice_grade,
    practice_record,
    practice_states,
)

pytestmark = pytest.mark.django_db


def noon():
    """A moment well inside alice's (UTC) day, so an hour later is still the same day."""
    return timezone.now().replace(hour=12, minute=0, second=0, microsecond=0)


def test_a_clean_pass_is_good_a_pass_after_a_failure_hard_a_failure_again():
    assert practice_grade(passed=True, failed_since_due=False) == GOOD
    assert practice_grade(passed=True, failed_since_due=True) == HARD
    assert practice_grade(passed=False, failed_since_due=False) == AGAIN
    assert practice_grade(passed=False, failed_since_due=True) == AGAIN


def test_a_first_pass_schedules_the_exercise_a_day_later(alice):
    now = noon()
    log, created = practice_record(
        user=alice, kind="exercise", key="gae", ref="1", grade=GOOD, now=now
    )
    assert created and log.state_before is None
    state = PracticeState.objects.get(user=alice, kind="exercise", key="gae")
    assert (state.repetitions, state.interval_days) == (1, 1)
    assert state.due_at == now + timedelta(days=1)
    assert practice_due(user=alice, kind="exercise", now=now) == []
    assert [s.key for s in practice_due(user=alice, kind="exercise", now=now + timedelta(days=1))]


def test_the_same_ref_twice_records_once(alice):
    first, _ = practice_record(user=alice, kind="drill", key="q1", ref="7", grade=GOOD)
    again, created = practice_record(user=alice, kind="drill", key="q1", ref="7", grade=GOOD)
    assert not created and again.pk == first.pk
    assert PracticeLog.objects.count() == 1
    assert PracticeState.objects.get(user=alice).repetitions == 1


def test_practice_before_it_is_due_is_logged_and_leaves_the_schedule(alice):
    now = noon()
    practice_record(user=alice, kind="exercise", key="gae", ref="1", grade=GOOD, now=now)
    log, _ = practice_record(
        user=alice, kind="exercise", key="gae", ref="2", grade=AGAIN, now=now + timedelta(hours=1)
    )
    assert log.state_after == log.state_before
    state = PracticeState.objects.get(user=alice, kind="exercise", key="gae")
    assert (state.repetitions, state.lapses) == (1, 0)


def test_a_failure_keeps_it_due_and_counts_a_lapse_once_learnt(alice):
    now = noon()
    practice_record(user=alice, kind="exercise", key="gae", ref="1", grade=GOOD, now=now)
    later = now + timedelta(days=1)
    practice_record(user=alice, kind="exercise", key="gae", ref="2", grade=AGAIN, now=later)
    state = PracticeState.objects.get(user=alice, kind="exercise", key="gae")
    assert (state.repetitions, state.lapses, state.due_at) == (0, 1, later)


def test_kinds_and_learners_are_kept_apart(alice, bob):
    practice_record(user=alice, kind="exercise", key="k", ref="1", grade=GOOD)
    practice_record(user=alice, kind="drill", key="k", ref="1", grade=AGAIN)
    practice_record(user=bob, kind="drill", key="k", ref="2", grade=GOOD)
    assert practice_states(user=alice, kind="exercise")["k"].repetitions == 1
    assert practice_states(user=alice, kind="drill")["k"].repetitions == 0
    assert practice_states(user=bob, kind="drill", keys=["k", "other"])["k"].repetitions == 1
    assert [s.key for s in practice_due(user=alice, kind="drill")] == ["k"]


def test_failed_since_due_counts_failures_after_the_item_fell_due_and_since_the_last_pass(alice):
    """What tells a pass after a failure (Hard) from a clean pass (Good), so a re-drill clears."""
    t0 = noon()
    args = {"user": alice, "kind": "exercise", "key": "gae"}
    assert practice_failed_since_due(**args) is False  # never practised
    practice_record(**args, ref="1", grade=AGAIN, now=t0)
    assert practice_failed_since_due(**args) is True  # an Again makes it due from that moment
    practice_record(**args, ref="2", grade=HARD, now=t0 + timedelta(minutes=1))
    assert practice_failed_since_due(**args) is False  # passed since: the next pass is Good
    practice_record(**args, ref="3", grade=GOOD, now=t0 + timedelta(minutes=2))
    state = PracticeState.objects.get(**args)
    assert state.due_at > t0 + timedelta(hours=12)
    # Practised early (not due), a failure leaves the schedule and does not make the due pass Hard.
    practice_record(**args, ref="4", grade=AGAIN, now=t0 + timedelta(hours=1))
    assert practice_failed_since_due(**args) is False
