"""Finding 7: page writes are throttled like the API's: the htmx grade posts of
/study/review/<deck>/ (320 went through unrefused), the import page and every other page form
share the "write" rate, and a refusal is a 429 with Retry-After and a sentence."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from apps.study.models import ReviewLog

pytestmark = pytest.mark.django_db


@pytest.fixture
def write_rate(settings):
    def set_rate(rate: str):
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {
                **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "write": rate
            },
        }  # fmt: skip

    return set_rate


def grade_once(client, html: str):
    values = {
        "card": re.search(r'name="card" value="(\d+)"', html).group(1),
        "client_id": re.search(r'name="client_id" value="([^"]+)"', html).group(1),
        "grade": "1",  # again: the card stays in today's queue, so there is always one to grade
    }
    return client.post("/study/review/ray-basics/", values, HTTP_HX_REQUEST="true")


def test_htmx_grade_posts_past_the_write_rate_get_429_with_retry_after(
    client, alice, small_deck, write_rate
):
    write_rate("5/day")
    client.force_login(alice)
    html = client.get("/study/review/ray-basics/").content.decode()
    codes = []
    for _ in range(7):
        response = grade_once(client, html)
        codes.append(response.status_code)
        if response.status_code == 200:
            html = response.content.decode()
    assert codes == [200] * 5 + [429, 429]
    assert int(response["Retry-After"]) > 0
    notice = response.content.decode()
    assert "more than 5 changes" in notice and "was not saved" in notice
    assert response["HX-Reswap"] == "beforebegin"  # the grade form stays for the retry
    assert ReviewLog.objects.filter(user=alice).count() == 5


def test_page_and_api_writes_share_one_budget(client, alice, small_deck, write_rate):
    write_rate("2/day")
    client.force_login(alice)
    html = client.get("/study/review/ray-basics/").content.decode()
    assert grade_once(client, html).status_code == 200
    api = APIClient()
    api.force_authenticate(alice)
    card = small_deck.cards.order_by("order")[1]
    assert (
        api.post("/api/reviews/", {"card": card.pk, "grade": 4}, format="json").status_code == 201
    )
    assert grade_once(client, html).status_code == 429


def test_the_import_page_is_throttled_with_a_page_in_the_apps_design(client, staff, write_rate):
    write_rate("1/day")
    client.force_login(staff)
    upload = {"file": SimpleUploadedFile("x.yaml", b"slug: x\n")}
    client.post("/author/import/", upload)
    response = client.post("/author/import/", {"file": SimpleUploadedFile("x.yaml", b"x")})
    assert response.status_code == 429 and response["Retry-After"]
    page = response.content.decode()
    assert "Too many requests" in page and '<main id="main"' in page
    assert "send it again" in page
