"""The card browser as alice uses it: search fronts and backs, filter by deck, section, tag and
state, sort by her schedule, page through; open a card with its schedule and history; the API
gives the same. Query counts stay flat however many cards there are."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from apps.browse import selectors as browse
from apps.decks.models import Card, Deck, Section
from apps.study.services import card_suspend, review_record

pytestmark = pytest.mark.django_db

PAST = timezone.now() - timedelta(days=10)


@pytest.fixture
def alice_world(alice, small_deck):
    """alice learnt the task card, failed and relearnt the actor card, suspended the store."""
    cards = {c.slug: c for c in small_deck.cards.all()}
    cards["ray-task"].tags = ["core", "remote functions"]
    cards["ray-task"].save()
    review_record(user=alice, card=cards["ray-task"], grade=5, now=PAST + timedelta(days=1))
    review_record(user=alice, card=cards["ray-actor"], grade=4, now=PAST)
    review_record(user=alice, card=cards["ray-actor"], grade=1, now=PAST + timedelta(days=1))
    card_suspend(user=alice, card=cards["object-store"])
    return cards


def slugs(page) -> list[str]:
    return [card.slug for card in page]


def test_search_finds_words_in_fronts_and_backs(alice, alice_world):
    assert slugs(browse.cards_search(alice, q="stateless")) == ["ray-task"]
    assert slugs(browse.cards_search(alice, q="actor")) == ["ray-actor"]
    assert set(slugs(browse.cards_search(alice, q="ray what"))) == {
        "ray-task", "ray-actor"
    }  # fmt: skip
    assert slugs(browse.cards_search(alice, q="spillback")) == []


def test_filters_by_deck_section_tag_and_state(alice, alice_world, small_deck):
    other = Deck.objects.create(slug="other", title="Other")
    section = Section.objects.create(deck=other, slug="misc", title="Misc")
    Card.objects.create(deck=other, section=section, slug="x", front="Actor?", back="Yes")
    assert len(browse.cards_search(alice).object_list) == 6
    assert slugs(browse.cards_search(alice, deck="other")) == ["x"]
    assert slugs(browse.cards_search(alice, section="rllib")) == ["rllib-algorithm", "env-runner"]
    assert slugs(browse.cards_search(alice, tag="remote functions")) == ["ray-task"]
    assert slugs(browse.cards_search(alice, tag="remote")) == []
    assert slugs(browse.cards_search(alice, state="suspended")) == ["object-store"]
    assert slugs(browse.cards_search(alice, state="learning")) == ["ray-actor"]
    assert slugs(browse.cards_search(alice, state="due")) == ["ray-task", "ray-actor"]
    assert set(slugs(browse.cards_search(alice, state="new"))) == {
        "rllib-algorithm", "env-runner", "x"
    }  # fmt: skip
    assert slugs(browse.cards_search(alice, state="leech")) == []


def test_sorts_by_her_schedule_with_new_cards_last(alice, alice_world):
    by_lapses = slugs(browse.cards_search(alice, sort="-lapses"))
    assert by_lapses[0] == "ray-actor"
    by_ease = slugs(browse.cards_search(alice, sort="ease"))
    assert by_ease[0] == "ray-actor"  # failed: the lowest easiness (grade 4 keeps 2.50)
    by_due = slugs(browse.cards_search(alice, sort="due"))
    assert by_due[:2] == ["ray-actor", "ray-task"] and set(by_due[3:]) == {
        "rllib-algorithm", "env-runner"
    }  # fmt: skip


def test_bob_sees_his_own_schedule_and_nobody_sees_drafts(bob, alice_world, small_deck):
    assert slugs(browse.cards_search(bob, state="suspended")) == []
    small_deck.is_published = False
    small_deck.save()
    assert browse.cards_search(bob).paginator.count == 0


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


def test_the_page_lists_filters_and_swaps_results(alice_client, alice_world):
    html = alice_client.get("/study/browse/?q=stateless").content.decode()
    assert "1 card" in html and "What is a Ray task?" in html and 'aria-keyshortcuts="/"' in html
    fragment = alice_client.get("/study/browse/?state=suspended", HTTP_HX_REQUEST="true")
    text = fragment.content.decode()
    assert text.lstrip().startswith('<section id="results"') and "What does the object" in text
    refused = alice_client.get("/study/browse/?state=lost")
    assert refused.status_code == 400 and "state must be one of new" in refused.content.decode()


def test_a_card_opens_with_schedule_history_and_suspend(alice_client, alice, alice_world):
    actor = alice_world["ray-actor"]
    html = alice_client.get(f"/study/browse/{actor.pk}/").content.decode()
    assert "What is a Ray actor?" in html and "A stateful worker process." in html
    assert "lapses</dt><dd>1" in html and html.count("<td>Good (4)</td>") == 1
    assert 'id="suspend-card"' in html
    url = f"/study/browse/{actor.pk}/"
    response = alice_client.post(f"/study/cards/{actor.pk}/suspend/", {"next": url})
    assert response.status_code == 302 and response["Location"] == url
    html = alice_client.get(url).content.decode()
    assert "Suspended" in html and 'id="unsuspend"' in html
    assert alice_client.get("/study/browse/999999/").status_code == 404
    back = alice_client.get(f"{url}?back=/study/browse/%3Fq%3Dactor").content.decode()
    assert 'href="/study/browse/?q=actor" id="back-to-browse"' in back
    elsewhere = alice_client.get(f"{url}?back=https://evil.example/").content.decode()
    assert 'href="/study/browse/" id="back-to-browse"' in elsewhere


def test_pages_of_fifty(alice, small_deck):
    section = small_deck.sections.first()
    Card.objects.bulk_create(
        Card(deck=small_deck, section=section, slug=f"x-{i}", order=10 + i, front="f", back="b")
        for i in range(120)
    )
    page = browse.cards_search(alice, page=3)
    assert page.paginator.num_pages == 3 and len(page.object_list) == 25
    assert browse.cards_search(alice, page=99).number == 3


@pytest.fixture
def as_alice(api_client, alice):
    api_client.force_authenticate(alice)
    return api_client


def test_the_api_searches_with_her_state(as_alice, alice_world):
    body = as_alice.get("/api/cards/?q=actor").json()
    assert body["count"] == 1 and body["page"] == 1 and body["pages"] == 1
    card = body["results"][0]
    assert card["slug"] == "ray-actor" and card["deck"] == "ray-basics"
    assert card["section"] == "ray-core" and card["state"]["lapses"] == 1
    body = as_alice.get("/api/cards/?section=rllib").json()
    assert [c["state"] for c in body["results"]] == [None, None]
    assert as_alice.get("/api/cards/?tag=core").json()["results"][0]["tags"] == [
        "core", "remote functions"
    ]  # fmt: skip


@pytest.mark.parametrize(
    "query", ["state=lost", "sort=age", "page=0", "page=x", "deck=Not%20a", "page=", "state="]
)
def test_the_api_names_a_bad_parameter(as_alice, small_deck, query):
    response = as_alice.get(f"/api/cards/?{query}")
    name = query.split("=")[0]
    assert response.status_code == 400 and response.json()["error"].startswith(name)


@pytest.mark.parametrize("extra", [10, 300])
def test_query_counts_are_flat(alice_client, as_alice, alice, small_deck, extra,
                               django_assert_num_queries):  # fmt: skip
    section = small_deck.sections.first()
    cards = Card.objects.bulk_create(
        Card(
            deck=small_deck,
            section=section,
            slug=f"x-{i}",
            order=10 + i,
            front="f word",
            back="b",
            tags=["t"],
        )  # fmt: skip
        for i in range(extra)
    )
    for card in cards[:40]:
        review_record(user=alice, card=card, grade=4, now=PAST)
    alice_client.get("/study/browse/")  # session and profile warm
    # the count and the page (the learner's state joined in)
    with django_assert_num_queries(2):
        as_alice.get("/api/cards/?q=word&tag=t&sort=-due&state=due")
    # session, user, profile (her today), the count, the page, the deck list, its sections
    with django_assert_num_queries(7):
        alice_client.get("/study/browse/?q=word&sort=lapses&state=due")
    for sort in browse.SORT_COLUMNS:  # every column, with the bulk actions' table
        with django_assert_num_queries(7):
            alice_client.get(f"/study/browse/?sort=-{sort}")
    first = small_deck.cards.first().pk
    # session, user, profile (her time zone), card, state, history
    with django_assert_num_queries(6):
        alice_client.get(f"/study/browse/{first}/")
    assert connection.vendor in ("sqlite", "postgresql")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="full-text index is PostgreSQL's")
def test_postgresql_search_uses_the_fulltext_index(alice, alice_world):
    assert slugs(browse.cards_search(alice, q="workers")) == ["ray-actor"]  # stemmed
    assert slugs(browse.cards_search(alice, q='"stateful worker"')) == ["ray-actor"]
    assert slugs(browse.cards_search(alice, q="ray -actor")) == ["ray-task"]
    cards = (
        # every card, retired too: the cards in use are also a partial index (the deck's counts),
        # which a bitmap scan could take instead of the full-text one on so few rows
        Card.all_objects.alias(document=browse.search_vector())
        .filter(document=browse.SearchQuery("actor", config="english", search_type="websearch"))
        .order_by()  # the default ordering's joins would offer the planner other indexes
    )
    with connection.cursor() as cursor:
        # A handful of rows: left alone, the planner may scan another index. With plain scans
        # off, the filter can only be answered through a bitmap scan of the full-text index.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
        plan = cards.explain()
    assert "card_fulltext_english" in plan


def test_a_snippet_shows_the_cards_own_characters_not_their_entities(alice_client, alice_world):
    """A back holding "a > b" reads so in the results, not as "&gt;" (escaped twice)."""
    card = alice_world["ray-task"]
    card.back, card.back_html = (
        "Ray Core > Tasks: stateless",
        "<p>Ray Core &gt; Tasks: stateless</p>",
    )
    card.save()
    html = alice_client.get("/study/browse/?q=stateless").content.decode()
    assert "Ray Core &gt; Tasks" in html  # one escape: the browser shows ">"
    assert "&amp;gt;" not in html
