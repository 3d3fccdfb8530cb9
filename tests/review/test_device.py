"""The device pack (GET /api/study/device-pack/), the service worker at /sw.js and the logout
that clears the device (issue 32), as the review page and a second account see them."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.study.models import CardState
from apps.study.services import review_record

pytestmark = pytest.mark.django_db
PACK = "/api/study/device-pack/"


@pytest.fixture
def as_alice(api_client, alice):
    api_client.force_authenticate(alice)
    return api_client


def test_anonymous_callers_get_no_pack(api_client, small_deck):
    assert api_client.get(PACK).status_code in (401, 403)


def test_the_pack_is_todays_queue_in_order_then_tomorrows_due_cards(as_alice, alice, small_deck):
    now = timezone.now()
    task = small_deck.cards.get(slug="ray-task")
    actor = small_deck.cards.get(slug="ray-actor")
    review_record(user=alice, card=task, grade=1, now=now - timedelta(minutes=5))  # again today
    review_record(user=alice, card=actor, grade=4, now=now - timedelta(minutes=1))  # due tomorrow
    body = as_alice.get(PACK).json()
    assert body["user"] == alice.pk and body["hold_days"] == 7
    assert body["time_zone"] == alice.profile.time_zone
    assert body["limits"]["leech_threshold"] == alice.profile.leech_threshold
    kinds = [(c["card"], c["kind"]) for c in body["cards"]]
    assert kinds[0] == (task.pk, "redrill")
    assert [k for _, k in kinds[1:4]] == ["new", "new", "new"]
    assert kinds[-1] == (actor.pk, "due")  # due tomorrow: after today's queue
    first = body["cards"][0]
    assert first["state"]["lapses"] == 0 and first["state"]["last_grade"] == 1
    assert first["state"]["last_reviewed_at"] is not None
    assert first["state"]["ease_factor"] == "2.50"
    assert first["front_html"] == "<p>What is a Ray task?</p>\n" and first["section"]
    assert body["cards"][1]["state"] is None
    assert as_alice.get(PACK)["Cache-Control"] == "private, no-store"


def test_another_account_never_gets_the_first_ones_states(api_client, alice, bob, small_deck):
    review_record(user=alice, card=small_deck.cards.get(slug="ray-task"), grade=1)
    api_client.force_authenticate(bob)
    body = api_client.get(PACK).json()
    assert body["user"] == bob.pk
    assert all(c["state"] is None and c["kind"] == "new" for c in body["cards"])


@pytest.mark.parametrize("extra", [0, 150])
def test_pack_query_count_is_constant(
    as_alice, alice, small_deck, extra, django_assert_num_queries
):
    section = small_deck.sections.first()
    now = timezone.now()
    for i in range(extra):
        card = small_deck.cards.create(
            section=section, slug=f"x-{i}", order=50 + i, front="f", back="b"
        )
        review_record(user=alice, card=card, grade=4, now=now - timedelta(days=i % 2))
    as_alice.get(PACK)  # the profile exists
    # the whole queue (one statement), tomorrow's due cards, the cards with their sections and
    # decks, the states
    with django_assert_num_queries(4):
        body = as_alice.get(PACK).json()
    states = set(CardState.objects.filter(user=alice).values_list("card_id", flat=True))
    assert states <= {c["card"] for c in body["cards"]}  # today's due and tomorrow's


def test_the_service_worker_is_served_from_the_root_for_the_whole_site(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert "__STATIC__" not in response.content.decode()


def test_logging_out_tells_the_browser_to_clear_the_devices_cache_and_storage(client, alice):
    client.force_login(alice)
    response = client.post("/accounts/logout/")
    assert response["Clear-Site-Data"] == '"cache", "storage"'
