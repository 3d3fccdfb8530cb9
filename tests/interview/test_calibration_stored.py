"""A big history's calibration is scored by the worker and stored (MemoryFit.calibration), and
the stats page shows it as of when and over how many reviews; a small one is scored on each
view. Here "big" is any history over fitting.CALIBRATION_INLINE_MAX, set low (100 reviews) so a
400-review story is big; the pages' cost at 80,000 reviews is bench/stats_page.py's."""

from dataclasses import replace
from datetime import timedelta

import pytest
from django.utils import timezone
from kombu import Queue

from apps.interview import fitting
from apps.interview.tasks import calibration_refresh_task
from apps.study import memory
from apps.study.models import MemoryFit, ReviewLog
from config.celery import app
from tests.demos.test_pages_api import broker_down  # noqa: F401  (fixture)
from tests.interview.test_calibration_holdout import FULL, HELD, NEEDS_OPTIMIZER, _history, _reviews
from tests.queries import queries_of_get

pytestmark = pytest.mark.django_db

STATS = "/study/stats/"


@pytest.fixture
def big(monkeypatch):
    """Histories over 100 reviews count as big: the page reads the stored score."""
    monkeypatch.setattr(fitting, "CALIBRATION_INLINE_MAX", 100)


def _stored(user) -> memory.Calibration | None:
    return fitting._calibration_from_json(MemoryFit.objects.get(user=user).calibration)


def _inline(user) -> memory.Calibration | None:
    cal = fitting.calibration(user)
    return cal and replace(cal, test_pairs=())


def _more_reviews(user, deck, n: int) -> None:
    """`n` reviews made now, of the deck's first cards."""
    cards = list(deck.cards.order_by("id")[:n])
    ReviewLog.objects.bulk_create(
        ReviewLog(user=user, card=card, grade=4, kind="review", state_after={},
                  reviewed_at=timezone.now() - timedelta(minutes=i))
        for i, card in enumerate(cards)
    )  # fmt: skip


def _sent_refresh(user_id: int) -> list:
    """Take the refresh tasks for this learner off the real broker's default queue (none of
    the suite's workers reads it while the tests run); their arguments."""
    found = []
    with app.connection_for_read() as conn, conn.SimpleQueue(Queue("celery")) as q:
        while True:
            try:
                message = q.get(timeout=1)
            except q.Empty:
                return found
            message.ack()
            args = message.payload[0]
            if message.headers["task"] == calibration_refresh_task.name and args == [user_id]:
                found.append(args)


@pytest.mark.parametrize(
    "row",
    [
        None,
        {"parameters": FULL},
        {"parameters": FULL, "holdout_parameters": []},
        {"parameters": FULL, "holdout_parameters": HELD},
    ],
    ids=["no fit", "fitted on all", "too few before the split", "held-out fit"],
)
def test_the_stored_calibration_is_the_one_the_page_would_compute(alice, small_deck, row):
    _history(alice, small_deck)
    if row is not None:
        if "holdout_parameters" in row:
            row = {**row, "holdout_split_at": memory.holdout_split(_reviews(alice))}
        MemoryFit.objects.create(user=alice, reviews=400, **row)
    assert fitting.calibration_refresh_run(user_id=alice.pk) is True
    fit = MemoryFit.objects.get(user=alice)
    assert (fit.calibration_reviews, fit.claimed_at, fit.calibration_asked_at) == (400, None, None)
    stored = _stored(alice)
    assert stored == _inline(alice) and stored.count == 90
    # Fresh now: a second run (a duplicate ask) leaves it as it is.
    assert fitting.calibration_refresh_run(user_id=alice.pk) is False
    assert MemoryFit.objects.get(user=alice).calibrated_at == fit.calibrated_at


