"""Input hygiene: invalid UTF-8 in a multipart form was stored as U+FFFD (docs/security.md says
it is refused); 10 parallel quiz submits with one client_id answered 201 to some and 400 "fetch
GET first" to others; team names of invisible characters only, or starting with a right-to-left
override, and a username copying another with a Cyrillic letter were accepted; CSV exports left
a full-width = and a leading | as they were; `for_interview: 0` passed as a boolean."""

from __future__ import annotations

import csv
import io
import json
import threading
import uuid
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.client import BOUNDARY
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import UsernameSkeleton
from apps.quizzes.models import Attempt
from apps.study.models import ReviewLog
from apps.study.services import review_record
from apps.teams.models import Team
from config import csv_safety

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def multipart(fields: dict[bytes, bytes]) -> bytes:
    lines = []
    for name, value in fields.items():
        lines += [b"--" + BOUNDARY.encode(),
                  b'Content-Disposition: form-data; name="' + name + b'"', b"", value]  # fmt: skip
    return b"\r\n".join([*lines, b"--" + BOUNDARY.encode() + b"--", b""])


MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"
NOT_UTF8 = "The form holds bytes that are not UTF-8: remove them and send the form again."


# Multipart forms, strictly UTF-8 ----------------------------------------------------------------


@pytest.mark.parametrize("field", [b"name", b"deck"])
def test_invalid_utf8_in_a_multipart_api_form_is_a_400(alice, small_deck, field):
    body = {b"name": b"Ray cohort", b"deck": b"ray-basics"}
    body[field] = body[field] + b" \xff\xfe"
    response = client_for(alice).generic("POST", "/api/teams/", multipart(body), MULTIPART)
    assert response.status_code == 400 and response.json()["error"] == NOT_UTF8
    assert not Team.objects.exists()


def test_invalid_utf8_in_a_multipart_page_form_is_a_400_page(client, alice, small_deck):
    client.force_login(alice)
    deck = str(small_deck.pk).encode()
    body = multipart({b"name": b"Bad \xc3\x28 cohort", b"deck": deck})
    response = client.generic("POST", "/teams/", body, MULTIPART)
    assert response.status_code == 400 and NOT_UTF8 in response.content.decode()
    assert not Team.objects.exists()
    good = multipart({b"name": "Ray Kohorte \u00fc".encode(), b"deck": deck})
    assert client.generic("POST", "/teams/", good, MULTIPART).status_code == 302
    assert Team.objects.get().name == "Ray Kohorte \u00fc"  # UTF-8 itself is read as it is


# Quiz submits replayed alike --------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_ten_parallel_submits_with_one_client_id_are_answered_alike(alice, quizzes):
    if connection.vendor != "postgresql":
        pytest.skip("a race between transactions: CI runs it with DATABASE_URL=postgres://...")
    timed = quizzes["final-check"]
    clients = [client_for(alice) for _ in range(10)]
    assert clients[0].get(f"/api/quizzes/{timed.slug}/").status_code == 200  # starts the clock
    body = {"answers": {}, "client_id": str(uuid.uuid4())}
    barrier, responses = threading.Barrier(10), [None] * 10

    def submit(i):
        from django.db import connection as own

        try:
            barrier.wait()
            responses[i] = clients[i].post(f"/api/quizzes/{timed.slug}/attempts/", body,
                                           format="json")  # fmt: skip
        finally:
            own.close()

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] * 9 + [201], [r.content[:200] for r in responses]
    assert len({json.dumps(r.json(), sort_keys=True) for r in responses}) == 1
    assert Attempt.objects.filter(user=alice, quiz=timed, submitted_at__isnull=False).count() == 1


# Names ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("\u200b\u2060\ufeff", "A team name needs at least one visible letter, digit or sign."),
        ("\u3164\u115f", "A team name needs at least one visible letter, digit or sign."),
        ("\u202eevil cohort", "A team name cannot hold the direction control U+202E (RIGHT-TO-LEFT "
         "OVERRIDE): it changes how the text around it reads. Remove it."),
        ("cohort \u2067x\u2069", "A team name cannot hold the direction control U+2067"),
    ],
)  # fmt: skip
def test_team_names_refuse_invisible_only_text_and_direction_controls(alice, small_deck, name,
                                                                      error):  # fmt: skip
    response = client_for(alice).post("/api/teams/", {"name": name, "deck": "ray-basics"},
                                      format="json")  # fmt: skip
    assert response.status_code == 400 and response.json()["error"].startswith(error)
    assert not Team.objects.exists()


