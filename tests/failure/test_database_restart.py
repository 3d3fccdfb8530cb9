"""Reviews sent while PostgreSQL restarts under a real gunicorn: each one lands once or fails
with a 503 sentence (never a 500, never a hang), and a retry with the same client_id after the
database is back counts it exactly once.

Runs only with RAYDECK_PG_RESTART_CMD (CI: "pg_ctlcluster 15 main restart"): it restarts the
shared server, which every other connection to it feels for a second or two.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import threading
import time
import uuid
from itertools import cycle
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from apps.decks.models import Card, Deck, Section
from apps.study import scheduler
from apps.study.models import CardState, ReviewLog
from config.middleware import MESSAGE
from tests.failure.conftest import refuse_connections

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("postgresql")]
RESTART_CMD = os.environ.get("RAYDECK_PG_RESTART_CMD", "")
GRADES = (1, 3, 4, 5, 2)
HANG_BOUND_S = 10.0  # no request may take longer than this, outage or not


@pytest.fixture
def restartable_database():
    if not RESTART_CMD:
        pytest.skip("set RAYDECK_PG_RESTART_CMD (e.g. 'pg_ctlcluster 15 main restart') to run")


def make_deck(cards: int) -> list[Card]:
    deck = Deck.objects.create(slug="outage", title="Outage", description="Many new cards.")
    section = Section.objects.create(deck=deck, slug="all", order=0, title="All")
    return Card.objects.bulk_create(
        Card(deck=deck, section=section, slug=f"c{i}", order=i, front=f"Q{i}", back=f"A{i}")
        for i in range(cards)
    )


class Traffic:
    """Sends first attempts in order, paced, from one thread, and records every answer."""

    def __init__(self, server, plan, send):
        self.server, self.plan, self.send = server, plan, send
        self.answers: dict[str, list[tuple]] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        for item in self.plan:
            if self.stop.is_set():
                return
            self.answers[item[2]] = [self.send(self.server, *item)]
            time.sleep(0.05)

    def attempted(self):
        return [item for item in self.plan if item[2] in self.answers]


def api_review(server, card_id, grade, client_id, *, token):
    return server.request(
        "POST",
        "/api/reviews/",
        body={"card": card_id, "grade": grade, "client_id": client_id},
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )


def page_grade(server, card_id, grade, client_id, *, session):
    """The review page's grade button, as htmx posts it (session cookie and CSRF token)."""
    csrf = secrets.token_hex(16)  # a 32-character secret: cookie and header must agree
    body = urlencode({"card": card_id, "grade": grade, "client_id": client_id, "done": 0})
    return server.request(
        "POST",
        "/study/review/",
        body=body,
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"sessionid={session}; csrftoken={csrf}",
            "X-CSRFToken": csrf,
            "HX-Request": "true",
            "HX-Current-URL": f"http://127.0.0.1:{server.port}/study/review/",
        },
    )


def restart_database() -> float:
    start = time.monotonic()
    subprocess.run(RESTART_CMD, shell=True, check=True, timeout=90, capture_output=True)
    return time.monotonic() - start


def assert_clear(answer, *, api: bool):
    status, headers, text, seconds = answer
    assert seconds < HANG_BOUND_S, f"a request took {seconds:.1f} s"
    assert status is not None, f"the connection failed: {text}"
    if status < 300:
        return
    assert status == 503, f"{status}: {text[:300]}"
    assert headers.get("Retry-After") == "5"
    if api:
        assert json.loads(text)["error"] == MESSAGE
    else:
        assert MESSAGE.split(",")[0] in text and "Server Error" not in text


