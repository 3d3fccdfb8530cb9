"""HTML and JSON are served gzipped to clients that accept it (responses under 200 bytes, which
gzip would only grow, stay as they are), with Heal-the-BREACH padding: the same page compresses
to different lengths from one response to the next."""

import gzip

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def get(client, url, **headers):
    return client.get(url, headers={"accept-encoding": "gzip, deflate, br"} | headers)


def test_pages_and_api_are_gzipped_and_vary_on_accept_encoding(client, alice, small_deck):
    client.force_login(alice)
    for url, kind in [
        (reverse("home"), "text/html"),
        ("/study/review/ray-basics/", "text/html"),
        ("/api/decks/ray-basics/", "application/json"),
        ("/api/study/queue/", "application/json"),
    ]:
        response = get(client, url)
        assert response.status_code == 200, url
        assert response["Content-Encoding"] == "gzip", url
        assert response["Content-Type"].startswith(kind), url
        assert "Accept-Encoding" in response["Vary"], url
        body = gzip.decompress(response.content)
        assert len(response.content) < len(body), url


def test_no_gzip_for_a_client_that_does_not_ask(client, small_deck):
    response = client.get(reverse("home"))
    assert "Content-Encoding" not in response and b"RayDeck" in response.content


def test_the_same_page_compresses_to_different_lengths(client, alice, small_deck):
    """Heal-the-BREACH: random padding in the gzip header (a page with a CSRF token in it)."""
    client.force_login(alice)
    sizes = {len(get(client, "/study/review/ray-basics/").content) for _ in range(8)}
    assert len(sizes) > 1
