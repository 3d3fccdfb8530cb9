"""Recording, replaying and undoing reviews; suspending and requeueing cards."""

import threading
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection

from apps.accounts.models import profile_for
from apps.study import scheduler
from apps.study.models import CardState, ReviewLog
from apps.study.services import (
    CardNotDue,
    CardSuspended,
    ClientIdReused,
    NothingToUndo,
    card_suspend,
    cards_requeue,
    review_record,
    review_undo,
)

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def task_card(small_deck):
    return small_deck.cards.get(slug="ray-task")


def test_first_review_creates_the_state_and_logs_before_and_after(alice, task_card):
    log, created = review_record(user=alice, card=task_card, grade=4, duration_ms=3200, now=T0)
    assert created and log.kind == "new" and log.state_before is None
    state = CardState.objects.get(user=alice, card=task_card)
    assert (state.repetitions, state.interval_days, state.ease_factor) == (1, 1, Decimal("2.50"))
    assert state.due_at == T0 + timedelta(days=1) and state.introduced_at == T0
    assert state.deck_id == task_card.deck_id
    assert log.state_after["interval_days"] == 1 and log.duration_ms == 3200


def test_a_card_not_due_is_refused_with_409_and_a_way_out(alice, task_card):
    review_record(user=alice, card=task_card, grade=5, now=T0)
    with pytest.raises(CardNotDue, match="not due until 2026-03-03; cram mode") as refused:
        review_record(user=alice, card=task_card, grade=5, now=T0 + timedelta(hours=2))
    assert refused.value.status == 409
    assert ReviewLog.objects.count() == 1


def test_the_same_client_id_counts_once(alice, task_card):
    client_id = uuid.uuid4()
    first, created = review_record(user=alice, card=task_card, grade=4, client_id=client_id)
    again, created_again = review_record(
        user=alice, card=task_card, grade=4, client_id=str(client_id)
    )
    assert created and not created_again and again.pk == first.pk
    assert ReviewLog.objects.count() == 1
    assert CardState.objects.get(user=alice, card=task_card).repetitions == 1


def test_a_client_id_reused_for_another_grade_is_refused(alice, task_card):
    client_id = uuid.uuid4()
    review_record(user=alice, card=task_card, grade=4, client_id=client_id)
    with pytest.raises(ClientIdReused, match="already used"):
        review_record(user=alice, card=task_card, grade=2, client_id=client_id)


def test_a_client_id_reused_on_another_due_card_leaves_its_schedule_alone(alice, small_deck):
    """The update of a known card's state and its log's insert (one statement on PostgreSQL)
    stand or fall together: a refused client_id leaves the schedule as it was."""
    task, actor = small_deck.cards.get(slug="ray-task"), small_deck.cards.get(slug="ray-actor")
    review_record(user=alice, card=actor, grade=4, now=T0)
    before = CardState.objects.get(user=alice, card=actor).schedule
    client_id = uuid.uuid4()
    review_record(user=alice, card=task, grade=4, client_id=client_id, now=T0)
    with pytest.raises(ClientIdReused, match="already used"):
        review_record(
            user=alice, card=actor, grade=5, client_id=client_id, now=T0 + timedelta(days=2)
        )
    assert CardState.objects.get(user=alice, card=actor).schedule == before
    assert ReviewLog.objects.filter(card=actor).count() == 1
    log, created = review_record(user=alice, card=actor, grade=5, now=T0 + timedelta(days=2))
    assert created and log.pk and log.state_before == before.as_json()
    assert ReviewLog.objects.get(pk=log.pk).state_after == log.state_after


def test_client_ids_are_per_user(alice, bob, task_card):
    client_id = uuid.uuid4()
    review_record(user=alice, card=task_card, grade=4, client_id=client_id)
    _, created = review_record(user=bob, card=task_card, grade=4, client_id=client_id)
    assert created and ReviewLog.objects.count() == 2


