"""Planned cards in the main queue (issue 19): after SM-2's due and new cards, "for your
interview"; graded as a plan review that leaves SM-2's schedule alone; a flat query count."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.study import interview, queue
from apps.study.models import CardState, ReviewLog
from apps.study.services import review_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def planning(alice, small_deck, monkeypatch):
    """alice learnt every card of the deck just now (none due today) and has an interview in
    ten days; her plan asks for `planned` (card ids, in order) today."""
    for card in small_deck.cards.all():
        review_record(user=alice, card=card, grade=5)
    profile = profile_for(alice)
    profile.interview_date = timezone.localdate() + timedelta(days=10)
    profile.save()
    planned: list[int] = []
    monkeypatch.setattr(interview, "planned_today", lambda user, now=None: list(planned))
    return planned


def test_planned_cards_come_last_marked_for_your_interview(alice, small_deck, planning):
    cards = list(small_deck.cards.order_by("id"))
    planning += [cards[3].pk, cards[1].pk]
    whole = queue.queue(alice, small_deck)
    assert [(i.kind, i.card.pk, i.for_interview) for i in whole.items] == [
        ("plan", cards[3].pk, True),
        ("plan", cards[1].pk, True),
    ]
    assert whole.counts == {"redrill": 0, "due": 0, "new": 0, "plan": 2}
    sized = queue.queue(alice, small_deck, size=1)
    assert sized.counts == whole.counts and sized.next.card.pk == cards[3].pk


def test_the_api_marks_them_and_a_grade_keeps_the_schedule(api_client, alice, small_deck, planning):
    as_alice = api_client
    as_alice.force_authenticate(alice)
    card = small_deck.cards.order_by("id").first()
    planning.append(card.pk)
    body = as_alice.get("/api/study/queue/?deck=ray-basics").json()
    assert [(c["id"], c["kind"], c["for_interview"]) for c in body["cards"]] == [
        (card.pk, "plan", True)
    ]
    before = CardState.objects.get(user=alice, card=card).due_at
    response = as_alice.post("/api/reviews/", {"card": card.pk, "grade": 4, "for_interview": True})
    assert response.status_code == 201
    assert ReviewLog.objects.get(pk=response.json()["id"]).kind == ReviewLog.Kind.PLAN
    assert CardState.objects.get(user=alice, card=card).due_at == before
    # without for_interview, a card not due is refused as before
    again = as_alice.post("/api/reviews/", {"card": card.pk, "grade": 4})
    assert again.status_code == 409 and "not due until" in again.json()["error"]


def test_the_review_page_shows_the_badge_and_grades_in_plan_mode(
    client, alice, small_deck, planning
):
    client.force_login(alice)
    card = small_deck.cards.order_by("id").last()
    planning.append(card.pk)
    html = client.get("/study/review/ray-basics/", HTTP_HX_REQUEST="true").content.decode()
    assert "for your interview" in html and 'name="for_interview" value="1"' in html
    before = CardState.objects.get(user=alice, card=card).due_at
    client_id = re.search(r'name="client_id" value="([^"]+)"', html).group(1)
    payload = {"card": card.pk, "grade": "4", "for_interview": "1", "client_id": client_id}
    html = client.post("/study/review/ray-basics/", payload, HTTP_HX_REQUEST="true")
    assert "review-notice" not in html.content.decode()
    log = ReviewLog.objects.get(user=alice, card=card, kind=ReviewLog.Kind.PLAN)
    assert log.state_before == log.state_after
    assert CardState.objects.get(user=alice, card=card).due_at == before


@pytest.mark.parametrize("planned", [1, 5])
def test_the_query_count_is_flat_in_the_planned_cards(
    alice, small_deck, planning, planned, django_assert_num_queries
):
    planning += list(small_deck.cards.order_by("id").values_list("id", flat=True))[:planned]
    with django_assert_num_queries(1):  # the whole queue: one statement with the plan's part
        assert len(queue.queue(alice, small_deck).items) == planned
    with django_assert_num_queries(2):  # the counts, then the planned card
        assert queue.queue(alice, small_deck, size=1).counts["plan"] == planned
