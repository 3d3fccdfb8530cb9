"""Finding 1: with the shared cache (Redis) down, the app keeps answering. Throttles count in
process memory, the team dashboard is computed uncached, log-in and its lock-out work (they live
in the database), and only a demo run, which needs the broker, answers its documented 503.

The Redis here is the test's own (tests/hardening/conftest.py), stopped mid-test; the cache
settings are what config/settings.py makes of CACHE_URL=redis://..., as in production."""

from __future__ import annotations

import logging
import uuid

import pytest
from django.core.cache import caches
from django.urls import reverse
from rest_framework.test import APIClient

from apps.decks.models import Card
from tests.hardening.conftest import settings_from_env

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_cache(settings, private_redis):
    """The app's cache on the private Redis, configured as production configures it."""
    production = settings_from_env(DEBUG="true", CACHE_URL=private_redis.url)
    settings.CACHES = production["CACHES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "1000/day", "user": "1000/day", "write": "1000/day"},
    }
    caches["default"].clear()
    yield private_redis
    private_redis.stop()
    caches["default"].close()


def statuses(responses) -> list[int]:
    return [r.status_code for r in responses]


def test_with_redis_down_the_api_answers_without_a_5xx(redis_cache, alice, small_deck):
    anonymous, learner = APIClient(), APIClient()
    learner.force_authenticate(alice)
    assert anonymous.get("/api/decks/").status_code == 200  # Redis up: counted there
    redis_cache.stop()

    answers = []
    for _ in range(3):
        answers.append(anonymous.get("/api/decks/"))
        answers.append(anonymous.get("/api/study/queue/"))
        answers.append(learner.get("/api/study/queue/?deck=ray-basics"))
    cards = list(Card.objects.filter(deck=small_deck).order_by("order"))
    reviews = [
        learner.post(
            "/api/reviews/",
            {"card": card.pk, "grade": 4, "client_id": str(uuid.uuid4())},
            format="json",
        )
        for card in cards
    ]
    assert [s for s in statuses(answers + reviews) if s >= 500] == []
    assert statuses(reviews) == [201] * len(cards)
    assert anonymous.get("/api/decks/").status_code == 200


def test_with_redis_down_throttles_still_refuse_from_process_memory(redis_cache, settings, alice):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "3/day", "user": "1000/day", "write": "1000/day"},
    }
    redis_cache.stop()
    anonymous = APIClient()
    codes = statuses(anonymous.get("/api/decks/") for _ in range(5))
    assert codes == [200, 200, 200, 429, 429]


def test_the_outage_is_logged_once_per_process(redis_cache, caplog, monkeypatch):
    from config import cache as degrading

    monkeypatch.setattr(degrading, "OUTAGE_RETRY_S", 0.0)  # every call meets the outage
    monkeypatch.setattr(degrading, "_warned", type(degrading._warned)())
    redis_cache.stop()
    anonymous = APIClient()
    with caplog.at_level(logging.WARNING, logger="config.cache"):
        for _ in range(4):
            assert anonymous.get("/api/decks/").status_code == 200
    warnings = [r for r in caplog.records if r.name == "config.cache"]
    assert len(warnings) == 1 and "Redis is out of reach" in warnings[0].getMessage()


def test_with_redis_down_the_team_dashboard_and_its_api_answer(redis_cache, client, team, alice):
    redis_cache.stop()
    client.force_login(alice)
    assert client.get(reverse("teams:dashboard", args=[team.slug])).status_code == 200
    api = APIClient()
    api.force_authenticate(alice)
    response = api.get(f"/api/teams/{team.slug}/progress/")
    assert response.status_code == 200 and response.json()["members"]


def test_with_redis_down_log_in_and_its_lock_out_still_work(redis_cache, client, settings, bob):
    settings.AXES_FAILURE_LIMIT = 2
    redis_cache.stop()
    url = reverse("accounts:login")
    assert client.post(url, {"username": "bob", "password": "wrong"}).status_code == 200
    assert client.post(url, {"username": "bob", "password": "wrong"}).status_code == 429
    assert client.post(url, {"username": "bob", "password": "wrong"}).status_code == 429
    assert client.post(url, {"username": "bob", "password": "pw-bob-123"}).status_code == 429


@pytest.mark.django_db(transaction=True)
def test_with_redis_and_the_broker_down_a_demo_run_gets_503_and_nothing_else_fails(
    redis_cache, broker_down, alice, small_deck
):
    redis_cache.stop()
    learner = APIClient()
    learner.force_authenticate(alice)
    response = learner.post("/api/demo-runs/", {"demo": "vtrace"}, format="json")
    assert response.status_code == 503
    assert "the task broker did not answer" in response.json()["error"]
    assert learner.get("/api/demos/").status_code == 200
    assert learner.get("/api/study/queue/").status_code == 200
