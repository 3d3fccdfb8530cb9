"""Defects the fuzzer found, pinned as plain tests: a deep fuzz run finds them only by luck."""

import pytest
from rest_framework.test import APIClient

from tests.access.world import world_build

pytestmark = pytest.mark.django_db

PAST_64_BITS = 2**64 + 1


@pytest.fixture
def alice_api():
    world = world_build()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {world.tokens['alice']}")
    return api


@pytest.mark.parametrize(
    "body",
    [
        {"card": PAST_64_BITS, "grade": 3},  # crashed the compiled card query: a 500
        {"card": 1, "grade": 3, "duration_ms": 2**31},  # past PostgreSQL's integer column
    ],
)
def test_a_review_with_an_out_of_range_number_is_a_400(alice_api, body):
    response = alice_api.post("/api/reviews/", body, format="json")
    assert response.status_code == 400
    assert "less than or equal to" in response.json()["error"]


@pytest.mark.parametrize(
    "url", [f"/api/cards/{PAST_64_BITS}/state/", f"/api/demo-runs/{PAST_64_BITS}/"]
)
def test_an_id_past_64_bits_in_a_path_is_a_404(alice_api, url):
    assert alice_api.get(url).status_code == 404


@pytest.mark.parametrize(
    "url, body",
    [
        ("/api/teams/", {"name": 7}),
        ("/api/author/preview/", {"text": 7}),
        ("/api/author/revisions/{revision}/restore/", {"changes_answer": 0}),
    ],
)
def test_a_number_for_text_or_a_boolean_is_refused(alice_api, url, body):
    from apps.authoring.models import Revision

    url = url.format(revision=Revision.objects.order_by("pk").first().pk)
    response = alice_api.post(url, body, format="json")
    assert response.status_code == 400, response.content


CSV = b"slug,front,back,section,tags\nc1,Q?,A.,basics,\n"


@pytest.mark.parametrize("url", ["/api/author/import/", "/api/author/imports/"])
@pytest.mark.parametrize(
    "query, fields, refused",
    [
        ("", [("title", "One"), ("title", "Two")], "title"),  # a field twice: which one?
        ("?dry_run=1&dry_run=0", [("title", "One")], "dry_run"),
        ("?dry_runs=1", [("title", "One")], "dry_runs"),  # misspelt: would have imported
    ],
)
def test_an_import_with_a_repeated_field_or_an_unknown_parameter_is_a_400(
    url, query, fields, refused
):
    """The fuzzer sent title twice and an unknown query parameter, and a job was queued (202)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.authoring.models import ImportJob

    world = world_build()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {world.tokens['staff']}")
    jobs = ImportJob.objects.count()
    body = {"deck": "fuzzed", "file": SimpleUploadedFile("deck.csv", CSV)}
    for name, value in fields:  # a list is sent as the field repeated
        body[name] = [*body.get(name, []), value]
    response = api.post(url + query, body, format="multipart")
    assert response.status_code == 400, response.content[:300]
    assert refused in response.json()
    assert ImportJob.objects.count() == jobs  # nothing queued