def test_reviews_during_a_database_restart_land_once_or_fail_clearly(
    restartable_database, web_server, alice, bob
):
    cards = make_deck(120)
    token = Token.objects.create(user=alice).key
    browser = Client()
    browser.force_login(bob)
    session = browser.cookies["sessionid"].value
    api_plan = [(c.pk, g, str(uuid.uuid4())) for c, g in zip(cards[:80], cycle(GRADES))]
    page_plan = [(c.pk, g, str(uuid.uuid4())) for c, g in zip(cards[80:], cycle(GRADES))]

    def send_api(server, *item):
        return api_review(server, *item, token=token)

    def send_page(server, *item):
        return page_grade(server, *item, session=session)

    api, page = Traffic(web_server, api_plan, send_api), Traffic(web_server, page_plan, send_page)
    api.thread.start(), page.thread.start()
    time.sleep(0.5)  # some reviews land before the restart
    restart_s = restart_database()
    back_at = time.monotonic()
    # The first request after the database is back succeeds: each gunicorn worker's persistent
    # connection died in the restart, and the health check replaces it before its first query.
    for _ in range(4):
        status, _, text, _ = web_server.request(
            "GET", "/api/study/queue/", headers={"Authorization": f"Token {token}"}
        )
        assert status == 200, text[:300]
    first_ok_s = time.monotonic() - back_at
    time.sleep(0.5)
    api.stop.set(), page.stop.set()
    api.thread.join(30), page.thread.join(30)
    connection.close()  # this test's own connection died in the restart too

    outages = 0
    for traffic, is_api in ((api, True), (page, False)):
        for answers in traffic.answers.values():
            assert_clear(answers[0], api=is_api)
            outages += answers[0][0] == 503
    assert outages, "no request met the restart: the test proved nothing"

    # Every client retries with its client_id: each review is there exactly once.
    for traffic, is_api in ((api, True), (page, False)):
        for item in traffic.attempted():
            answer = traffic.send(web_server, *item)
            assert_clear(answer, api=is_api)
            assert answer[0] in (200, 201), answer[2][:300]
            first = traffic.answers[item[2]][0]
            if is_api and first[0] in (200, 201):
                assert answer[0] == 200 and json.loads(answer[2]) == json.loads(first[2])
    now = timezone.now()
    for user, traffic in ((alice, api), (bob, page)):
        attempted = traffic.attempted()
        logs = ReviewLog.objects.filter(user=user)
        assert logs.count() == len(attempted)
        assert {str(c) for c in logs.values_list("client_id", flat=True)} == {
            item[2] for item in attempted
        }
        states = {s.card_id: s for s in CardState.objects.filter(user=user)}
        for card_id, grade, _ in attempted:
            once = scheduler.review(scheduler.new_state(now), grade, now)
            state = states[card_id]
            assert (state.repetitions, state.interval_days, state.lapses, state.last_grade) == (
                once.repetitions,
                once.interval_days,
                once.lapses,
                grade,
            )
            assert state.needs_redrill == once.needs_redrill
    slowest = max(a[0][3] for t in (api, page) for a in t.answers.values())
    print(
        f"\nrestart {restart_s:.1f} s; 4 requests after it ok in {first_ok_s:.2f} s; "
        f"{len(api.attempted())} API and {len(page.attempted())} page reviews, {outages} met "
        f"the outage (503); slowest answer {slowest:.2f} s"
    )


def test_while_the_database_is_unreachable_api_page_and_htmx_answer_503_with_a_sentence(
    web_server, alice, small_deck
):
    token = Token.objects.create(user=alice).key
    browser = Client()
    browser.force_login(alice)
    session = browser.cookies["sessionid"].value
    card = small_deck.cards.first()
    item = (card.pk, 4, str(uuid.uuid4()))
    pages = {
        "api": lambda: api_review(web_server, *item, token=token),
        "htmx": lambda: page_grade(web_server, *item, session=session),
        "page": lambda: web_server.request(
            "GET", "/study/", headers={"Cookie": f"sessionid={session}"}
        ),
    }
    connection.ensure_connection()
    refuse_connections(False)
    try:
        answers = {name: send() for name, send in pages.items()}
    finally:
        refuse_connections(True)
    for name, (status, headers, text, _) in answers.items():
        assert status == 503, f"{name}: {status} {text[:300]}"
        assert headers["Retry-After"] == "5"
    assert json.loads(answers["api"][2]) == {"detail": MESSAGE, "error": MESSAGE}
    assert answers["htmx"][2] == f'<p class="review-notice" role="alert">{MESSAGE}</p>'
    assert (answers["htmx"][1]["HX-Retarget"], answers["htmx"][1]["HX-Reswap"]) == (
        "this",
        "beforebegin",
    )
    assert "<h1>Back in a moment</h1>" in answers["page"][2]
    # Back: the same review lands once (201), then replays (200).
    assert api_review(web_server, *item, token=token)[0] == 201
    assert api_review(web_server, *item, token=token)[0] == 200
    assert page_grade(web_server, *item, session=session)[0] == 200
    assert ReviewLog.objects.filter(user=alice).count() == 1
