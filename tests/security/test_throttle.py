"""API throttles: counted in the cache every process shares, refused with 429 and a sentence.

Counts are per fixed window; the tests use daily rates so that no window ends mid-test."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.hardening.conftest import private_redis, settings_from_env  # noqa: F401

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def rates(settings):
    def set_rates(**rates):
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {
                **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates
            },
        }  # fmt: skip

    return set_rates


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_defaults_leave_room_for_the_review_loop_and_are_shared():
    from config.security import UserThrottle

    per_minute = {}
    for scope in ("anon", "user", "write"):
        if f"THROTTLE_{scope.upper()}" not in os.environ:
            count, seconds = UserThrottle().parse_rate(
                django_settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][scope]
            )
            per_minute[scope] = count * 60 / seconds
    # a grade a second at keyboard speed, with the queue and the page around it
    assert per_minute.get("user", 600) >= 600 and per_minute.get("write", 120) >= 120
    assert per_minute.get("anon", 30) >= 30
    backend = django_settings.CACHES["default"]["BACKEND"]
    assert "locmem" not in backend.lower() and "dummy" not in backend.lower()


def test_a_user_over_the_rate_gets_429_with_retry_after_and_a_sentence(rates, alice, bob):
    rates(user="3/day")
    client = client_for(alice)
    for _ in range(3):
        assert client.get("/api/study/queue/").status_code == 200
    refused = client.get("/api/study/queue/")
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 24 * 3600
    error = refused.json()["error"]
    assert error.startswith("Request was throttled.") and "seconds" in error
    # bob has his own count
    assert client_for(bob).get("/api/study/queue/").status_code == 200


def test_expensive_writes_have_their_own_lower_rate(rates, alice, small_deck):
    rates(write="2/day")
    client = client_for(alice)
    cards = list(small_deck.cards.order_by("order"))
    for card in cards[:2]:
        assert client.post("/api/reviews/", {"card": card.pk, "grade": 4}).status_code == 201
    refused = client.post("/api/reviews/", {"card": cards[2].pk, "grade": 4})
    assert refused.status_code == 429 and "Retry-After" in refused
    # reads are not writes: the queue still answers
    assert client.get("/api/study/queue/").status_code == 200


def test_anonymous_clients_are_counted_per_address_and_cannot_forge_one(rates, small_deck):
    rates(anon="2/day")
    first = APIClient(REMOTE_ADDR="203.0.113.7")
    assert [first.get("/api/decks/").status_code for _ in range(2)] == [200, 200]
    forged = first.get("/api/decks/", HTTP_X_FORWARDED_FOR="192.0.2.44")
    assert forged.status_code == 429
    assert APIClient(REMOTE_ADDR="198.51.100.9").get("/api/decks/").status_code == 200


def run_elsewhere(code: str, **env) -> subprocess.CompletedProcess:
    """Run code in a fresh Django process pointed at this test's cache."""
    env = {**os.environ, "DEBUG": "true", **env}
    if "FileBasedCache" in django_settings.CACHES["default"]["BACKEND"]:
        env["CACHE_DIR"] = str(django_settings.CACHES["default"]["LOCATION"])
    return subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", "import json\n" + code],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_a_second_process_counts_against_the_same_user(rates, alice):
    """Another Django process (a second gunicorn worker, say) spends alice's allowance through
    its own cache connection; this process then refuses her next call."""
    rates(user="3/day")
    token = Token.objects.create(user=alice)
    code = (
        "from types import SimpleNamespace as NS\n"
        "from config.security import UserThrottle\n"
        f"user = NS(pk={alice.pk}, is_authenticated=True)\n"
        "request = NS(user=user, META={'REMOTE_ADDR': '127.0.0.1'})\n"
        "print(json.dumps([UserThrottle().allow_request(request, None) for _ in range(4)]))\n"
    )
    result = run_elsewhere(code, THROTTLE_USER="3/day")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [True, True, True, False]

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.get("/api/study/queue/").status_code == 429


@pytest.mark.skipif(
    not os.environ.get("CACHE_URL", "").startswith("redis"),
    reason="exact counts under concurrency need Redis' atomic incr (CI sets CACHE_URL)",
)
def test_workers_racing_for_one_user_are_allowed_exactly_the_rate_between_them():
    code = (
        "from types import SimpleNamespace as NS\n"
        "from config.security import UserThrottle\n"
        "request = NS(user=NS(pk=987654, is_authenticated=True), META={})\n"
        "print(sum(UserThrottle().allow_request(request, None) for _ in range(60)))\n"
    )
    env = {**os.environ, "DEBUG": "true", "THROTTLE_USER": "100/day"}
    workers = [
        subprocess.Popen(
            [sys.executable, "manage.py", "shell", "-c", code],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for _ in range(3)
    ]
    allowed = []
    for worker in workers:
        out, err = worker.communicate(timeout=60)
        assert worker.returncode == 0, err
        allowed.append(int(out.strip().splitlines()[-1]))
    assert sum(allowed) == 100, allowed  # 180 tries, 100 allowed, none lost to a race


def test_a_redis_window_counts_up_once_per_request_and_expires_with_its_window(
    settings,
    private_redis,  # noqa: F811
):
    """The count goes through the cache's public add and incr: the window's key is created with
    its ttl, which later bumps keep, so a day's count ends with its day."""
    import redis
    from django.core.cache import caches

    from config.security import count_request

    settings.CACHES = settings_from_env(DEBUG="true", CACHE_URL=private_redis.url)["CACHES"]
    cache = caches["default"]
    try:
        assert [count_request(cache, "user_1_20", 600) for _ in range(3)] == [1, 2, 3]
        assert count_request(cache, "user_2_20", 600) == 1  # another user, another count
        raw = redis.Redis.from_url(private_redis.url)
        [name] = raw.keys("*user_1_20")
        assert 590 <= raw.ttl(name) <= 600
        raw.close()
    finally:
        cache.close()
