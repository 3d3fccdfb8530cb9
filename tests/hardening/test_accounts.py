"""Accounts: 30 password-reset posts for one address sent 30 e-mails (only the shared 300/min per
address applied); the profile page advertised `POST /api/auth/token/`, which was 404; and a token
still worked after a password reset, so a learner could neither get, rotate nor revoke one."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice_mail(alice):
    alice.email = "alice@example.com"
    alice.save()
    return alice


def reset(client, address: str, ip: str = "10.0.0.1"):
    return client.post("/accounts/password-reset/", {"email": address}, REMOTE_ADDR=ip)


# Password reset throttles -----------------------------------------------------------------------


def test_resets_for_one_address_send_three_mails_an_hour_then_say_why_not(client, alice_mail):
    answers = [reset(client, "alice@example.com", ip=f"10.0.0.{i}") for i in range(10)]
    assert len(mail.outbox) == 3
    assert [a.status_code for a in answers[:3]] == [302] * 3
    refused = answers[3]
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert (
        "Too many password-reset e-mails were asked for this e-mail address lately, so none "
        "was sent this time." in refused.content.decode()
    )
    assert {a.status_code for a in answers[3:]} == {429}
    # The count is of the address asked for, account or not: a refusal tells nothing.
    for _ in range(4):
        last = reset(client, "nobody@example.com", ip="10.9.9.9")
    assert last.status_code == 429
    assert reset(client, "ALICE@example.com ", ip="10.0.1.1").status_code == 429


def test_resets_from_one_client_are_counted_too(client, alice_mail):
    answers = [reset(client, f"someone{i}@example.com") for i in range(21)]
    assert [a.status_code for a in answers].count(302) == 20
    assert answers[-1].status_code == 429
    assert "asked for from your address" in answers[-1].content.decode()
    assert reset(client, "alice@example.com").status_code == 429 and not mail.outbox


# The caller's API token -------------------------------------------------------------------------


def token_post(api: APIClient, **body):
    return api.post("/api/auth/token/", body, format="json")


def works(token: str) -> bool:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return api.get("/api/me/profile/").status_code == 200


def test_get_rotate_and_revoke_the_token(api_client, alice):
    first = token_post(api_client, username="alice", password="pw-alice-123")
    assert first.status_code == 201 and first.json()["created"] is True
    token = first.json()["token"]
    assert works(token)
    again = token_post(api_client, username="alice", password="pw-alice-123")
    assert again.status_code == 200 and again.json() == {"token": token, "created": False}

    by_token = APIClient()
    by_token.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    rotated = token_post(by_token, rotate=True)
    assert rotated.status_code == 201 and rotated.json()["token"] != token
    assert not works(token) and works(rotated.json()["token"])

    signed_in = APIClient()
    signed_in.force_login(alice)
    assert token_post(signed_in).json()["token"] == rotated.json()["token"]
    assert signed_in.delete("/api/auth/token/").status_code == 204
    assert not works(rotated.json()["token"])


def test_token_refusals_are_sentences(api_client, alice):
    wrong = token_post(api_client, username="alice", password="nope")
    assert wrong.status_code == 400
    assert wrong.json()["error"] == "password: the username and password do not match an account"
    half = token_post(api_client, username="alice")
    assert half.json()["error"] == "send both username and password, or neither"
    anonymous = token_post(api_client)
    assert anonymous.status_code in (401, 403)
    assert "send your username and password" in anonymous.json()["error"]
    assert api_client.delete("/api/auth/token/").status_code in (401, 403)
    loose = token_post(api_client, username="alice", password="pw-alice-123", rotate="yes")
    assert loose.status_code == 400 and loose.json()["error"] == "rotate: Must be true or false."


def test_wrong_passwords_for_a_token_lock_out_as_the_log_in_page_does(api_client, alice):
    answers = [token_post(api_client, username="alice", password="nope") for _ in range(5)]
    assert [a.status_code for a in answers] == [400, 400, 400, 400, 429]  # the 5th locks
    locked = token_post(api_client, username="alice", password="pw-alice-123")
    assert locked.status_code == 429 and "Log-in is locked" in locked.json()["error"]


def test_a_password_reset_revokes_the_token(client, api_client, alice_mail):
    token = token_post(api_client, username="alice", password="pw-alice-123").json()["token"]
    reset(client, "alice@example.com")
    link = re.search(r"/accounts/reset/[^/]+/[^/]+/", mail.outbox[0].body).group(0)
    form = client.get(link, follow=True)
    new = {"new_password1": "a-new-long-password-28", "new_password2": "a-new-long-password-28"}
    done = client.post(form.redirect_chain[-1][0], new)
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"
    assert not works(token)


def test_a_password_change_revokes_the_token_and_nothing_else_does(client, api_client, alice):
    token = token_post(api_client, username="alice", password="pw-alice-123").json()["token"]
    client.force_login(alice)
    client.post("/accounts/profile/", {"time_zone": "UTC", "new_cards_per_day": 5,
                                       "reviews_per_day": 50})  # fmt: skip
    alice.first_name = "Alice"
    alice.save()
    assert works(token)  # a save that keeps the password keeps the token
    page = client.get("/accounts/password-change/")
    assert "your API token stops working" in page.content.decode()
    changed = client.post("/accounts/password-change/", {
        "old_password": "pw-alice-123", "new_password1": "another-long-password-28",
        "new_password2": "another-long-password-28"})  # fmt: skip
    assert changed.status_code == 302 and changed["Location"] == "/accounts/password-change/done/"
    assert not works(token)


def test_the_profile_page_tells_how_to_get_rotate_and_revoke_a_token(client, alice):
    client.force_login(alice)
    html = client.get("/accounts/profile/").content.decode()
    assert "<code>POST /api/auth/token/</code>" in html
    assert "<code>DELETE /api/auth/token/</code> revokes it" in html
    assert 'href="/accounts/password-change/"' in html
