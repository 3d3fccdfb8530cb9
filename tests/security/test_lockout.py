"""Guessing passwords locks out one username from one address for the cool-off, no more."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

LOCKED = "Log-in is locked for 15 minutes after 5 failed attempts"


def attempt(username: str, password: str, ip: str = "203.0.113.7", **headers):
    client = Client(REMOTE_ADDR=ip, headers=headers)
    response = client.post("/accounts/login/", {"username": username, "password": password})
    return client, response


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_five_wrong_passwords_lock_the_sixth_attempt_even_with_the_right_one(alice):
    for _ in range(4):
        client, response = attempt("alice", "guess")
        assert response.status_code == 200 and not logged_in(client)
        assert "Please enter a correct username and password" in response.content.decode()
    _, fifth = attempt("alice", "guess")
    assert fifth.status_code == 429

    client, sixth = attempt("alice", "pw-alice-123")
    assert sixth.status_code == 429
    assert not logged_in(client)
    page = sixth.content.decode()
    assert LOCKED in page and "<h1>Too many failed log-ins</h1>" in page
    assert sixth["Retry-After"] == "900"
    assert "Content-Security-Policy" in sixth


def test_the_lock_holds_for_that_username_and_address_only(alice, bob):
    for _ in range(5):
        attempt("alice", "guess")
    client, other_user = attempt("bob", "pw-bob-123")
    assert other_user.status_code == 302 and logged_in(client)
    client, other_address = attempt("alice", "pw-alice-123", ip="198.51.100.9")
    assert other_address.status_code == 302 and logged_in(client)
    # The login form itself keeps working for everyone else.
    assert Client(REMOTE_ADDR="203.0.113.7").get("/accounts/login/").status_code == 200


def test_a_success_resets_the_count(alice):
    for _ in range(4):
        attempt("alice", "guess")
    client, ok = attempt("alice", "pw-alice-123")
    assert ok.status_code == 302 and logged_in(client)
    for _ in range(4):
        attempt("alice", "guess")
    client, ok = attempt("alice", "pw-alice-123")
    assert ok.status_code == 302 and logged_in(client)


def test_the_lock_ends_after_the_cool_off(alice, settings):
    from datetime import timedelta

    from axes.models import AccessAttempt

    for _ in range(5):
        attempt("alice", "guess")
    assert attempt("alice", "pw-alice-123")[1].status_code == 429
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time - timedelta(minutes=16)
    )
    client, ok = attempt("alice", "pw-alice-123")
    assert ok.status_code == 302 and logged_in(client)


def test_a_forged_forwarded_for_does_not_escape_the_lock(alice, settings):
    for _ in range(5):
        attempt("alice", "guess")
    # No proxy is configured, so X-Forwarded-For is the client's own word and is ignored.
    _, response = attempt("alice", "pw-alice-123", X_Forwarded_For="192.0.2.1")
    assert response.status_code == 429


def test_behind_one_proxy_the_address_it_appends_is_the_client(alice, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    proxy = "10.0.0.2"
    for _ in range(5):
        attempt("alice", "guess", ip=proxy, X_Forwarded_For="192.0.2.1, 203.0.113.7")
    # Same client behind the same proxy, forging a different leftmost entry: still locked.
    _, response = attempt("alice", "pw-alice-123", ip=proxy, X_Forwarded_For="6.6.6.6, 203.0.113.7")
    assert response.status_code == 429
    # Another client behind the same proxy is not.
    client, response = attempt("alice", "pw-alice-123", ip=proxy, X_Forwarded_For="198.51.100.9")
    assert response.status_code == 302 and logged_in(client)


def test_the_admin_log_in_shares_the_lock(staff):
    client = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(5):
        client.post("/admin/login/", {"username": "staff", "password": "guess"})
    response = client.post("/admin/login/", {"username": "staff", "password": "pw-staff-123"})
    assert response.status_code == 429 and LOCKED in response.content.decode()
    _, site = attempt("staff", "pw-staff-123")
    assert site.status_code == 429
