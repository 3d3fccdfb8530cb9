"""Team pages as people use them: create, dashboard, sort, CSV, invites, join, hide, leave."""

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.decks.models import Card
from apps.study.models import CardState, ReviewLog
from apps.teams import services
from apps.teams.models import Invite, Membership, Team

pytestmark = pytest.mark.django_db


@pytest.fixture
def studied(team, small_deck, alice, bob, charlie):
    """alice has learned ray-task and reviewed twice today; bob one RLlib card; charlie (hidden)
    everything in ray-core."""
    now = timezone.now()

    def learn(user, slug):
        card = Card.objects.get(deck=small_deck, slug=slug)
        CardState.objects.create(
            user=user, card=card, deck=small_deck, repetitions=2, due_at=now + timedelta(days=3),
            last_reviewed_at=now - timedelta(minutes=5),
        )  # fmt: skip

    learn(alice, "ray-task")
    for grade in (4, 2):
        ReviewLog.objects.create(
            user=alice, card=Card.objects.get(deck=small_deck, slug="ray-task"), grade=grade,
            kind="review", reviewed_at=now - timedelta(minutes=5), state_after={},
        )  # fmt: skip
    learn(bob, "env-runner")
    for slug in ("ray-task", "ray-actor", "object-store"):
        learn(charlie, slug)
    return team


def test_create_a_team_from_the_index(client, alice, small_deck):
    client.force_login(alice)
    response = client.post("/teams/", {"name": "Interview prep"})
    assert response.status_code == 302
    assert response["Location"] == "/teams/interview-prep/"
    assert Team.objects.get(slug="interview-prep").memberships.get().role == "owner"
    assert b"Interview prep" in client.get("/teams/").content


def test_a_blank_name_is_refused_with_a_reason(client, alice):
    client.force_login(alice)
    response = client.post("/teams/", {"name": "  "})
    assert response.status_code == 400
    assert not Team.objects.exists()


def test_dashboard_shows_visible_members_heatmap_and_definitions(client, studied, alice):
    client.force_login(alice)
    page = client.get("/teams/ray-cohort/").content.decode()
    assert "bob" in page and "charlie" not in page
    assert "of whom 1 hid their details" in page
    assert "left out of the averages too" in page
    assert 'class="heat heat-3"' in page  # alice: 1 of 3 core cards is 33%
    assert "0.5 × share of the deck&#x27;s cards learned + 0.3 × knowledge-check score" in page
    assert "/decks/ray-basics/rllib/#card-rllib-algorithm" in page  # a weakest card's link
    assert "Manage members" in page


def test_a_hidden_member_sees_their_own_row(client, studied, charlie):
    client.force_login(charlie)
    page = client.get("/teams/ray-cohort/").content.decode()
    assert "you, hidden" in page
    assert "Manage members" not in page


# Session, user, profile (time-zone middleware), membership, then team_progress's eleven.
PAGE_QUERIES = 15


@pytest.mark.parametrize("url", ["/teams/ray-cohort/", "/teams/ray-cohort/progress.csv"])
def test_dashboard_queries_do_not_grow_with_members(
    client, studied, alice, django_user_model, django_assert_num_queries, url
):
    client.force_login(alice)
    with django_assert_num_queries(PAGE_QUERIES):
        client.get(url)
    for i in range(20):
        user = django_user_model.objects.create(username=f"x{i}")
        Membership.objects.create(team=studied, user=user)
    with django_assert_num_queries(PAGE_QUERIES):
        assert client.get(url).status_code == 200


def test_sorting_returns_the_table_fragment_to_htmx(client, studied, alice):
    client.force_login(alice)
    response = client.get(
        "/teams/ray-cohort/?sort=username", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="member-table"
    )
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="member-table"')
    assert "<html" not in body
    assert body.index('row">alice') < body.index('row">bob')
    assert 'aria-sort="ascending"' in body
    descending = client.get("/teams/ray-cohort/?sort=-username").content.decode()
    assert descending.index('row">bob') < descending.index('row">alice')


def test_csv_has_the_dashboard_figures_without_hidden_rows(client, studied, alice):
    client.force_login(alice)
    response = client.get("/teams/ray-cohort/progress.csv?sort=username")
    assert response["Content-Type"].startswith("text/csv")
    assert "ray-cohort-progress-" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    # charlie is the only hidden member: the average leaves him out too, or it would give him away.
    assert [r["username"] for r in rows] == [
        "alice",
        "bob",
        "team average (2 members; 1 hidden member left out so the average cannot give them away)",
    ]
    alice_row, bob_row, average = rows
    assert alice_row["role"] == "owner"
    assert alice_row["cards_learned"] == "1"
    assert alice_row["mastery_pct"] == "20"
    assert alice_row["mastery_pct:ray-core"] == "33"
    assert alice_row["mastery_pct:rllib"] == "0"
    assert (alice_row["reviews_7d"], alice_row["retention_pct"], alice_row["streak_days"]) == (
        "2",
        "50",
        "1",
    )
    assert alice_row["readiness_pct"] == "20"  # 0.5 x 20% + 0.2 x 50%
    assert bob_row["retention_pct"] == ""  # no reviews: nothing to measure
    assert average["mastery_pct:ray-core"] == "17"  # (1 + 0) / 6
    assert average["cards_learned"] == "1.0"