def signup(client, username: str, email: str):
    return client.post("/accounts/signup/", {
        "username": username, "email": email, "password1": "a-long-pass-phrase-28",
        "password2": "a-long-pass-phrase-28"})  # fmt: skip


@pytest.mark.parametrize("copy", ["\u0430lice", "ALICE", "\uff41lice", "al\u0456ce"])
def test_a_username_that_reads_as_another_is_refused(client, alice, copy):
    response = signup(client, copy, "copy@example.com")
    html = response.content.decode()
    assert response.status_code == 200
    # Django's own check catches a copy in other case or width (it compares NFKC, case-folded);
    # the skeleton catches letters of another alphabet.
    assert ("This username reads the same as one already taken" in html
            or "A user with that username already exists." in html)  # fmt: skip
    assert not get_user_model().objects.filter(email="copy@example.com").exists()


def test_new_usernames_keep_their_skeleton_and_bidi_is_refused(client, alice):
    assert signup(client, "bob_ray", "bob@example.com").status_code == 302
    assert UsernameSkeleton.objects.get(user__username="bob_ray").skeleton == "bob_ray"
    assert UsernameSkeleton.objects.get(user=alice).skeleton == "alice"
    client.logout()
    response = signup(client, "\u202eecila", "rtl@example.com")
    assert "A username cannot hold the direction control U+202E" in response.content.decode()
    client.logout()
    assert signup(client, "Müller", "m@example.com").status_code == 302  # letters are letters


# CSV formulas -----------------------------------------------------------------------------------

FORMULAS = ["\uff1dcmd|' /C calc'!A0", "|cmd", "\uff0b1+1", "\uff0d2", "\uff20SUM(A1)",
            "\ufe66HYPERLINK(1)", "%1", "\u22121", "\nstart"]  # fmt: skip


@pytest.mark.parametrize("value", FORMULAS)
def test_every_formula_start_a_spreadsheet_reads_is_defused_and_restored(value):
    out = io.StringIO()
    csv_safety.writer(out).writerow([value, 3])
    written = next(csv.reader(io.StringIO(out.getvalue())))
    assert written == ["'" + value, "3"]
    assert csv_safety.cell_restore(written[0]) == value


def test_the_deck_csv_export_defuses_a_fullwidth_equals_and_a_pipe(staff, small_deck):
    small_deck.cards.filter(slug="ray-task").update(front='\uff1dHYPERLINK("x")')
    small_deck.cards.filter(slug="ray-actor").update(back="|cmd")
    text = client_for(staff).get("/api/author/decks/ray-basics/export/csv/").content.decode()
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    assert '\'\uff1dHYPERLINK("x")' in cells and "'|cmd" in cells
    assert not any(cell[:1] in ("\uff1d", "|") for cell in cells)


# Booleans ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 1, "true", "yes"])
def test_for_interview_must_be_true_or_false(alice, small_deck, value):
    card = small_deck.cards.get(slug="ray-task")
    body = {"card": card.pk, "grade": 4, "for_interview": value}
    response = client_for(alice).post("/api/reviews/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "for_interview: Must be true or false."
    assert not ReviewLog.objects.exists()


def test_a_form_body_says_true_or_false_in_words(alice, small_deck):
    card = small_deck.cards.get(slug="ray-task")
    api = client_for(alice)
    for value in ("0", "yes", "on"):
        body = {"card": card.pk, "grade": 4, "for_interview": value}
        response = api.post("/api/reviews/", body, format="multipart")
        assert response.status_code == 400, value
    body = {"card": card.pk, "grade": 4, "for_interview": "false"}
    assert api.post("/api/reviews/", body, format="multipart").status_code == 201


def test_suspended_must_be_true_or_false(alice, small_deck):
    card = small_deck.cards.get(slug="ray-task")
    review_record(user=alice, card=card, grade=4, now=timezone.now() - timedelta(days=2))
    api = client_for(alice)
    response = api.patch(f"/api/cards/{card.pk}/state/", {"suspended": 1}, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "suspended: Must be true or false."
    assert api.patch(f"/api/cards/{card.pk}/state/", {"suspended": True},
                     format="json").status_code == 200  # fmt: skip
