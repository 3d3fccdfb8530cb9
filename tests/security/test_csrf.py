"""CSRF on every form and every htmx request; the API asks it of session clients only."""

import re
from pathlib import Path

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from apps.study.models import ReviewLog

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted(
    p for d in ("templates", "apps") for p in (ROOT / d).rglob("*.html") if "templates" in p.parts
)


def test_every_post_form_in_the_templates_carries_the_token():
    forms, missing = 0, []
    for path in TEMPLATES:
        text = path.read_text()
        for match in re.finditer(r"<form\b[^>]*>", text, re.I):
            if not re.search(r"method=[\"']?post", match.group(0), re.I):
                continue
            forms += 1
            end = text.find("</form>", match.end())
            if "{% csrf_token %}" not in text[match.end() : end]:
                missing.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert forms > 20
    assert not missing, "\n".join(missing)


def test_htmx_requests_send_the_token_from_the_body():
    base = (ROOT / "templates" / "base.html").read_text()
    assert """<body hx-headers='{"X-CSRFToken": "{{ csrf_token }}"}'>""" in base


@pytest.mark.django_db
def test_an_htmx_grade_without_the_token_is_refused_and_with_it_lands(alice, small_deck):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    html = client.get("/study/review/ray-basics/").content.decode()
    token = re.search(r'hx-headers=\'\{"X-CSRFToken": "([^"]+)"\}\'', html).group(1)
    card = small_deck.cards.get(slug="ray-task")
    grade = {"card": card.pk, "grade": 4, "client_id": "1c7f0a6e-4b7e-4f59-9a43-7b5f8f1e2d11"}
    url = "/study/review/ray-basics/"

    refused = client.post(url, grade, headers={"HX-Request": "true"})
    assert refused.status_code == 403
    assert not ReviewLog.objects.filter(user=alice).exists()

    landed = client.post(url, grade, headers={"HX-Request": "true", "X-CSRFToken": token})
    assert landed.status_code == 200
    assert ReviewLog.objects.filter(user=alice, card=card, grade=4).count() == 1


@pytest.mark.django_db
def test_a_plain_form_post_without_the_token_is_refused(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post("/accounts/profile/", {"time_zone": "UTC"})
    assert response.status_code == 403
    # our page, under the same policy (Django's own has an inline <style>)
    assert "This form has expired" in response.content.decode()
    assert "style-src 'self'" in response["Content-Security-Policy"]


@pytest.mark.django_db
def test_the_api_asks_session_clients_for_the_token_but_not_token_clients(alice, small_deck):
    card = small_deck.cards.get(slug="ray-task")
    body = {"card": card.pk, "grade": 4}

    session = APIClient(enforce_csrf_checks=True)
    session.force_login(alice)
    refused = session.post("/api/reviews/", body, format="json")
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["error"]

    token = APIClient(enforce_csrf_checks=True)
    token.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=alice).key}")
    assert token.post("/api/reviews/", body, format="json").status_code == 201
    assert ReviewLog.objects.filter(user=alice).count() == 1
