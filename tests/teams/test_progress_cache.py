"""The team's computed progress is kept in the shared cache for a minute: a hit costs two
queries (the membership, then the cache key's one), and whatever changes who may be seen (a
member joining, leaving, hiding) or what is measured (the deck's cards) shows at once. Only the
members' new reviews wait for the entry to expire, and the page says how old its figures are."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from apps.decks.models import Card, Section
from apps.study.models import CardState
from apps.teams import selectors, services
from apps.teams.models import Invite

pytestmark = pytest.mark.django_db

PAGE = "/teams/ray-cohort/"
API = "/api/teams/ray-cohort/progress/"
# Session, user, profile (time-zone middleware), membership, then the cache key's one query.
PAGE_HIT_QUERIES = 5


def _learn(user, deck, slug):
    CardState.objects.create(
        user=user, card=Card.objects.get(deck=deck, slug=slug), deck=deck, repetitions=2,
        due_at=timezone.now() + timedelta(days=3),
    )  # fmt: skip


def _usernames(api_client):
    return [m["username"] for m in api_client.get(API).json()["members"]]


def test_a_cached_hit_costs_two_queries_on_the_api(
    api_client, team, alice, django_assert_num_queries
):
    api_client.force_authenticate(alice)
    with django_assert_num_queries(12):  # a miss: the membership, the key, then ten more
        first = api_client.get(API).json()
    with django_assert_num_queries(2):  # a hit: the membership and the key
        assert api_client.get(API).json() == first


@pytest.mark.parametrize("url", [PAGE, "/teams/ray-cohort/progress.csv"])
def test_a_cached_hit_of_the_page_and_the_csv(client, team, alice, django_assert_num_queries, url):
    client.force_login(alice)
    first = client.get(url)
    assert first.status_code == 200
    with django_assert_num_queries(PAGE_HIT_QUERIES):
        again = client.get(url)
    assert again.status_code == 200
    if url.endswith(".csv"):
        assert again.content == first.content


def test_page_api_and_csv_share_one_entry(
    client, api_client, team, alice, django_assert_num_queries
):
    client.force_login(alice)
    api_client.force_authenticate(alice)
    client.get(PAGE)
    with django_assert_num_queries(2):
        api_client.get(API)
    with django_assert_num_queries(PAGE_HIT_QUERIES):
        client.get("/teams/ray-cohort/progress.csv")


def test_a_member_who_joins_or_leaves_shows_at_once(api_client, team, alice, bob, dave):
    api_client.force_authenticate(alice)
    assert "bob" in _usernames(api_client)
    services.team_leave(team=team, user=bob)
    assert "bob" not in _usernames(api_client)
    invite = services.invite_create(team=team, by=alice)
    services.team_join(user=dave, token=invite.token)
    assert "dave" in _usernames(api_client)
    assert Invite.objects.get(pk=invite.pk).uses == 1


def test_a_member_who_hides_disappears_at_once_for_everyone_else(api_client, team, alice, bob):
    api_client.force_authenticate(alice)
    assert "bob" in _usernames(api_client)
    services.membership_set_hidden(team=team, user=bob, hidden=True)
    body = api_client.get(API).json()
    assert "bob" not in [m["username"] for m in body["members"]]
    assert body["team"]["hidden_count"] == 2
    api_client.force_authenticate(bob)
    assert "bob" in _usernames(api_client)  # but they still see themself
    services.membership_set_hidden(team=team, user=bob, hidden=False)
    api_client.force_authenticate(alice)
    assert "bob" in _usernames(api_client)


def test_a_lone_hidden_member_is_left_out_for_each_viewer_from_its_own_entry(
    api_client, team, alice, bob, charlie, small_deck
):
    """charlie is the only member hidden from alice, so alice's averages leave him out; charlie's
    own view counts everyone. One viewer's cached entry must never serve the other."""
    _learn(charlie, small_deck, "ray-task")
    api_client.force_authenticate(alice)
    assert api_client.get(API).json()["team"]["averages"]["members_counted"] == 2
    api_client.force_authenticate(charlie)
    assert api_client.get(API).json()["team"]["averages"]["members_counted"] == 3
    api_client.force_authenticate(alice)
    assert api_client.get(API).json()["team"]["averages"]["members_counted"] == 2


def test_a_content_change_shows_at_once(api_client, team, alice, small_deck):
    api_client.force_authenticate(alice)
    before = api_client.get(API).json()
    section = Section.objects.filter(deck=small_deck).order_by("order").first()
    Card.objects.create(deck=small_deck, section=section, slug="new-card", order=99, front="?")
    after = api_client.get(API).json()
    assert after != before
    # The deck now has one more card, so a member's share of it is measured on six cards.
    counts = selectors.team_progress(team, viewer_id=alice.pk).card_count
    assert counts == 6


def test_new_reviews_wait_for_the_entry_to_expire_and_the_page_says_so(
    client, team, alice, small_deck
):
    client.force_login(alice)
    page = client.get(PAGE).content.decode()
    assert "Figures as of" in page
    assert "at most every minute" in page
    progress = selectors.team_progress(team, viewer_id=alice.pk)
    assert next(m for m in progress.members if m.username == "alice").cards_learned == 0
    _learn(alice, small_deck, "ray-task")
    progress = selectors.team_progress(team, viewer_id=alice.pk)
    assert next(m for m in progress.members if m.username == "alice").cards_learned == 0
    cache.clear()  # what the minute's expiry does
    progress = selectors.team_progress(team, viewer_id=alice.pk)
    assert next(m for m in progress.members if m.username == "alice").cards_learned == 1


def test_the_cache_can_be_turned_off(settings, api_client, team, alice, small_deck):
    settings.TEAMS_PROGRESS_CACHE_S = 0
    api_client.force_authenticate(alice)
    api_client.get(API)
    _learn(alice, small_deck, "ray-task")
    me = next(m for m in api_client.get(API).json()["members"] if m["username"] == "alice")
    assert me["cards_learned"] == 1