def test_redrill_then_clear_follows_the_design_rules(alice, task_card):
    review_record(user=alice, card=task_card, grade=4, now=T0)
    day1 = T0 + timedelta(days=1)
    log, _ = review_record(user=alice, card=task_card, grade=3, now=day1)
    assert log.kind == "review" and log.state_after["needs_redrill"]
    log, _ = review_record(user=alice, card=task_card, grade=2, now=day1 + timedelta(minutes=5))
    assert log.kind == "redrill"
    log, _ = review_record(user=alice, card=task_card, grade=5, now=day1 + timedelta(minutes=9))
    state = CardState.objects.get(user=alice, card=task_card)
    assert not state.needs_redrill and state.due_at == day1 + timedelta(days=6)
    assert (state.repetitions, state.interval_days, state.lapses) == (2, 6, 0)


def test_suspended_cards_cannot_be_graded(alice, task_card):
    card_suspend(user=alice, card=task_card)
    with pytest.raises(CardSuspended, match="suspended"):
        review_record(user=alice, card=task_card, grade=4)
    card_suspend(user=alice, card=task_card, suspended=False)
    _, created = review_record(user=alice, card=task_card, grade=4)
    assert created


def test_undo_restores_the_state_before_each_review_in_turn(alice, small_deck, task_card):
    actor = small_deck.cards.get(slug="ray-actor")
    review_record(user=alice, card=task_card, grade=5, now=T0)
    review_record(user=alice, card=actor, grade=4, now=T0 + timedelta(seconds=5))
    day1 = T0 + timedelta(days=1)
    review_record(user=alice, card=task_card, grade=2, now=day1)
    lapsed = CardState.objects.get(user=alice, card=task_card)
    assert lapsed.lapses == 1 and lapsed.repetitions == 0

    undone = review_undo(user=alice, now=day1)
    assert undone.grade == 2 and undone.undone_at == day1
    restored = CardState.objects.get(user=alice, card=task_card)
    assert (restored.repetitions, restored.lapses, restored.interval_days) == (1, 0, 1)
    assert restored.ease_factor == Decimal("2.60") and restored.due_at == T0 + timedelta(days=1)

    assert review_undo(user=alice).card_id == actor.pk
    assert not CardState.objects.filter(user=alice, card=actor).exists()  # new again
    assert review_undo(user=alice).card_id == task_card.pk
    assert not CardState.objects.filter(user=alice).exists()
    with pytest.raises(NothingToUndo, match="nothing to undo"):
        review_undo(user=alice)
    assert ReviewLog.objects.filter(user=alice).count() == 3  # kept, marked undone


def test_undo_reaches_back_30_reviews(alice, task_card):
    now = T0
    for _ in range(31):
        review_record(user=alice, card=task_card, grade=1, now=now)
        now += timedelta(minutes=1)
    for _ in range(30):
        review_undo(user=alice)
    with pytest.raises(NothingToUndo):
        review_undo(user=alice)
    assert ReviewLog.objects.filter(user=alice, undone_at=None).count() == 1


def test_undo_only_touches_the_callers_reviews(alice, bob, task_card):
    review_record(user=alice, card=task_card, grade=4)
    with pytest.raises(NothingToUndo):
        review_undo(user=bob)
    assert CardState.objects.filter(user=alice).count() == 1


def test_an_undone_new_card_no_longer_counts_against_the_new_limit(alice, task_card):
    from apps.study.selectors import today

    review_record(user=alice, card=task_card, grade=4)
    assert today(alice).new_done == 1
    review_undo(user=alice)
    assert today(alice).new_done == 0


def test_requeue_makes_cards_due_now_and_keeps_their_schedule(alice, small_deck, task_card):
    actor = small_deck.cards.get(slug="ray-actor")
    review_record(user=alice, card=task_card, grade=5, now=T0)
    before = CardState.objects.get(user=alice, card=task_card)
    assert cards_requeue(user=alice, cards=[task_card, actor]) == 2
    after = CardState.objects.get(user=alice, card=task_card)
    assert after.due_at <= datetime.now(UTC)
    assert (after.repetitions, after.interval_days, after.ease_factor) == (
        before.repetitions,
        before.interval_days,
        before.ease_factor,
    )
    fresh = CardState.objects.get(user=alice, card=actor)
    assert fresh.repetitions == 0 and fresh.introduced_at is None
    log, _ = review_record(user=alice, card=actor, grade=4)
    assert log.kind == "new"