def test_the_fit_stores_the_calibration_it_leaves(alice, small_deck):
    """After a fit the stored score is the one of the new parameters and split: the worker's
    fit (400 reviews: an attempt that stays on the defaults, with its split)."""
    _history(alice, small_deck)
    fitting.memory_fit_run(user_id=alice.pk)
    fit = MemoryFit.objects.get(user=alice)
    assert fit.holdout_split_at is not None and fit.calibration_reviews == 400
    assert _stored(alice) == _inline(alice)
    assert _stored(alice).defaults_reason == fitting.NOT_FITTED
    assert fitting.calibration_refresh_run(user_id=alice.pk) is False  # fresh


@NEEDS_OPTIMIZER
def test_a_real_fit_stores_the_held_out_score(alice, small_deck):
    """The optimizer on 1,600 reviews (tens of seconds): the stored score is the held-out
    parameters', the same as the page computes."""
    _history(alice, small_deck, cards=400, seed=3)
    assert fitting.memory_fit_run(user_id=alice.pk)
    assert _stored(alice).model == memory.HOLDOUT
    assert _stored(alice) == _inline(alice)


def test_a_small_history_is_scored_on_each_view(client, alice, small_deck):
    _history(alice, small_deck)
    MemoryFit.objects.create(user=alice, reviews=400, calibration=None, calibration_reviews=400,
                             calibrated_at=timezone.now(), calibration_key="old")  # fmt: skip
    client.force_login(alice)
    html = client.get(STATS).content.decode()
    assert 'id="calibration-as-of"' not in html
    assert "on your latest 90 reviews" in html  # scored now, not the stored "none"
    _more_reviews(alice, small_deck, 5)  # each a day or more after its card's last: scored
    now = fitting.calibration(alice).count
    assert now != 90 and f"on your latest {now} reviews" in client.get(STATS).content.decode()


def test_a_big_history_shows_the_stored_score_and_asks_once_when_it_is_stale(
    client, alice, small_deck, big, django_capture_on_commit_callbacks
):
    _history(alice, small_deck)
    MemoryFit.objects.create(user=alice, reviews=400)
    client.force_login(alice)
    # None stored yet: the page says so, and asks the worker once, however many views.
    with django_capture_on_commit_callbacks(execute=True) as asked:
        first = client.get(STATS).content.decode()
        second = client.get(STATS).content.decode()
    assert len(asked) == 1 and _sent_refresh(alice.pk) == [[alice.pk]]
    for html in (first, second):
        assert "Being computed: your 400 reviews are scored in the background" in html
        assert "on your latest" not in html
    # The worker runs the task it was sent.
    assert calibration_refresh_task.apply(args=[alice.pk]).get() is True
    fit = MemoryFit.objects.get(user=alice)
    when = timezone.localtime(fit.calibrated_at).strftime("%-d %b %Y, %H:%M")
    with django_capture_on_commit_callbacks() as asked:
        html = client.get(STATS).content.decode()
    assert asked == []  # fresh: nothing to ask
    assert f"As of {when}, over 400 reviews." in html
    assert "on your latest 90 reviews" in html

    # A few more reviews (under 5%): still the stored score, not asked again.
    _more_reviews(alice, small_deck, 5)
    with django_capture_on_commit_callbacks() as asked:
        html = client.get(STATS).content.decode()
    assert asked == [] and "over 400 reviews." in html

    # 5% more: stale. The stored score is shown meanwhile; two views ask once.
    _more_reviews(alice, small_deck, 15)
    with django_capture_on_commit_callbacks(execute=True) as asked:
        html = client.get(STATS).content.decode()
        client.get(STATS)
    assert len(asked) == 1 and _sent_refresh(alice.pk) == [[alice.pk]]
    assert "over 400 reviews (you have 420 now: a fresh score is being computed)." in html
    assert calibration_refresh_task.apply(args=[alice.pk]).get() is True
    assert calibration_refresh_task.apply(args=[alice.pk]).get() is False  # a duplicate
    assert _stored(alice) == _inline(alice)
    assert "over 420 reviews." in client.get(STATS).content.decode()


