"""Finding 8: the schema says what the API does (410 on join, no extra demo params, YAML is
text), and refusals look like the app: pages for people, JSON under /api/."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return APIClient().get("/api/schema/?format=json").json()


def test_join_documents_its_410(schema):
    responses = schema["paths"]["/api/teams/join/"]["post"]["responses"]
    assert "410" in responses and responses["410"]["content"]["application/json"]


def test_demo_params_refuse_extra_keys_in_the_schema_as_the_api_does(schema, alice):
    params = schema["components"]["schemas"]["DemoRunCreateRequest"]["properties"]["params"]
    assert params["additionalProperties"] is False
    assert {"n_items", "work_ms"} <= set(params["properties"])
    api = APIClient()
    api.force_authenticate(alice)
    response = api.post(
        "/api/demo-runs/", {"demo": "vtrace", "params": {"colour": 1}}, format="json"
    )
    assert response.status_code == 400 and "unknown parameter" in response.json()["error"]


def test_the_yaml_and_csv_exports_are_text_and_only_apkg_is_binary(schema):
    content = schema["paths"]["/api/author/decks/{slug}/export/{fmt}/"]["get"]["responses"]["200"][
        "content"
    ]
    assert content["application/yaml"]["schema"] == {"type": "string"}
    assert content["text/csv"]["schema"] == {"type": "string"}
    assert content["application/octet-stream"]["schema"]["format"] == "binary"


def test_an_author_page_refusal_is_a_403_page_in_the_apps_design(client, alice, small_deck):
    client.force_login(alice)
    response = client.get("/author/decks/ray-basics/")
    assert response.status_code == 403
    page = response.content.decode()
    assert '<main id="main"' in page and "Not allowed" in page
    assert "Only staff and deck authors may open the author pages." in page


def test_api_refusals_are_json(api_client, alice, small_deck):
    assert api_client.get("/api/no-such-thing/").json()["error"]
    api_client.force_authenticate(alice)
    response = api_client.get("/api/author/decks/ray-basics/")
    assert response.status_code in (403, 404) and response.json()["error"]


def test_a_page_404_is_in_the_apps_design(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404 and '<main id="main"' in response.content.decode()
