"""The teams API per DESIGN.md."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.decks.models import Card
from apps.study.models import CardState
from apps.teams import services
from apps.teams.models import Invite, Membership

pytestmark = pytest.mark.django_db


def test_create_a_team_returns_its_slug(api_client, alice, small_deck):
    api_client.force_authenticate(alice)
    response = api_client.post("/api/teams/", {"name": "Ray cohort"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["slug"] == "ray-cohort"
    assert (body["role"], body["member_count"], body["deck"]) == ("owner", 1, "ray-basics")
    assert body["url"] == "http://testserver/teams/ray-cohort/"


@pytest.mark.parametrize(
    ("payload", "error"),
    [({}, "name: This field is required."), ({"name": "X", "deck": "nope"}, "deck: No published")],
)
def test_bad_team_input_is_a_400_a_person_can_read(api_client, alice, small_deck, payload, error):
    api_client.force_authenticate(alice)
    response = api_client.post("/api/teams/", payload, format="json")
    assert response.status_code == 400
    assert response.json()["error"].startswith(error)


def test_list_my_teams(api_client, team, bob, alice):
    services.team_create(user=alice, name="Alice only")
    api_client.force_authenticate(bob)
    assert [t["slug"] for t in api_client.get("/api/teams/").json()] == ["ray-cohort"]
    item = api_client.get("/api/teams/").json()[0]
    assert (item["role"], item["member_count"], item["hidden"]) == ("member", 3, False)


def test_progress_has_team_sections_and_visible_members(api_client, team, alice, small_deck):
    CardState.objects.create(
        user=alice, card=Card.objects.get(slug="ray-task"), deck=small_deck, repetitions=3,
        due_at=timezone.now() + timedelta(days=4),
    )  # fmt: skip
    api_client.force_authenticate(alice)
    body = api_client.get("/api/teams/ray-cohort/progress/?sort=username").json()
    assert body["team"]["slug"] == "ray-cohort"
    assert (body["team"]["member_count"], body["team"]["hidden_count"]) == (3, 1)
    # charlie is the only member hidden from alice, so her averages leave him out.
    assert body["team"]["averages"]["members_counted"] == 2
    assert body["team"]["averages"]["cards_learned"] == 0.5
    assert [s["slug"] for s in body["sections"]] == ["ray-core", "rllib"]
    assert body["sections"][0]["team_mastery"] == pytest.approx(1 / 6, abs=1e-4)
    assert [m["username"] for m in body["members"]] == ["alice", "bob"]
    me = body["members"][0]
    assert me["id"] == alice.pk and me["is_you"]
    assert me["mastery"] == {"ray-core": 0.3333, "rllib": 0.0}
    assert me["readiness"] == pytest.approx(0.5 * 0.2)
    for key in ("cards_learned", "due_backlog", "reviews_7d", "reviews_30d", "retention",
                "streak_days", "knowledge_check", "knowledge_checks", "last_active"):  # fmt: skip
        assert key in me
    assert body["weakest"][0]["url"].startswith("http://testserver/decks/ray-basics/")


def test_owner_creates_invites(api_client, team, alice):
    api_client.force_authenticate(alice)
    response = api_client.post(
        "/api/teams/ray-cohort/invites/", {"max_uses": None, "expires_in_days": 2}, format="json"
    )
    assert response.status_code == 201
    body = response.json()
    assert body["url"] == f"http://testserver/teams/join/{body['token']}/"
    assert body["max_uses"] is None
    invite = Invite.objects.get(token=body["token"])
    assert abs(invite.expires_at - timezone.now() - timedelta(days=2)) < timedelta(minutes=1)
    default = api_client.post("/api/teams/ray-cohort/invites/", {}, format="json").json()
    assert default["max_uses"] == 1


def test_join_with_a_token(api_client, team, alice, dave):
    invite = services.invite_create(team=team, by=alice)
    api_client.force_authenticate(dave)
    response = api_client.post("/api/teams/join/", {"token": invite.token}, format="json")
    assert response.status_code == 201
    assert response.json() == {"team": "ray-cohort", "name": "Ray cohort", "role": "member"}
    again = api_client.post("/api/teams/join/", {"token": invite.token}, format="json")
    assert again.status_code == 409
    assert again.json()["error"] == "You are already a member of Ray cohort."


def test_a_revoked_token_is_gone(api_client, team, alice, dave):
    invite = services.invite_create(team=team, by=alice)
    services.invite_revoke(invite=invite, by=alice)
    api_client.force_authenticate(dave)
    response = api_client.post("/api/teams/join/", {"token": invite.token}, format="json")
    assert response.status_code == 410
    assert "revoked" in response.json()["error"]
    assert not Membership.objects.filter(user=dave).exists()


def test_owner_removes_a_member_and_the_last_owner_cannot_leave(api_client, team, alice, bob):
    api_client.force_authenticate(alice)
    assert api_client.delete(f"/api/teams/ray-cohort/members/{bob.pk}/").status_code == 204
    assert not Membership.objects.filter(team=team, user=bob).exists()
    assert api_client.delete(f"/api/teams/ray-cohort/members/{bob.pk}/").status_code == 404
    response = api_client.delete(f"/api/teams/ray-cohort/members/{alice.pk}/")
    assert response.status_code == 400
    assert "hand over ownership" in response.json()["error"]


def test_schema_describes_the_teams_endpoints(client, db):
    schema = client.get("/api/schema/?format=json").json()
    for path in ("/api/teams/", "/api/teams/{slug}/progress/", "/api/teams/{slug}/invites/",
                 "/api/teams/join/", "/api/teams/{slug}/members/{user_id}/"):  # fmt: skip
        assert path in schema["paths"]
    progress = schema["paths"]["/api/teams/{slug}/progress/"]["get"]
    assert "hid their details" in progress["description"]


def test_progress_queries_do_not_grow_with_members(
    api_client, team, alice, django_user_model, django_assert_num_queries
):
    api_client.force_authenticate(alice)
    with django_assert_num_queries(12):  # the membership, then team_progress's eleven
        api_client.get("/api/teams/ray-cohort/progress/")
    for i in range(30):
        user = django_user_model.objects.create(username=f"x{i}")
        Membership.objects.create(team=team, user=user)
    with django_assert_num_queries(12):
        assert len(api_client.get("/api/teams/ray-cohort/progress/").json()["members"]) == 32


def test_list_queries_do_not_grow_with_teams(
    api_client, alice, small_deck, django_assert_num_queries
):
    for i in range(3):
        services.team_create(user=alice, name=f"Team {i}")
    api_client.force_authenticate(alice)
    with django_assert_num_queries(1):
        assert len(api_client.get("/api/teams/").json()) == 3


def test_progress_does_not_give_a_lone_hidden_member_away_through_the_weakest_cards(
    api_client, team, alice, bob, charlie, small_deck
):
    card = Card.objects.get(deck=small_deck, slug="ray-task")
    CardState.objects.create(
        user=charlie, card=card, deck=small_deck, repetitions=3, interval_days=6,
        due_at=timezone.now() + timedelta(days=3),
    )  # fmt: skip
    api_client.force_authenticate(alice)
    weakest = {
        w["slug"]: w for w in api_client.get("/api/teams/ray-cohort/progress/").json()["weakest"]
    }
    assert (weakest["ray-task"]["learners"], weakest["ray-task"]["share"]) == (0, 0)


def test_a_member_cannot_tell_who_else_is_in_the_team_by_trying_to_remove_them(
    api_client, team, bob, charlie, dave
):
    """charlie hid his details; whether an id belongs to a member must not show through a
    404-versus-403 difference to someone who may not remove anybody."""
    api_client.force_authenticate(bob)
    hidden = api_client.delete(f"/api/teams/ray-cohort/members/{charlie.pk}/")
    stranger = api_client.delete(f"/api/teams/ray-cohort/members/{dave.pk}/")
    nobody = api_client.delete("/api/teams/ray-cohort/members/999999/")
    assert [hidden.status_code, stranger.status_code, nobody.status_code] == [403, 403, 403]
    assert hidden.json() == stranger.json() == nobody.json()
    assert Membership.objects.filter(team=team).count() == 3


def test_progress_carries_each_members_interview_date_and_predicted_recall(
    api_client, team, alice, small_deck
):
    from datetime import timedelta

    from django.utils import timezone

    from apps.accounts.models import profile_for
    from apps.study.services import review_record

    for card in small_deck.cards.all()[:2]:
        review_record(user=alice, card=card, grade=5, now=timezone.now() - timedelta(days=1))
    profile = profile_for(alice)
    profile.interview_date = timezone.localdate() + timedelta(days=3)
    profile.save()
    api_client.force_authenticate(alice)
    members = {
        m["username"]: m
        for m in api_client.get("/api/teams/ray-cohort/progress/").json()["members"]
    }
    assert members["alice"]["interview_date"] == profile.interview_date.isoformat()
    assert 0.2 < members["alice"]["interview_recall"] <= 0.4  # 2 of 5 cards, well remembered
    others = [m for name, m in members.items() if name != "alice"]
    assert all(m["interview_date"] is None and m["interview_recall"] is None for m in others)
