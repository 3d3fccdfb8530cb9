"""A bounded load loop against a real gunicorn while Redis (cache and broker) is stopped for 10 s
and then the database goes away for a few seconds: 0 5xx outside the documented 503s (a demo run
while the broker is down, anything while the database is down), 0 acknowledged reviews lost, 0
doubled once every client has retried with its client_id.

The Redis is the test's own redis-server on a free port (tests/hardening/conftest.py), never the
shared one. The database outage refuses connections to the test database alone; with
RAYDECK_PG_RESTART_CMD set (CI) the whole server is restarted instead.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
import uuid
from collections import Counter
from itertools import cycle

import pytest
from django.db import connection
from django.test import Client
from rest_framework.authtoken.models import Token

from apps.demos.models import DemoRun
from apps.study.models import ReviewLog
from tests.failure.conftest import refuse_connections, web_server_running
from tests.failure.test_database_restart import api_review, make_deck, page_grade
from tests.hardening.conftest import PrivateRedis

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgresql")]
REDIS_DOWN_S = 10.0
DATABASE_DOWN_S = 3.0
PACE_S = 0.04
HANG_BOUND_S = 10.0
RESTART_CMD = os.environ.get("RAYDECK_PG_RESTART_CMD", "")


class Loop:
    """One client sending requests one after another until told to stop; every answer kept."""

    def __init__(self, name, send):
        self.name, self.send = name, send
        self.answers: list[tuple] = []  # (item, status, headers, text, seconds, phase)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.phase = "up"

    def run(self):
        n = 0
        while not self.stop.is_set():
            # The phase a request met: the one it started in, unless the outage began meanwhile.
            started = self.phase
            item, answer = self.send(n)
            phase = started if started != "up" else self.phase
            self.answers.append((item, *answer, phase))
            n += 1
            time.sleep(PACE_S)


def documented(kind: str, status: int | None, headers: dict, text: str, phase: str) -> bool:
    """Whether a non-2xx answer is one the README documents for this moment."""
    if status is None:
        return False
    if status < 500:
        return True
    if status == 503 and phase == "database-down" and headers.get("Retry-After") == "5":
        return True
    if status == 503 and kind == "demo" and phase in ("redis-down", "database-down"):
        return "the task broker did not answer" in text or headers.get("Retry-After") == "5"
    return False


@pytest.fixture
def redis(tmp_path):
    if not shutil.which("redis-server"):
        pytest.skip("needs redis-server on PATH")
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()


def test_redis_stopped_then_the_database_away_under_load(redis, alice, bob, charlie):
    cards = make_deck(3000)
    token = Token.objects.create(user=alice).key
    demo_token = Token.objects.create(user=charlie).key
    browser = Client()
    browser.force_login(bob)
    session = browser.cookies["sessionid"].value
    api_cards, page_cards = iter(cards[:1500]), iter(cards[1500:])
    grades = cycle((1, 3, 4, 5, 2))
    env = {
        "CACHE_URL": f"redis://127.0.0.1:{redis.port}/0",
        "CELERY_BROKER_URL": f"redis://127.0.0.1:{redis.port}/1",
        "DEMOS_MAX_ACTIVE_RUNS_PER_USER": "100000",
    }
    with web_server_running(**env) as server:

        def review(n):
            item = (next(api_cards).pk, next(grades), str(uuid.uuid4()))
            return item, api_review(server, *item, token=token)

        def grade(n):
            item = (next(page_cards).pk, next(grades), str(uuid.uuid4()))
            return item, page_grade(server, *item, session=session)

        def browse(n):
            path = ("/api/decks/", "/api/study/queue/", "/", "/decks/outage/")[n % 4]
            return path, server.request("GET", path)

        def demo(n):
            body = {"demo": "vtrace"}
            headers = {"Authorization": f"Token {demo_token}", "Content-Type": "application/json"}
            if n % 3:
                return "poll", server.request("GET", "/api/demos/", headers=headers)
            return "run", server.request("POST", "/api/demo-runs/", body=body, headers=headers)

        loops = [Loop("review", review), Loop("grade", grade), Loop("browse", browse),
                 Loop("demo", demo)]  # fmt: skip
        for loop in loops:
            loop.thread.start()
        time.sleep(1.5)
        for loop in loops:
            loop.phase = "redis-down"
        redis.stop()
        time.sleep(REDIS_DOWN_S / 2)
        readiness = server.request("GET", "/readyz?checks=database")
        full_readiness = server.request("GET", "/readyz")
        time.sleep(REDIS_DOWN_S / 2)
        redis.start()
        for loop in loops:
            loop.phase = "up"
        time.sleep(1.5)
        for loop in loops:
            loop.phase = "database-down"
        if RESTART_CMD:
            subprocess.run(RESTART_CMD, shell=True, check=True, timeout=90, capture_output=True)
        else:
            connection.ensure_connection()
            refuse_connections(False)
            time.sleep(DATABASE_DOWN_S)
            refuse_connections(True)
        connection.close()
        for loop in loops:
            loop.phase = "up"
        time.sleep(1.5)
        for loop in loops:
            loop.stop.set()
        for loop in loops:
            loop.thread.join(30)

        # The Kubernetes readiness probe checks only the database: the pod stays in the Service.
        assert readiness[0] == 200, readiness[2][:300]
        assert full_readiness[0] == 503 and "broker" in full_readiness[2]

        counts = Counter()
        undocumented = []
        for loop in loops:
            for item, status, headers, text, seconds, phase in loop.answers:
                counts["requests"] += 1
                counts[f"{phase}:{status}"] += 1
                assert seconds < HANG_BOUND_S, f"{loop.name} took {seconds:.1f} s"
                if status is None or status >= 500:
                    counts["5xx"] += 1
                    kind = "demo" if item == "run" else loop.name
                    if not documented(kind, status, headers, text, phase):
                        undocumented.append((loop.name, item, status, phase, text[:200]))
        redis_down_requests = sum(v for k, v in counts.items() if k.startswith("redis-down:"))
        assert redis_down_requests > 50, counts

        # Every client retries what was not acknowledged, and replays what was, by client_id.
        acknowledged, attempted = {}, {}
        for loop, send in ((loops[0], "api"), (loops[1], "page")):
            for item, status, _h, text, _s, _p in loop.answers:
                attempted[item[2]] = (send, item)
                if status in (200, 201):
                    acknowledged[item[2]] = text
        for client_id, (send, item) in attempted.items():
            if send == "api":
                again = api_review(server, *item, token=token)
                assert again[0] in (200, 201), again[2][:300]
                if client_id in acknowledged:
                    assert again[0] == 200
                    assert json.loads(again[2]) == json.loads(acknowledged[client_id])
            else:
                again = page_grade(server, *item, session=session)
                assert again[0] == 200, again[2][:300]

    logs = Counter(str(c) for c in ReviewLog.objects.values_list("client_id", flat=True))
    per_card = Counter(ReviewLog.objects.filter(undone_at=None).values_list("card_id", flat=True))
    lost = [c for c in acknowledged if logs[c] == 0]
    doubled = [c for c, n in logs.items() if n > 1] + [c for c, n in per_card.items() if n > 1]
    missing = [c for c in attempted if logs[c] == 0]
    runs = DemoRun.objects.filter(user=charlie).count()
    print(
        f"\nrequests {counts['requests']}, 5xx {counts['5xx']} "
        f"(undocumented {len(undocumented)}), reviews attempted {len(attempted)}, "
        f"acknowledged at first {len(acknowledged)}, lost {len(lost)}, doubled {len(doubled)}, "
        f"demo runs {runs}; by phase: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if ":" in k)
    )
    assert undocumented == []
    assert lost == [] and missing == [] and doubled == []
