"""The stats page's calibration scores a model that never saw the reviews it scores: FSRS's
defaults, or the learner's parameters fitted by the worker on the reviews before the held-out
split only (MemoryFit.holdout_parameters), never the full fit (the planner's), which has seen
them. Parameters are stored in MemoryFit directly where the test is about which ones
calibration picks; the worker's own fit is fsrs-rs-python's optimizer."""

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card, Section
from apps.interview import fitting
from apps.interview import plan as interview
from apps.study import memory
from apps.study.memory import MemoryModel, Review
from apps.study.models import MemoryFit, ReviewLog
from tests.queries import queries_of_get

pytestmark = pytest.mark.django_db

STATS = "/study/stats/"
NEEDS_OPTIMIZER = pytest.mark.skipif(
    not memory.optimizer_available(), reason="fsrs-rs-python's optimizer is always there"
)


def _params(decay: float, first: float) -> list[float]:
    """FSRS's defaults with another forgetting-curve decay and initial stabilities times
    `first`: two such sets predict the same history very differently."""
    p = list(memory.DEFAULT_PARAMETERS)
    p[:4] = [w * first for w in p[:4]]
    p[20] = decay
    return p


FULL = _params(0.1, 5.0)  # what a fit on every review would store (the planner's)
HELD = _params(0.6, 0.5)  # what the fit on the reviews before the split would store


def _history(user, deck, cards=100, seed=7):
    """`cards` cards of `deck`, each reviewed 4 times over 40 days, a few minutes apart from
    card to card (no two reviews at one moment), some forgotten."""
    section = Section.objects.get(deck=deck, slug="ray-core")
    have = deck.cards.count()
    Card.objects.bulk_create(
        Card(
            deck=deck,
            section=section,
            slug=f"h-{have + i}",
            order=200 + have + i,
            front=f"Q{i}",
            back="A",
        )
        for i in range(max(0, cards - have))
    )
    rng = random.Random(seed)
    start = timezone.now() - timedelta(days=45)
    logs = []
    for i, card in enumerate(deck.cards.order_by("id")[:cards]):
        for d in (0, 2 + i % 5, 9 + i % 7, 25 + i % 11):
            logs.append(
                ReviewLog(
                    user=user, card=card, grade=rng.choice((1, 3, 4, 4, 4, 5)), kind="review",
                    state_after={}, reviewed_at=start + timedelta(days=d, minutes=3 * i),
                )
            )  # fmt: skip
    ReviewLog.objects.bulk_create(logs)


def _reviews(user) -> list[Review]:
    return [r for r, _ in fitting.reviews_of(user)]


def test_the_split_is_the_first_of_the_latest_30_percent_of_scored_reviews():
    t0 = timezone.now() - timedelta(days=100)
    reviews = [
        Review(card, 4, t0 + timedelta(days=d, minutes=card))
        for card in range(1, 21)
        for d in (0, 0, 3, 10)  # a first sight, a same-day re-drill, then two that qualify
    ]
    split = memory.holdout_split(reviews)
    qualifying = sorted(t0 + timedelta(days=d, minutes=c) for c in range(1, 21) for d in (3, 10))
    assert split == qualifying[40 - 12]  # 30% of 40
    cal = memory.calibration(reviews, MemoryModel())
    assert (cal.split, cal.test_start, cal.count) == (split, split, 12)
    # The split is in the times only: any parameters score the same reviews.
    assert memory.calibration(reviews, MemoryModel(HELD)).count == 12
    assert memory.holdout_split(reviews[:2]) is None  # a first sight and a re-drill: none


def test_a_fitted_learner_is_scored_with_the_held_out_parameters(alice, small_deck):
    _history(alice, small_deck)
    reviews = _reviews(alice)
    split = memory.holdout_split(reviews)
    MemoryFit.objects.create(
        user=alice, parameters=FULL, holdout_parameters=HELD, holdout_split_at=split,
        reviews=len(reviews), fitted_at=timezone.now(),
    )  # fmt: skip
    cal = fitting.calibration(alice)
    held = memory.calibration(reviews, MemoryModel(HELD), split=split)
    in_sample = memory.calibration(reviews, MemoryModel(FULL), split=split)
    assert (cal.model, cal.split, cal.test_start, cal.count) == ("holdout", split, split, 90)
    assert cal.log_loss == pytest.approx(held.log_loss)
    assert abs(cal.log_loss - in_sample.log_loss) > 0.01  # the full fit would score otherwise
    # The planner keeps the full fit: it is the better guess of the future.
    assert interview._model(alice)[0].parameters == tuple(FULL)


