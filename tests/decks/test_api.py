import pytest

pytestmark = pytest.mark.django_db


def test_deck_list_is_public_with_counts(api_client, small_deck, django_assert_num_queries):
    with django_assert_num_queries(1):
        response = api_client.get("/api/decks/")
    assert response.status_code == 200
    assert response.json() == [
        {
            "slug": "ray-basics",
            "title": "Ray basics",
            "description": "The *core* of Ray.",
            "objectives": ["Tell a task from an actor", "Name RLlib's parts"],
            "section_count": 2,
            "card_count": 5,
        }
    ]


def test_deck_detail_has_sections_and_cards_in_order(api_client, small_deck):
    response = api_client.get("/api/decks/ray-basics/")
    body = response.json()
    assert [s["slug"] for s in body["sections"]] == ["ray-core", "rllib"]
    assert [c["slug"] for c in body["sections"][0]["cards"]] == [
        "ray-task",
        "ray-actor",
        "object-store",
    ]
    card = body["sections"][0]["cards"][0]
    assert card["front_html"] == "<p>What is a Ray task?</p>\n"
    assert isinstance(card["id"], int)


def test_deck_detail_query_count_does_not_grow_with_cards(
    api_client, small_deck, django_assert_num_queries
):
    with django_assert_num_queries(3):
        api_client.get("/api/decks/ray-basics/")


def test_unknown_deck_is_a_json_404_a_person_can_read(api_client, small_deck):
    response = api_client.get("/api/decks/nope/")
    assert response.status_code == 404
    assert response.json()["error"]


def test_unknown_api_path_is_json(client, db):
    response = client.get("/api/nothing-here/")
    assert response.status_code == 404
    assert response.json()["error"] == "No such resource."


def test_draft_decks_are_invisible_in_the_api(api_client, small_deck):
    small_deck.is_published = False
    small_deck.save()
    assert api_client.get("/api/decks/").json() == []
    assert api_client.get("/api/decks/ray-basics/").status_code == 404


def test_openapi_schema_and_offline_docs(client, db):
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/decks/{slug}/" in schema.content
    docs = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in docs
    assert "cdn" not in docs.lower() and "unpkg" not in docs.lower()
    assert "/static/drf_spectacular_sidecar/" in docs


def test_token_auth_is_accepted(api_client, alice):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=alice)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api_client.get("/api/decks/").status_code == 200
