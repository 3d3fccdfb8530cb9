"""Each card state keeps its FSRS memory, written in the review's own transaction and put back
by undo; plan-mode reviews change it and nothing of SM-2's; the backfill (migration 0008, the
command) and the worker's refit work it out from the review log; nothing else replays."""

import importlib
from datetime import timedelta

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command
from django.utils import timezone

from apps.interview import fitting
from apps.interview.models import StudyPlan
from apps.study import grading, memory, services
from apps.study.memory import MemoryModel
from apps.study.models import CardState, MemoryFit, ReviewLog

pytestmark = pytest.mark.django_db
MODEL = MemoryModel()


def card(deck, slug="ray-task"):
    return deck.cards.get(slug=slug)


def state(user, c) -> CardState:
    return CardState.objects.get(user=user, card=c)


def test_a_review_stores_the_memory_it_leaves_and_the_one_before(alice, small_deck):
    task, t0 = card(small_deck), timezone.now() - timedelta(days=9)
    log1, _ = services.review_record(user=alice, card=task, grade=4, now=t0)
    first = MODEL.reviewed(None, 4, t0.date())
    assert state(alice, task).memory == first and log1.memory_before == {}
    log2, _ = services.review_record(user=alice, card=task, grade=1, now=t0 + timedelta(days=3))
    assert log2.memory_before == first.as_json()
    assert state(alice, task).memory == MODEL.reviewed(first, 1, (t0 + timedelta(days=3)).date())


def test_undo_puts_the_memory_back(alice, small_deck):
    task, t0 = card(small_deck), timezone.now() - timedelta(days=9)
    services.review_record(user=alice, card=task, grade=4, now=t0)
    before = state(alice, task).memory
    services.review_record(user=alice, card=task, grade=1, now=t0 + timedelta(days=3))
    assert state(alice, task).memory != before
    services.review_undo(user=alice)
    assert state(alice, task).memory == before
    services.review_undo(user=alice)  # the first sight: the card is new again
    assert not CardState.objects.filter(user=alice, card=task).exists()


def test_undo_of_a_review_made_before_memories_were_stored_works_it_out(alice, small_deck):
    task, t0 = card(small_deck), timezone.now() - timedelta(days=9)
    services.review_record(user=alice, card=task, grade=4, now=t0)
    services.review_record(user=alice, card=task, grade=3, now=t0 + timedelta(days=2))
    services.review_record(user=alice, card=task, grade=1, now=t0 + timedelta(days=5))
    ReviewLog.objects.update(memory_before=None)  # as migration 0008 leaves old logs
    services.review_undo(user=alice)
    want = MODEL.reviewed(MODEL.reviewed(None, 4, t0.date()), 3, (t0 + timedelta(days=2)).date())
    assert state(alice, task).memory == want


def test_a_plan_mode_review_changes_the_memory_and_nothing_of_sm2(alice, small_deck):
    task, t0 = card(small_deck), timezone.now() - timedelta(days=2)
    services.review_record(user=alice, card=task, grade=5, now=t0)  # due in 1 day... then 6
    services.review_record(user=alice, card=task, grade=5, now=t0 + timedelta(days=1))
    profile = alice.profile
    profile.interview_date = timezone.localdate() + timedelta(days=10)
    profile.save()
    sm2 = state(alice, task).schedule
    memory_before = state(alice, task).memory
    log, created = grading.plan_review_record(user=alice, card=task, grade=4)
    assert created and log.kind == "plan" and log.memory_before == memory_before.as_json()
    assert state(alice, task).schedule == sm2
    assert state(alice, task).memory == MODEL.reviewed(memory_before, 4, timezone.localdate())
    services.review_undo(user=alice)
    assert state(alice, task).memory == memory_before and state(alice, task).schedule == sm2


def test_a_review_whose_memory_update_fails_leaves_no_half_state(alice, small_deck, monkeypatch):
    task, t0 = card(small_deck), timezone.now() - timedelta(days=3)
    services.review_record(user=alice, card=task, grade=4, now=t0)
    row = CardState.objects.filter(user=alice).values().get()

    def broken(self, memory_, grade, day):
        raise RuntimeError("the memory model failed")

    monkeypatch.setattr(MemoryModel, "reviewed", broken)
    with pytest.raises(RuntimeError):
        services.review_record(user=alice, card=task, grade=4)
    with pytest.raises(RuntimeError):
        services.review_record(user=alice, card=card(small_deck, "ray-actor"), grade=4)
    assert CardState.objects.filter(user=alice).values().get() == row
    assert ReviewLog.objects.filter(user=alice).count() == 1


def _history_without_memories(user, deck):
    """Each card reviewed a few times when SM-2 makes it due (a miss and a re-drill on the way),
    then the stored memories emptied, as before migration 0008."""
    t0 = timezone.now() - timedelta(days=60)
    for n, c in enumerate(deck.cards.order_by("id")):
        at = t0 + timedelta(minutes=n)
        for grade in [1, 4, 4, 3, 5, 4][: 2 + n]:
            if at > timezone.now():
                break
            services.review_record(user=user, card=c, grade=grade, now=at)
            at = max(state(user, c).due_at, at + timedelta(minutes=10))
    want = {s.card_id: s.memory for s in CardState.objects.filter(user=user)}
    CardState.objects.filter(user=user).update(stability=None, difficulty=None, memory_day=None)
    return want


def test_the_backfill_command_works_out_what_the_reviews_stored(alice, bob, small_deck):
    want = _history_without_memories(alice, small_deck)
    services.review_record(user=bob, card=card(small_deck), grade=4)
    call_command("study_memory_fill", verbosity=0)
    assert {s.card_id: s.memory for s in CardState.objects.filter(user=alice)} == want
    assert state(bob, card(small_deck)).memory == MODEL.reviewed(None, 4, timezone.localdate())


def test_the_migration_fills_with_its_historical_models(alice, small_deck):
    want = _history_without_memories(alice, small_deck)
    migration = importlib.import_module("apps.study.migrations.0010_card_state_memory")
    migration.fill(django_apps, None)
    assert {s.card_id: s.memory for s in CardState.objects.filter(user=alice)} == want


def test_a_refit_works_the_memories_out_again_and_re_plans(alice, small_deck, monkeypatch):
    _history_without_memories(alice, small_deck)
    call_command("study_memory_fill", verbosity=0)
    own = list(memory.DEFAULT_PARAMETERS)
    own[0], own[20] = 0.5, 0.3
    monkeypatch.setattr(memory, "FIT_MIN_REVIEWS", 1)
    monkeypatch.setattr(memory, "fit_parameters", lambda reviews, zone=None: tuple(own))
    StudyPlan.objects.create(user=alice, key="old", built_at=timezone.now())
    assert fitting.memory_fit_run(user_id=alice.pk)
    assert MemoryFit.objects.get(user=alice).parameters == own
    model = MemoryModel(own)
    zone = alice.profile.zone
    for row in CardState.objects.filter(user=alice):
        history = ReviewLog.objects.filter(user=alice, card_id=row.card_id).order_by("reviewed_at")
        days = [
            (g, at.astimezone(zone).date()) for g, at in history.values_list("grade", "reviewed_at")
        ]
        assert row.memory == model.replayed(days)
    assert not StudyPlan.objects.filter(user=alice).exists()
