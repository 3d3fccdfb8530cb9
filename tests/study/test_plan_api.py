"""GET /api/study/plan/: the same plan as the page; 404 without an interview date; a read that
changes nothing; queries pinned and flat in the number of cards. And the queue's two hooks,
`planned_today` and `deferred_today`."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.study import interview, services
from apps.study.models import CardState, ReviewLog
from tests.queries import queries_of_get
from tests.study.test_plan_pages import _grow, learn_all, plan_for

pytestmark = pytest.mark.django_db
URL = "/api/study/plan/"


def test_without_a_date_there_is_no_plan_and_the_answer_says_how_to_set_one(client, alice):
    client.force_login(alice)
    response = client.get(URL)
    assert response.status_code == 404
    assert "PATCH /api/me/profile/" in response.json()["error"]
    assert interview.planned_today(alice) == [] and interview.deferred_today(alice) == set()


def test_a_past_date_is_no_plan(client, alice, small_deck):
    plan_for(alice, days=-1)
    client.force_login(alice)
    assert client.get(URL).status_code == 404


def test_anonymous_callers_are_refused(client):
    assert client.get(URL).status_code in (401, 403)


def test_the_plan_per_day_and_recall_on_the_day(client, alice, small_deck):
    learn_all(alice, small_deck)
    plan_for(alice, days=10, budget=5, target=99)
    client.force_login(alice)
    before = ReviewLog.objects.count(), list(CardState.objects.values())
    body = client.get(URL).json()
    assert (ReviewLog.objects.count(), list(CardState.objects.values())) == before  # a read
    assert body["days_until"] == 10 and len(body["days"]) == 10
    assert body["days"][0]["date"] == timezone.localdate().isoformat()
    assert body["target"] == 0.99 and body["budget_minutes"] == 5
    assert body["reviews_per_day"] == 25  # 5 minutes at the default 12 s per review
    assert all(0 <= d["due"] <= d["planned"] <= 25 for d in body["days"])
    assert {s["section"] for s in body["recall"]["sections"]} == {"ray-core", "rllib"}
    assert body["recall"]["followed"] > body["recall"]["now"]
    assert body["shortfall"] == pytest.approx(max(0, 0.99 - body["recall"]["followed"]))
    planned = sum(d["planned"] for d in body["days"])
    assert planned > 0
    planned_today = interview.planned_today(alice)  # the plan's own, in today's order
    assert [c for c in body["today_cards"] if c in planned_today] == planned_today


def test_a_review_moves_the_plan_and_leaves_today(client, alice, small_deck):
    learn_all(alice, small_deck)
    plan_for(alice, days=1, budget=10, target=99)  # tomorrow: today's the last day
    client.force_login(alice)
    first = client.get(URL).json()
    card = first["today_cards"][0]
    interview.plan_review_record(user=alice, card=small_deck.cards.get(pk=card), grade=4)
    after = client.get(URL).json()
    assert card not in after["today_cards"] and card not in interview.planned_today(alice)
    assert after["days"][0]["done"] == first["days"][0]["done"] + 1
    assert after["recall"]["now"] > first["recall"]["now"]


def test_planned_today_leaves_out_sm2_due_cards_and_deferred_today_names_the_strong_ones(
    alice, small_deck
):
    learn_all(alice, small_deck, days_ago=1)  # just learnt: predicted high tomorrow
    plan_for(alice, days=1, budget=10, target=60)
    CardState.objects.filter(user=alice).update(due_at=timezone.now() - timedelta(hours=1))
    due = set(CardState.objects.filter(user=alice).values_list("card_id", flat=True))
    assert interview.deferred_today(alice) == due  # all due, none needed before tomorrow
    assert not set(interview.planned_today(alice)) & due
    plan_for(alice, days=1, budget=10, target=99)
    assert interview.deferred_today(alice) == set()  # 99% on the day needs them


def test_the_plan_api_issues_the_same_queries_for_5_or_50_cards(
    client, alice, small_deck, django_assert_num_queries
):
    learn_all(alice, small_deck)
    plan_for(alice)
    client.force_login(alice)
    client.get(URL)

    def count():
        return queries_of_get(client, URL)

    # session, user; profile, fitted parameters, states, cards, reviews
    with django_assert_num_queries(7):
        client.get(URL)
    small = count()
    _grow(small_deck, 45)
    for card in small_deck.cards.filter(slug__startswith="extra-")[:20]:
        services.review_record(user=alice, card=card, grade=4)
    assert count() == small


def test_the_page_says_which_due_cards_can_wait(client, alice, small_deck):
    learn_all(alice, small_deck, days_ago=1)
    plan_for(alice, days=1, budget=10, target=60)
    CardState.objects.filter(user=alice).update(due_at=timezone.now() - timedelta(hours=1))
    client.force_login(alice)
    html = client.get("/study/plan/").content.decode()
    assert "5 cards due today can wait until after your interview" in html
    assert 'id="plan-card"' not in html  # nothing else needed before tomorrow
