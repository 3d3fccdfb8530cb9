"""The OpenAPI description is complete and valid: every endpoint, no generator warnings."""

import io

import pytest
import yaml
from django.core.management import call_command


@pytest.mark.django_db
def test_schema_validates_without_warnings():
    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    schema = yaml.safe_load(out.getvalue())
    paths = set(schema["paths"])
    for expected in [
        "/api/decks/",
        "/api/decks/{slug}/",
        "/api/study/queue/",
        "/api/reviews/",
        "/api/reviews/undo/",
        "/api/cards/{card_id}/state/",
        "/api/quizzes/",
        "/api/quizzes/{slug}/",
        "/api/quizzes/{slug}/attempts/",
        "/api/teams/",
        "/api/teams/join/",
        "/api/teams/{slug}/progress/",
        "/api/teams/{slug}/invites/",
        "/api/teams/{slug}/members/{user_id}/",
        "/api/me/export.json",
        "/api/me/export.zip",
    ]:
        assert expected in paths, f"{expected} is missing from the OpenAPI schema"


@pytest.mark.django_db
def test_the_review_post_documents_a_moment_from_a_device_and_its_refusals():
    out = io.StringIO()
    call_command("spectacular", stdout=out)
    schema = yaml.safe_load(out.getvalue())
    post = schema["paths"]["/api/reviews/"]["post"]
    assert {"200", "201", "400", "409"} <= set(post["responses"])
    assert "reviewed_at" in post["responses"]["400"]["description"]
    body = schema["components"]["schemas"]["ReviewCreateRequest"]["properties"]
    assert body["reviewed_at"]["format"] == "date-time"
    assert body["based_on"]["nullable"] is True
    review = schema["components"]["schemas"]["Review"]["properties"]
    assert review["conflict"]["nullable"] is True
    assert set(schema["components"]["schemas"]["Conflict"]["properties"]) == {"card", "message"}
