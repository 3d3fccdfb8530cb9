"""The main queue and the real interview plan together, nothing stubbed: a learner with a date
gets the plan's cards "for your interview" in /api/study/queue/, grades them there, and they
leave today's queue while SM-2's schedule stays as it was."""

import re
from types import SimpleNamespace

import pytest

from apps.study import interview
from apps.study.models import CardState, ReviewLog
from tests.queries import queries_of_get
from tests.study.test_plan_pages import _grow, learn_all, plan_for

pytestmark = pytest.mark.django_db
QUEUE = "/api/study/queue/"


def _plan_items(body) -> list[int]:
    return [card["id"] for card in body["cards"] if card["for_interview"]]


def test_the_plans_cards_are_served_graded_and_gone(api_client, alice, small_deck):
    learn_all(alice, small_deck)  # nothing due before the interview: only the plan asks
    plan_for(alice, days=1, budget=30, target=99)
    api_client.force_authenticate(alice)
    body = api_client.get(QUEUE).json()
    planned = _plan_items(body)
    assert planned and planned == interview.planned_today(alice)
    assert body["counts"]["plan"] == len(planned)
    first = planned[0]
    state = CardState.objects.values("due_at", "interval_days", "ease_factor", "repetitions").get(
        card_id=first
    )
    response = api_client.post(
        "/api/reviews/", {"card": first, "grade": 4, "for_interview": True}, format="json"
    )
    assert response.status_code == 201, response.content
    assert ReviewLog.objects.filter(card_id=first, kind="plan").count() == 1
    assert (
        CardState.objects.values("due_at", "interval_days", "ease_factor", "repetitions").get(
            card_id=first
        )
        == state
    )
    assert first not in _plan_items(api_client.get(QUEUE).json())


def test_without_a_date_the_queue_has_no_plan_part(api_client, alice, small_deck):
    learn_all(alice, small_deck)
    api_client.force_authenticate(alice)
    body = api_client.get(QUEUE).json()
    assert _plan_items(body) == [] and "plan" not in body["counts"]


def test_the_queue_with_a_plan_issues_the_same_queries_for_5_or_50_cards(
    api_client, alice, small_deck
):
    def count():
        return queries_of_get(api_client, QUEUE)

    learn_all(alice, small_deck)
    plan_for(alice, days=1, budget=30, target=99)
    api_client.force_authenticate(alice)
    small = count()
    _grow(small_deck, 45)
    learn_all(alice, SimpleNamespace(cards=small_deck.cards.filter(slug__startswith="extra-")))
    assert len(interview.planned_today(alice)) > 5
    assert count() == small


def test_past_the_new_card_limit_the_review_page_sends_the_plans_new_cards_to_the_plan(
    client, alice, small_deck
):
    """The main queue keeps the learner's daily new-card limit; what the plan introduces beyond
    it is said, with its number, when the queue is done, and the plan page serves it."""
    plan_for(alice, days=1, budget=30, target=99)
    profile = alice.profile
    profile.new_cards_per_day = 1
    profile.save()
    client.force_login(alice)
    page = client.get("/study/review/").content.decode()
    card = int(re.search(r'name="card" value="(\d+)"', page).group(1))
    client.post("/study/review/", {"card": card, "grade": 4})
    left = interview.planned_today(alice)
    assert left and card not in left  # the plan still asks for new cards today
    done = client.get("/study/review/").content.decode()
    assert f"introduces {len(left)} more new card" in done
    plan_page = client.get("/study/plan/").content.decode()
    assert f'data-card="{left[0]}"' in plan_page


def test_the_study_page_counts_what_the_queue_serves_for_the_interview(
    client, api_client, alice, small_deck
):
    learn_all(alice, small_deck)
    plan_for(alice, days=1, budget=30, target=99)
    api_client.force_authenticate(alice)
    served = api_client.get(QUEUE).json()["counts"]["plan"]
    client.force_login(alice)
    page = client.get("/study/").content.decode()
    assert served and f'<strong id="plan-count">{served}</strong> for your interview' in page
