"""The queue's one exception to the public ORM (apps.study.compiled_sql): SQL compiled once per
shape and run with fresh parameters gives exactly what the queryset compiled afresh gives, for
every learner, deck, day, limit and kind of card the queue story meets."""

from datetime import timedelta

import pytest
from django.db import DEFAULT_DB_ALIAS, connections

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.study import compiled_sql, queue
from apps.study.models import CardState
from tests.study.test_queue import T0, other_deck, queue_story

pytestmark = pytest.mark.django_db


def seen_model(obj):
    """A model row's values; a plain value (None, QueueCard, QueueState) as it is."""
    if obj is None or isinstance(obj, tuple):
        return obj
    return tuple(getattr(obj, f.attname) for f in obj._meta.concrete_fields)


def seen(q: queue.Queue) -> tuple:
    """Everything a queue shows, model rows reduced to their values."""
    values = seen_model
    items = [(i.kind, values(i.card), values(i.state)) for i in q.items]
    section = [getattr(i.card, "section", None) for i in q.items]
    return items, [values(s) for s in section], q.counts, q.limits, q.now


def both(monkeypatch, *args, **kwargs) -> tuple[tuple, tuple]:
    """The queue from the cached SQL (compiled earlier, maybe for another learner or day) and
    from the queryset compiled afresh."""
    cached = seen(queue.queue(*args, **kwargs))
    with monkeypatch.context() as patch:
        patch.setattr(compiled_sql, "CACHE_SQL", False)
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


def test_sm2s_queue_is_the_cached_one_whatever_the_date(alice, small_deck):
    """SM-2's queue knows nothing of an interview date (the interview's choice comes from the
    caller, `queue.Chosen`): with a date it is SM-2's, from the cached statements."""
    profile = profile_for(alice)
    profile.interview_date = (T0 + timedelta(days=10)).date()
    profile.save()
    connections[DEFAULT_DB_ALIAS].__dict__.pop("_study_queue_sql", None)
    q = queue.queue(alice, small_deck, now=T0)
    assert q.scheduler == "sm2" and "plan" not in q.counts
    assert connections[DEFAULT_DB_ALIAS].__dict__.get("_study_queue_sql")


def test_the_cache_is_one_statement_per_shape(alice, small_deck, django_assert_num_queries):
    queue.queue(alice, small_deck, now=T0)  # compiled here
    with django_assert_num_queries(1):
        again = queue.queue(alice, small_deck, now=T0 + timedelta(days=1))
    assert [i.kind for i in again.items] == ["new"] * 5


@pytest.mark.parametrize("whole", [True, False])
def test_the_next_cards_are_the_model_rows_select_related_reads(
    alice, small_deck, whole, django_assert_num_queries
):
    """The review page's items are built from values (Model.from_db): the same states, cards
    and sections a select_related queryset reads, with nothing left to load."""
    deck = None if whole else small_deck
    other = other_deck()
    now = T0 + timedelta(days=3)
    for _ in queue_story(alice, small_deck, other, now):
        for size in (1, 3):
            q = queue.queue(alice, deck, size=size, now=now)
            with django_assert_num_queries(0):
                got = seen(q)
            for item, (_, card, state), section in zip(q.items, got[0], got[1], strict=True):
                if item.state is not None:
                    read = CardState.objects.select_related("card", "card__section")
                    want = read.get(pk=item.state.pk)
                    assert state == seen_model(want)
                    assert (card, section) == (seen_model(want.card), seen_model(want.card.section))
                else:
                    want = Card.objects.select_related("section").get(pk=item.card.pk)
                    assert (card, section) == (seen_model(want), seen_model(want.section))