def test_averages_count_hidden_members_once_two_are_hidden(client, studied, alice, bob):
    Membership.objects.filter(team=studied, user=bob).update(hidden=True)
    client.force_login(alice)
    rows = list(
        csv.DictReader(io.StringIO(client.get("/teams/ray-cohort/progress.csv").content.decode()))
    )
    assert [r["username"] for r in rows] == ["alice", "team average (3 members, 2 of them hidden)"]
    assert rows[-1]["mastery_pct:ray-core"] == "44"  # (1 + 0 + 3) / 9, charlie included
    assert rows[-1]["cards_learned"] == "1.7"


def test_owner_creates_copies_and_revokes_invites(client, team, alice):
    client.force_login(alice)
    response = client.post(
        "/teams/ray-cohort/manage/", {"uses": "multi", "max_uses": "5", "expires_in_days": "30"}
    )
    invite = Invite.objects.get()
    assert response["Location"].endswith(f"#invite-{invite.pk}")
    assert invite.max_uses == 5
    assert invite.expires_at - timezone.now() > timedelta(days=29)
    page = client.get("/teams/ray-cohort/manage/").content.decode()
    assert f"http://testserver/teams/join/{invite.token}/" in page
    assert "Copy link" in page
    client.post(f"/teams/ray-cohort/invites/{invite.pk}/revoke/")
    invite.refresh_from_db()
    assert invite.revoked_at is not None
    assert "revoked" in client.get("/teams/ray-cohort/manage/").content.decode()


def test_join_page_shows_the_team_and_joins_on_post(client, team, alice, dave):
    invite = services.invite_create(team=team, by=alice)
    client.force_login(dave)
    page = client.get(f"/teams/join/{invite.token}/").content.decode()
    assert "Join Ray cohort" in page and "owned by alice" in page
    response = client.post(f"/teams/join/{invite.token}/")
    assert response["Location"] == "/teams/ray-cohort/"
    assert Membership.objects.filter(team=team, user=dave).exists()


def test_anonymous_visitors_log_in_and_come_back_to_the_link(client, team, alice):
    invite = services.invite_create(team=team, by=alice)
    response = client.get(f"/teams/join/{invite.token}/")
    assert response["Location"] == f"/accounts/login/?next=/teams/join/{invite.token}/"


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        ({"revoked_at": timezone.now()}, "revoked"),
        ({"expires_at": timezone.now() - timedelta(minutes=1)}, "expired"),
        ({"uses": 1}, "already been used"),
    ],
)
def test_a_dead_link_explains_itself_and_changes_nothing(client, team, alice, dave, spoil, message):
    invite = services.invite_create(team=team, by=alice)
    Invite.objects.filter(pk=invite.pk).update(**spoil)
    client.force_login(dave)
    for method in (client.get, client.post):
        response = method(f"/teams/join/{invite.token}/")
        assert response.status_code == 410
        assert message in response.content.decode()
    assert not Membership.objects.filter(user=dave).exists()


def test_removed_member_with_old_link_is_refused(client, team, alice, dave):
    invite = services.invite_create(team=team, by=alice, max_uses=None)
    services.team_join(user=dave, token=invite.token)
    client.force_login(alice)
    client.post(f"/teams/ray-cohort/members/{dave.pk}/remove/")
    client.force_login(dave)
    page = client.get(f"/teams/join/{invite.token}/")
    assert page.status_code == 410
    assert b"Join Ray cohort</button>" not in page.content
    response = client.post(f"/teams/join/{invite.token}/")
    assert response.status_code == 410
    assert "used this link to join Ray cohort before" in response.content.decode()
    assert client.get("/teams/ray-cohort/").status_code == 404


def test_hide_my_details_then_show_them(client, team, bob, alice):
    client.force_login(bob)
    client.post("/teams/ray-cohort/privacy/", {"hidden": "on"})
    assert Membership.objects.get(team=team, user=bob).hidden
    client.force_login(alice)
    assert 'row">bob' not in client.get("/teams/ray-cohort/").content.decode()
    client.force_login(bob)
    client.post("/teams/ray-cohort/privacy/", {"hidden": "off"})
    assert not Membership.objects.get(team=team, user=bob).hidden


def test_the_last_owner_is_told_to_hand_over_before_leaving(client, team, alice, bob):
    client.force_login(alice)
    response = client.post("/teams/ray-cohort/leave/", follow=True)
    assert "hand over ownership" in response.content.decode()
    assert Membership.objects.filter(team=team, user=alice).exists()
    client.post(f"/teams/ray-cohort/members/{bob.pk}/make-owner/")
    assert client.post("/teams/ray-cohort/leave/")["Location"] == "/teams/"
    assert Membership.objects.get(team=team, user=bob).role == "owner"


def test_deleting_a_team_needs_its_slug_typed(client, team, alice):
    client.force_login(alice)
    client.post("/teams/ray-cohort/delete/", {"confirm": "nope"})
    assert Team.objects.filter(pk=team.pk).exists()
    client.post("/teams/ray-cohort/delete/", {"confirm": "ray-cohort"})
    assert not Team.objects.filter(pk=team.pk).exists()


def test_the_weakest_concepts_leave_out_a_lone_hidden_member(client, studied, alice):
    """Only charlie (hidden) learned ray-actor: "learned by 1 of 3" would name him to alice."""
    client.force_login(alice)
    html = client.get("/teams/ray-cohort/").content.decode()
    assert "learned by 0 of 2 (0%), Ray core" in html
    assert "learned by 1 of 3" not in html