def test_new_parameters_make_the_stored_score_stale(client, alice, small_deck, big):
    """The key, not the count: the same reviews scored with other parameters (a fit cut off
    after the full one, whose score the worker never stored) are asked for again."""
    _history(alice, small_deck)
    MemoryFit.objects.create(user=alice, reviews=400)
    fitting.calibration_refresh_run(user_id=alice.pk)
    assert not fitting.stats_calibration(alice).refresh
    split = memory.holdout_split(_reviews(alice))
    MemoryFit.objects.filter(user=alice).update(
        parameters=FULL, holdout_parameters=HELD, holdout_split_at=split
    )
    shown = fitting.stats_calibration(alice)
    assert shown.refresh and shown.calibration.model == memory.DEFAULTS  # the stored one
    assert fitting.calibration_refresh_run(user_id=alice.pk) is True
    assert _stored(alice).model == memory.HOLDOUT and _stored(alice) == _inline(alice)


def test_a_refresh_waits_for_a_fit_running_for_the_learner(alice, small_deck, big):
    _history(alice, small_deck)
    MemoryFit.objects.create(user=alice, reviews=400, claimed_at=timezone.now())
    assert fitting.calibration_refresh_run(user_id=alice.pk) is False
    assert MemoryFit.objects.get(user=alice).calibration_reviews is None


def test_a_refresh_the_broker_did_not_take_is_asked_for_again(
    client,
    alice,
    small_deck,
    big,
    broker_down,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    _history(alice, small_deck)
    MemoryFit.objects.create(user=alice, reviews=400)
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True) as asked:
        assert client.get(STATS).status_code == 200
    assert len(asked) == 1
    assert MemoryFit.objects.get(user=alice).calibration_asked_at is None
    with django_capture_on_commit_callbacks() as asked:
        client.get(STATS)
    assert len(asked) == 1


def test_an_ask_the_worker_never_answered_is_made_again_later(alice, small_deck, big):
    _history(alice, small_deck)
    MemoryFit.objects.create(user=alice, reviews=400)
    assert fitting.calibration_ask(alice) is True
    assert fitting.calibration_ask(alice) is False
    MemoryFit.objects.filter(user=alice).update(
        calibration_asked_at=timezone.now() - fitting.CALIBRATION_ASK_AGAIN - timedelta(seconds=1)
    )
    assert fitting.calibration_ask(alice) is True


def test_a_big_history_without_a_fit_row_asks_for_the_fit(
    client, alice, small_deck, big, django_capture_on_commit_callbacks
):
    """No row yet: the fit makes it and stores a score, so the page asks for the fit only."""
    _history(alice, small_deck)
    client.force_login(alice)
    with django_capture_on_commit_callbacks() as asked:
        html = client.get(STATS).content.decode()
    assert len(asked) == 1 and "Being computed" in html
    fitting.memory_fit_run(user_id=alice.pk)
    assert _stored(alice) == _inline(alice)
    assert "over 400 reviews." in client.get(STATS).content.decode()


def test_the_stats_page_costs_the_same_queries_stored_or_not(client, alice, small_deck, big):
    """session, user, profile; selectors.stats' 7; the fit row and the count of reviews; the
    leeches; the code exercises: 14 with a fresh stored score (no review read), 15 when it
    asks for a refresh (the claim's UPDATE), asked already or not; a small history: 15 (its
    reviews; tests/interview/test_calibration_holdout.py)."""
    _history(alice, small_deck)
    MemoryFit.objects.create(user=alice, reviews=400)
    client.force_login(alice)
    client.get(STATS)  # the session's first request
    assert [queries_of_get(client, STATS) for _ in range(2)] == [15, 15]  # none stored yet
    fitting.calibration_refresh_run(user_id=alice.pk)
    assert queries_of_get(client, STATS) == 14
    _more_reviews(alice, small_deck, 20)  # stale
    assert [queries_of_get(client, STATS) for _ in range(2)] == [15, 15]
