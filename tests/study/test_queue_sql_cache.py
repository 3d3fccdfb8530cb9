"""The queue's one exception to the public ORM (apps.study.queue._rows): SQL compiled once per
shape and run with fresh parameters gives exactly what the queryset compiled afresh gives, for
every learner, deck, day, limit and kind of card the queue story meets."""

from datetime import timedelta

import pytest
from django.db import DEFAULT_DB_ALIAS, connections

from apps.accounts.models import profile_for
from apps.study import queue
from tests.study.test_queue import T0, other_deck, queue_story

pytestmark = pytest.mark.django_db


def seen(q: queue.Queue) -> tuple:
    """Everything a queue shows, model rows reduced to their values."""

    def values(obj):
        if obj is None or isinstance(obj, tuple):  # a new card's state; QueueCard, QueueState
            return obj
        return tuple(getattr(obj, f.attname) for f in obj._meta.concrete_fields)

    items = [(i.kind, values(i.card), values(i.state)) for i in q.items]
    section = [getattr(i.card, "section", None) for i in q.items]
    return items, [values(s) for s in section], q.counts, q.limits, q.now


def both(monkeypatch, *args, **kwargs) -> tuple[tuple, tuple]:
    """The queue from the cached SQL (compiled earlier, maybe for another learner or day) and
    from the queryset compiled afresh."""
    cached = seen(queue.queue(*args, **kwargs))
    with monkeypatch.context() as patch:
        patch.setattr(queue, "CACHE_SQL", False)
        fresh = seen(queue.queue(*args, **kwargs))
    return cached, fresh


@pytest.mark.parametrize("whole", [True, False])
def test_the_cached_sql_gives_what_the_queryset_gives(alice, bob, small_deck, whole, monkeypatch):
    connections[DEFAULT_DB_ALIAS].__dict__.pop("_study_queue_sql", None)
    deck = None if whole else small_deck
    other = other_deck()
    now = T0 + timedelta(days=3)
    for step in queue_story(alice, small_deck, other, now):
        for user in (alice, bob):
            for when in (now, now + timedelta(hours=20), now - timedelta(days=4)):
                for size in (None, 1, 3):
                    cached, fresh = both(monkeypatch, user, deck, size=size, now=when)
                    assert cached == fresh, (step, user.username, when, size)
                avoid = cached[0][0][1][0] if cached[0] else None
                cached, fresh = both(monkeypatch, user, deck, size=1, avoid=avoid, now=when)
                assert cached == fresh, (step, user.username, when, "avoid")
    assert connections[DEFAULT_DB_ALIAS].__dict__["_study_queue_sql"]  # it was used


def test_a_learner_with_an_interview_plan_is_served_by_the_queryset(alice, small_deck):
    """The plan's card ids vary in number: that queue is not cached, and still right."""
    profile = profile_for(alice)
    profile.interview_date = (T0 + timedelta(days=10)).date()
    profile.save()
    connections[DEFAULT_DB_ALIAS].__dict__.pop("_study_queue_sql", None)
    q = queue.queue(alice, small_deck, now=T0)
    assert "plan" in q.counts
    assert not connections[DEFAULT_DB_ALIAS].__dict__.get("_study_queue_sql")


def test_the_cache_is_one_statement_per_shape(alice, small_deck, django_assert_num_queries):
    queue.queue(alice, small_deck, now=T0)  # compiled here
    with django_assert_num_queries(1):
        again = queue.queue(alice, small_deck, now=T0 + timedelta(days=1))
    assert [i.kind for i in again.items] == ["new"] * 5