def test_reviews_after_the_fit_are_held_out_too(alice, small_deck):
    """Scored from the split the fit left out, so a review made since the fit counts, and a
    split that moved earlier (an undone review) can never bring trained-on reviews in."""
    _history(alice, small_deck)
    reviews = _reviews(alice)
    split = memory.holdout_split(reviews)
    MemoryFit.objects.create(
        user=alice, parameters=FULL, holdout_parameters=HELD, holdout_split_at=split, reviews=400
    )
    before = fitting.calibration(alice).count
    card = small_deck.cards.order_by("id").first()
    ReviewLog.objects.create(
        user=alice, card=card, grade=4, kind="review", state_after={}, reviewed_at=timezone.now()
    )
    assert fitting.calibration(alice).count == before + 1
    ReviewLog.objects.filter(reviewed_at__gte=split).update(undone_at=timezone.now())
    assert fitting.calibration(alice) is None  # nothing left after the split to score


def test_an_old_fit_without_held_out_parameters_is_scored_with_the_defaults(alice, small_deck):
    _history(alice, small_deck)
    reviews = _reviews(alice)
    # A row from before held-out fits: the full parameters only, fitted on every review.
    MemoryFit.objects.create(user=alice, parameters=FULL, reviews=len(reviews))
    cal = fitting.calibration(alice)
    defaults = memory.calibration(reviews, MemoryModel())
    assert (cal.model, cal.defaults_reason) == ("defaults", fitting.FITTED_ON_ALL)
    assert cal.log_loss == pytest.approx(defaults.log_loss)
    assert cal.split == memory.holdout_split(reviews)
    # due for a refit whatever the number of reviews since (the optimizer aside)
    row = MemoryFit.objects.filter(user=alice).values(*fitting.FIT_FIELDS).get()
    assert fitting._fit_due(row, len(reviews))
    row["holdout_split_at"] = cal.split
    assert not fitting._fit_due(row, len(reviews))


@NEEDS_OPTIMIZER
def test_an_old_fit_is_due_for_a_refit_and_the_stats_page_asks_for_it(
    client, alice, small_deck, django_capture_on_commit_callbacks
):
    _history(alice, small_deck, cards=130)  # 520 reviews: over FIT_MIN_REVIEWS
    MemoryFit.objects.create(user=alice, parameters=FULL, reviews=520)
    assert fitting.memory_fit_due(alice)
    client.force_login(alice)
    with django_capture_on_commit_callbacks() as asked:
        client.get(STATS)
    assert len(asked) == 1
    MemoryFit.objects.filter(user=alice).update(holdout_split_at=timezone.now())
    assert not fitting.memory_fit_due(alice)  # a held-out fit from 520 reviews: not yet
    with django_capture_on_commit_callbacks() as asked:
        client.get(STATS)
    assert asked == []


def test_too_few_reviews_before_the_split_scores_the_defaults_from_that_split(alice, small_deck):
    _history(alice, small_deck)
    reviews = _reviews(alice)
    split = memory.holdout_split(reviews)
    MemoryFit.objects.create(
        user=alice, parameters=FULL, holdout_parameters=[], holdout_split_at=split, reviews=400
    )
    cal = fitting.calibration(alice)
    assert (cal.model, cal.defaults_reason, cal.split) == ("defaults", fitting.TOO_FEW, split)
    assert cal.log_loss == pytest.approx(memory.calibration(reviews, MemoryModel()).log_loss)


def test_no_fit_scores_the_defaults(alice, small_deck):
    _history(alice, small_deck)
    cal = fitting.calibration(alice)
    assert (cal.model, cal.defaults_reason) == ("defaults", fitting.NOT_FITTED)


def test_the_worker_stores_the_split_calibration_uses(alice, small_deck):
    """With the optimizer or without: the stored split is memory.holdout_split of the reviews
    the fit read, and the attempt is recorded, so no refit is asked for before 20% more."""
    _history(alice, small_deck)
    fitting.memory_fit_run(user_id=alice.pk)
    fit = MemoryFit.objects.get(user=alice)
    reviews = _reviews(alice)
    assert fit.holdout_split_at == memory.holdout_split(reviews)
    assert fit.reviews == len(reviews) == 400 and fit.claimed_at is None
    # 400 reviews: under FIT_MIN_REVIEWS, so the optimizer moves off nothing
    assert fit.parameters == [] and fit.holdout_parameters == []
    row = MemoryFit.objects.filter(user=alice).values(*fitting.FIT_FIELDS).get()
    assert not fitting._fit_due(row, 400) and fitting._fit_due(row, 480)
    # A second task asked for before the first ran finds nothing due and leaves the row.
    fitted = MemoryFit.objects.values().get(user=alice)
    assert fitting.memory_fit_run(user_id=alice.pk) is False
    assert MemoryFit.objects.values().get(user=alice) == fitted


