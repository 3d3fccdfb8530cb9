"""The interview plan page: no date, no plan; with one, today's planned cards are reviewed (a card
SM-2 has not made due in plan mode, its schedule untouched) and the predicted recall moves."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card, Section
from apps.study import fitting, interview, memory, services
from apps.study.models import CardState, ReviewLog
from tests.queries import queries_of_get

pytestmark = pytest.mark.django_db
URL = "/study/plan/"


def plan_for(user, days=10, budget=5, target=90):
    profile = profile_for(user)
    profile.interview_date = timezone.localdate() + timedelta(days=days)
    profile.daily_budget_minutes = budget
    profile.target_recall = target
    profile.save()


def learn_all(user, deck, days_ago=8):
    """Every card of the deck learnt `days_ago` days ago, next due after the interview."""
    then = timezone.now() - timedelta(days=days_ago)
    for card in deck.cards.all():
        services.review_record(user=user, card=card, grade=5, now=then)
        CardState.objects.filter(user=user, card=card).update(
            due_at=timezone.now() + timedelta(days=40)
        )


def recall(html: str, name: str) -> int:
    return int(re.search(rf'id="{name}">(\d+)%', html).group(1))


def test_without_a_date_there_is_no_plan(client, alice, small_deck):
    client.force_login(alice)
    response = client.get(URL)
    assert "No interview date is set, so there is no plan" in response.content.decode()
    assert interview.interview_plan(alice) is None


def test_a_planned_card_that_is_not_due_is_reviewed_in_plan_mode(client, alice, small_deck):
    learn_all(alice, small_deck)
    plan_for(alice, days=1, budget=10, target=99)
    client.force_login(alice)
    page = client.get(URL).content.decode()
    assert "for your interview" in page
    before_now = recall(page, "recall-now")
    card_id = int(re.search(r'data-card="(\d+)"', page).group(1))
    state_before = CardState.objects.filter(user=alice, card_id=card_id).values().get()

    response = client.post(URL, {"card": card_id, "grade": 4}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    log = ReviewLog.objects.filter(user=alice).latest("id")
    assert (log.card_id, log.kind, log.grade) == (card_id, "plan", 4)
    assert log.state_before == log.state_after
    assert CardState.objects.filter(user=alice, card_id=card_id).values().get() == state_before
    assert recall(response.content.decode(), "recall-now") > before_now


def test_a_due_planned_card_is_a_normal_review(alice, small_deck):
    plan_for(alice)
    card = small_deck.cards.first()
    log, created = interview.plan_review_record(user=alice, card=card, grade=4)
    assert created and log.kind == "new"
    assert CardState.objects.get(user=alice, card=card).repetitions == 1


def test_plan_mode_needs_a_date_and_replays_a_client_id(alice, small_deck):
    card = small_deck.cards.first()
    with pytest.raises(interview.NoInterviewDate):
        interview.plan_review_record(user=alice, card=card, grade=4)
    learn_all(alice, small_deck)
    plan_for(alice)
    import uuid

    key = uuid.uuid4()
    first, created = interview.plan_review_record(user=alice, card=card, grade=4, client_id=key)
    again, created_again = interview.plan_review_record(
        user=alice, card=card, grade=4, client_id=key
    )
    assert created and not created_again and first.pk == again.pk


def test_a_bad_grade_changes_nothing(client, alice, small_deck):
    learn_all(alice, small_deck)
    plan_for(alice)
    client.force_login(alice)
    count = ReviewLog.objects.count()
    card = small_deck.cards.first()
    response = client.post(URL, {"card": card.pk, "grade": 7}, headers={"HX-Request": "true"})
    assert "grade: Ensure this value is less than or equal to 5." in response.content.decode()
    assert ReviewLog.objects.count() == count


def test_a_small_budget_says_by_how_much_and_which_sections(client, alice, small_deck):
    plan_for(alice, days=1, budget=1, target=95)
    client.force_login(alice)
    page = client.get(URL).content.decode()
    assert "Your budget cannot reach the target" in page
    assert "Ray core" in page.split('id="shortfall"')[1].split("</p>")[0]


def _grow(deck, n):
    section = Section.objects.get(deck=deck, slug="ray-core")
    Card.objects.bulk_create(
        Card(deck=deck, section=section, slug=f"extra-{i}", order=100 + i, front=f"Q{i}", back="A")
        for i in range(n)
    )


def test_the_plan_page_issues_the_same_queries_for_5_or_50_cards(client, alice, small_deck):
    learn_all(alice, small_deck)
    plan_for(alice)
    client.force_login(alice)
    client.get(URL)

    def count():
        return queries_of_get(client, URL)

    small = count()
    _grow(small_deck, 45)
    for card in small_deck.cards.filter(slug__startswith="extra-")[:20]:
        services.review_record(user=alice, card=card, grade=4)
    assert count() == small


def test_the_plan_page_query_count_is_pinned(client, alice, small_deck, django_assert_num_queries):
    learn_all(alice, small_deck)
    plan_for(alice)
    client.force_login(alice)
    client.get(URL)
    # session, user, profile; fitted parameters, states, cards, reviews; with the optimizer
    # installed (torch), the count of reviews that says whether a fit is due
    with django_assert_num_queries(7 + memory.optimizer_available()):
        client.get(URL)


def test_interview_readiness_for_the_team_pages(alice, bob, small_deck):
    learn_all(alice, small_deck, days_ago=2)
    plan_for(alice)
    result = interview.interview_readiness([alice.pk, bob.pk], deck_id=small_deck.pk, card_count=5)
    assert result[bob.pk].interview_date is None and result[bob.pk].predicted_recall is None
    assert result[alice.pk].interview_date == profile_for(alice).interview_date
    assert 0.5 < result[alice.pk].predicted_recall < 1


def test_the_plan_link_is_on_the_study_home_when_there_is_a_date(client, alice, small_deck):
    client.force_login(alice)
    assert reverse("study:plan") not in client.get(reverse("home")).content.decode()
    plan_for(alice)
    assert reverse("study:plan") in client.get(reverse("home")).content.decode()


def test_the_stats_page_shows_calibration_once_there_are_enough_reviews(client, alice, small_deck):
    client.force_login(alice)
    assert (
        "Shown once 50 of your reviews can be scored"
        in client.get("/study/stats/").content.decode()
    )
    _grow(small_deck, 95)
    start = timezone.now() - timedelta(days=30)
    for i, card in enumerate(small_deck.cards.all()):
        days = [(0, 4), (3 + i % 7, 4 if i % 5 else 1), (20, 4)]
        ReviewLog.objects.bulk_create(
            ReviewLog(user=alice, card=card, grade=grade, kind="review", state_after={},
                      reviewed_at=start + timedelta(days=d))
            for d, grade in days
        )  # fmt: skip
    html = client.get("/study/stats/").content.decode()
    # held out from a moment (memory.holdout_split): the 100 reviews of day 20 share theirs
    assert "on your latest 100 reviews" in html and "Log loss" in html


def test_the_worker_fit_keeps_the_defaults_without_the_optimizer(alice, small_deck, monkeypatch):
    from apps.study.models import MemoryFit

    # An install without the `fit` extra (make install and the image have it): fsrs's stub.
    monkeypatch.setattr(memory, "optimizer_available", lambda: False)
    assert not fitting.memory_fit_due(alice)
    assert fitting.memory_fit_run(user_id=alice.pk) is False
    fit = MemoryFit.objects.get(user=alice)
    assert fit.parameters == [] and fit.claimed_at is None  # defaults, claim released


def test_grading_a_planned_card_costs_the_same_queries_for_5_or_50_cards(client, alice, small_deck):
    learn_all(alice, small_deck)
    plan_for(alice, days=1, budget=30, target=99)
    client.force_login(alice)
    client.get(URL)

    def grade_next():
        page = client.get(URL).content.decode()
        card_id = int(re.search(r'id="plan-card" data-card="(\d+)"', page).group(1))
        with CaptureQueriesContext(connection) as ctx:
            response = client.post(
                URL, {"card": card_id, "grade": 4}, headers={"HX-Request": "true"}
            )
            assert response.status_code == 200
        return len(ctx.captured_queries)

    small = grade_next()
    # session, user, profile, the card; the refused SM-2 review (the learner's lock, its state
    # row, no write), the plan-mode log (the learner's lock, the state's, insert, savepoints);
    # then the plan again (fit, states, cards, reviews), and with the optimizer installed the
    # count that says whether a fit is due
    assert small == 18 + memory.optimizer_available()
    _grow(small_deck, 45)
    for card in small_deck.cards.filter(slug__startswith="extra-"):
        services.review_record(
            user=alice, card=card, grade=5, now=timezone.now() - timedelta(days=8)
        )
    CardState.objects.filter(user=alice).update(due_at=timezone.now() + timedelta(days=40))
    assert grade_next() == small