def test_due_is_judged_in_the_learners_time_zone(alice, task_card):
    profile = profile_for(alice)
    profile.time_zone = "Pacific/Auckland"  # UTC+13 in March
    profile.save()
    # 10:00 UTC on 1 March is 23:00 in Auckland; a 1-day interval is due from Auckland midnight,
    # 11:00 UTC, one hour later; not at 10:59 UTC.
    evening = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    review_record(user=alice, card=task_card, grade=4, now=evening)
    with pytest.raises(CardNotDue):
        review_record(user=alice, card=task_card, grade=4, now=evening + timedelta(minutes=59))
    _, created = review_record(
        user=alice, card=task_card, grade=4, now=evening + timedelta(hours=1, minutes=1)
    )
    assert created


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_requests_with_one_client_id_record_one_review(alice, task_card):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL row locks (CI runs it with DATABASE_URL=postgres://...)")
    review_record(user=alice, card=task_card, grade=4, now=datetime.now(UTC) - timedelta(days=3))
    client_id = uuid.uuid4()
    barrier = threading.Barrier(2)
    results, errors = [], []

    def grade():
        from django.db import connection as thread_connection

        try:
            barrier.wait()
            results.append(review_record(user=alice, card=task_card, grade=5, client_id=client_id))
        except Exception as exc:  # noqa: BLE001 - the assertion below shows what went wrong
            errors.append(exc)
        finally:
            thread_connection.close()

    threads = [threading.Thread(target=grade) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(created for _, created in results) == [False, True]
    assert len({log.pk for log, _ in results}) == 1
    assert ReviewLog.objects.filter(user=alice).count() == 2
    assert CardState.objects.get(user=alice, card=task_card).repetitions == 2


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_grades_of_a_new_card_without_client_ids_apply_once(alice, task_card):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL row locks (CI runs it with DATABASE_URL=postgres://...)")
    barrier = threading.Barrier(2)
    outcomes = []

    def grade():
        from django.db import connection as thread_connection

        try:
            barrier.wait()
            review_record(user=alice, card=task_card, grade=5)
            outcomes.append("recorded")
        except CardNotDue:
            outcomes.append("not due")
        finally:
            thread_connection.close()

    threads = [threading.Thread(target=grade) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["not due", "recorded"]
    assert CardState.objects.get(user=alice, card=task_card).repetitions == 1


def test_scheduler_and_service_agree_on_the_design_vector(alice, task_card):
    """The DESIGN.md vector through the database: Decimal survives the round trip."""
    now = T0
    intervals = []
    for grade in [4, 3, 3, 4, 5, 3, 0, 1, 3, 3, 4, 5, 3]:
        state = CardState.objects.filter(user=alice, card=task_card).first()
        if state is not None:
            now = max(now, state.due_at)
        log, _ = review_record(user=alice, card=task_card, grade=grade, now=now)
        after = scheduler.CardSchedule.from_json(log.state_after)
        intervals.append(scheduler.days_until_due(after, now))
    assert intervals == [1, 0, 0, 6, 15, 0, 0, 0, 0, 0, 35, 85, 0]


@pytest.mark.django_db(transaction=True)
def test_two_undos_at_once_undo_two_reviews(alice, small_deck):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL row locks (CI runs it with DATABASE_URL=postgres://...)")
    for slug in ("ray-task", "ray-actor", "object-store"):
        review_record(user=alice, card=small_deck.cards.get(slug=slug), grade=5)
    barrier = threading.Barrier(2)
    undone, errors = [], []

    def undo():
        from django.db import connection as thread_connection

        try:
            barrier.wait()
            undone.append(review_undo(user=alice).card.slug)
        except Exception as exc:  # noqa: BLE001 - the assertion below shows what went wrong
            errors.append(exc)
        finally:
            thread_connection.close()

    threads = [threading.Thread(target=undo) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(undone) == ["object-store", "ray-actor"]
    assert list(CardState.objects.filter(user=alice).values_list("card__slug", flat=True)) == [
        "ray-task"
    ]