def test_a_held_out_fit_cut_off_by_the_time_limit_keeps_the_full_fit(
    alice, small_deck, monkeypatch
):
    """Celery's soft time limit can land in the second of the worker's two fits (an external
    event, raised here at the optimizer's edge): the full fit and the attempt are kept, so the
    pages do not ask for a refit on every view, and the stats page scores the defaults."""
    from celery.exceptions import SoftTimeLimitExceeded

    _history(alice, small_deck)
    fits = iter([tuple(FULL), SoftTimeLimitExceeded()])

    def fit(reviews, zone=None):
        step = next(fits)
        if isinstance(step, BaseException):
            raise step
        return step

    monkeypatch.setattr(memory, "fit_parameters", fit)
    with pytest.raises(SoftTimeLimitExceeded):
        fitting.memory_fit_run(user_id=alice.pk)
    fit_row = MemoryFit.objects.get(user=alice)
    assert fit_row.parameters == FULL and fit_row.reviews == 400 and fit_row.claimed_at is None
    assert fit_row.holdout_split_at == memory.holdout_split(_reviews(alice))
    assert fit_row.holdout_parameters == []
    row = MemoryFit.objects.filter(user=alice).values(*fitting.FIT_FIELDS).get()
    assert not fitting._fit_due(row, 400)
    cal = fitting.calibration(alice)
    assert cal is None or cal.model == "defaults"


@NEEDS_OPTIMIZER
def test_the_worker_fits_without_the_held_out_reviews(alice, small_deck):
    """The real optimizer on a learner with enough reviews: the held-out fit differs from the
    full one, the stats page scores it from the stored split, and it is not the in-sample
    score the full fit would get. Two fits: tens of seconds."""
    _history(alice, small_deck, cards=400, seed=3)  # 1,600 reviews
    assert fitting.memory_fit_run(user_id=alice.pk)
    fit = MemoryFit.objects.get(user=alice)
    reviews = _reviews(alice)
    assert fit.holdout_split_at == memory.holdout_split(reviews)
    assert fit.holdout_parameters, "the reviews before the split were too few to fit"
    assert fit.holdout_parameters != fit.parameters
    cal = fitting.calibration(alice)
    assert (cal.model, cal.test_start) == ("holdout", fit.holdout_split_at)
    in_sample = memory.calibration(reviews, MemoryModel(fit.parameters), split=cal.split)
    assert cal.count == in_sample.count and cal.log_loss != in_sample.log_loss


@pytest.mark.parametrize(
    ("row", "says"),
    [
        (None, "FSRS defaults (your own parameters are not fitted yet)."),
        ({"parameters": FULL}, "FSRS defaults. Your own parameters were fitted on all your"),
        ({"parameters": FULL, "holdout_parameters": []}, "are too few to fit your own"),
        (
            {"parameters": FULL, "holdout_parameters": HELD},
            "your parameters, fitted without the reviews scored here (on your reviews before",
        ),
    ],
)
def test_the_stats_page_says_which_model_it_scored_on_how_many_reviews_since_when(
    client, alice, small_deck, row, says
):
    _history(alice, small_deck)
    reviews = _reviews(alice)
    split = memory.holdout_split(reviews)
    if row is not None:
        if "holdout_parameters" in row:
            row = {**row, "holdout_split_at": split}
        MemoryFit.objects.create(user=alice, reviews=len(reviews), **row)
    client.force_login(alice)
    html = client.get(STATS).content.decode()
    model = html[html.index('id="calibration-model"') :].split("</p>")[0]
    assert says in model
    since = timezone.localtime(split, profile_for(alice).zone).strftime("%-d %b %Y")
    assert f"on your latest 90 reviews that came a day or more after the previous one " \
           f"(held out, since {since})" in html  # fmt: skip
    if "holdout_parameters" in (row or {}):
        assert f"before {since}" in model


def test_calibration_is_two_queries_and_the_stats_page_costs_no_more_for_a_fit(
    client, alice, small_deck, django_assert_num_queries
):
    """Two queries (the fit row, the reviews) for the calibration and whether a refit is due;
    the stats page of a small history (scored on each view) has the count of reviews besides,
    whatever the fit row says and the number of reviews. (A big history's page:
    tests/interview/test_calibration_stored.py.)"""
    _history(alice, small_deck, cards=20)
    client.force_login(alice)
    counts = [queries_of_get(client, STATS)]
    _history(alice, small_deck, cards=100, seed=8)
    counts.append(queries_of_get(client, STATS))
    MemoryFit.objects.create(user=alice, parameters=FULL, reviews=10)
    counts.append(queries_of_get(client, STATS))
    MemoryFit.objects.filter(user=alice).update(
        holdout_parameters=HELD, holdout_split_at=memory.holdout_split(_reviews(alice))
    )
    counts.append(queries_of_get(client, STATS))
    # session, user, profile; selectors.stats' 7 (pinned in test_pages); the fit row, the count
    # of reviews (inline or stored, and whether a refit is due) and the reviews; the leeches;
    # the code exercises (none here). Asking for a refit is on_commit, no query.
    assert counts == [15] * 4, counts
    with django_assert_num_queries(2):
        cal, _ = fitting.calibration_and_fit_due(alice)
    assert cal.model == "holdout"
    with CaptureQueriesContext(connection) as ctx:
        client.get(STATS)
    assert sum("study_memoryfit" in q["sql"] for q in ctx.captured_queries) == 1
