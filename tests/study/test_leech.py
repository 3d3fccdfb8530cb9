"""Suspend and leeches: a card alice keeps failing becomes a leech at her threshold, she is told
once on the review page with a one-click suspend, the stats page lists it, and the API suspends
and unsuspends it (PATCH /api/cards/{id}/state/)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.study.models import CardState
from apps.study.queue import queue
from apps.study.services import leech_reached, review_record, review_undo

pytestmark = pytest.mark.django_db


def lapse(user, card, times: int, *, start):
    """Learn the card, fail it, relearn it, ... `times` failures, one day apart; the card is
    due again (relearnt, interval 1) one day after the last relearn."""
    day = start
    review_record(user=user, card=card, grade=4, now=day)
    for _ in range(times):
        day += timedelta(days=1)
        review_record(user=user, card=card, grade=1, now=day)
        review_record(user=user, card=card, grade=4, now=day)
    return day


def test_the_threshold_rule():
    assert leech_reached(7, 8, 8) and not leech_reached(8, 9, 8) and not leech_reached(6, 7, 8)
    assert not leech_reached(7, 8, 0)  # 0 turns leeches off


def test_the_eighth_lapse_makes_a_leech_and_undo_takes_it_back(alice, small_deck):
    card = small_deck.cards.get(slug="ray-task")
    last = lapse(alice, card, 7, start=timezone.now() - timedelta(days=20))
    state = CardState.objects.get(user=alice, card=card)
    assert state.lapses == 7 and not state.leech
    review_record(user=alice, card=card, grade=1, now=last + timedelta(days=1))
    state.refresh_from_db()
    assert state.lapses == 8 and state.leech and not state.suspended
    review_undo(user=alice)
    state.refresh_from_db()
    assert state.lapses == 7 and not state.leech


def test_a_threshold_of_zero_never_flags(alice, small_deck):
    profile = profile_for(alice)
    profile.leech_threshold = 0
    profile.save()
    card = small_deck.cards.get(slug="ray-task")
    lapse(alice, card, 9, start=timezone.now() - timedelta(days=20))
    assert not CardState.objects.get(user=alice, card=card).leech


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def test_the_review_page_tells_once_and_suspends_in_one_click(alice_client, alice, small_deck):
    profile = profile_for(alice)
    profile.leech_threshold = 2
    profile.save()
    card = small_deck.cards.get(slug="ray-task")
    lapse(alice, card, 1, start=timezone.now() - timedelta(days=4))  # due again now
    html = alice_client.get("/study/review/ray-basics/").content.decode()
    assert "What is a Ray task?" in html and 'id="suspend" aria-keyshortcuts="s"' in html
    client_id = html.split('name="client_id" value="')[1].split('"')[0]
    fragment = alice_client.post(
        "/study/review/ray-basics/",
        {"card": card.pk, "grade": "1", "client_id": client_id},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "This card has failed 2 times: suspend it?" in fragment
    assert f'action="/study/cards/{card.pk}/suspend/"' in fragment
    # the same grade again (a retry) records nothing and says nothing again
    again = alice_client.post(
        "/study/review/ray-basics/",
        {"card": card.pk, "grade": "1", "client_id": client_id},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "suspend it?" not in again
    alice_client.post(f"/study/cards/{card.pk}/suspend/", {"deck": "ray-basics"})
    state = CardState.objects.get(user=alice, card=card)
    assert state.suspended and state.leech
    assert card.pk not in [item.card.pk for item in queue(alice).items]
    stats = alice_client.get("/study/stats/").content.decode()
    assert "Leeches" in stats and "What is a Ray task?" in stats and "suspended" in stats


def test_stats_say_when_there_is_no_leech(alice_client, small_deck):
    assert "No leeches" in alice_client.get("/study/stats/").content.decode()


def test_the_profile_keeps_the_threshold_when_a_form_leaves_it_out(alice_client, alice):
    form = {"time_zone": "UTC", "new_cards_per_day": 5, "reviews_per_day": 50}
    alice_client.post("/accounts/profile/", {**form, "leech_threshold": 4})
    assert profile_for(type(alice).objects.get(pk=alice.pk)).leech_threshold == 4
    alice_client.post("/accounts/profile/", form)
    assert profile_for(type(alice).objects.get(pk=alice.pk)).leech_threshold == 4
    response = alice_client.post("/accounts/profile/", {**form, "leech_threshold": 100})
    assert "less than or equal to 99" in response.content.decode()


@pytest.fixture
def as_alice(api_client, alice):
    api_client.force_authenticate(alice)
    return api_client


def test_the_api_suspends_and_unsuspends(as_alice, alice, small_deck):
    card = small_deck.cards.get(slug="ray-actor")
    url = f"/api/cards/{card.pk}/state/"
    body = as_alice.patch(url, {"suspended": True}, format="json").json()
    assert body["suspended"] is True and body["leech"] is False and body["is_due"] is False
    assert card.pk not in [item.card.pk for item in queue(alice).items]
    assert as_alice.get(url).json()["suspended"] is True
    body = as_alice.patch(url, {"suspended": False}, format="json").json()
    assert body["suspended"] is False and body["is_due"] is True
    assert card.pk in [item.card.pk for item in queue(alice).items]


def test_the_api_refuses_a_bad_patch_and_changes_nothing(as_alice, alice, small_deck):
    card = small_deck.cards.get(slug="ray-actor")
    response = as_alice.patch(f"/api/cards/{card.pk}/state/", {"suspended": "maybe"}, format="json")
    assert response.status_code == 400 and "suspended" in response.json()["error"]
    response = as_alice.patch(f"/api/cards/{card.pk}/state/", {}, format="json")
    assert response.status_code == 200 and response.json()["suspended"] is False  # nothing named
    assert as_alice.patch("/api/cards/999999/state/", {"suspended": True}).status_code == 404
    assert not CardState.objects.filter(user=alice).exists()


def test_an_api_client_sees_the_leech_in_the_cards_state(api_client, alice, small_deck):
    """The review body is DESIGN's contract and stays as it is; the card's state says it."""
    card = small_deck.cards.get(slug="ray-task")
    lapse(alice, card, 7, start=timezone.now() - timedelta(days=20))
    api_client.force_authenticate(alice)
    state = f"/api/cards/{card.pk}/state/"
    assert api_client.get(state).json()["leech"] is False
    review = api_client.post("/api/reviews/", {"card": card.pk, "grade": 1}, format="json")
    assert review.status_code == 201
    assert set(review.json()) == {"id", "card", "grade", "reviewed_at", "state", "conflict"}
    assert api_client.get(state).json()["leech"] is True
