"""The access matrix: owner, member, hidden member, stranger and anonymous against every team page
and endpoint. Strangers get 404 (slugs do not leak), members who manage get 403 with a reason,
anonymous visitors are sent to log in (pages) or refused (API)."""

import pytest

from apps.teams import services
from apps.teams.models import Membership

pytestmark = pytest.mark.django_db

ROLES = ["owner", "member", "hidden", "stranger", "anonymous"]


@pytest.fixture
def as_role(client, team, alice, bob, charlie, dave):
    users = {"owner": alice, "member": bob, "hidden": charlie, "stranger": dave}

    def login(role):
        if role in users:
            client.force_login(users[role])
        return client

    return login


@pytest.fixture
def invite(team, alice):
    return services.invite_create(team=team, by=alice)


# (method, url, expected status per role). {bob}: a member's id; {invite}: an invite id.
PAGES = [
    ("get", "/teams/ray-cohort/", [200, 200, 200, 404, 302]),
    ("get", "/teams/ray-cohort/progress.csv", [200, 200, 200, 404, 302]),
    ("get", "/teams/ray-cohort/manage/", [200, 403, 403, 404, 302]),
    ("post", "/teams/ray-cohort/manage/", [302, 403, 403, 404, 302]),
    ("post", "/teams/ray-cohort/invites/{invite}/revoke/", [302, 403, 403, 404, 302]),
    ("post", "/teams/ray-cohort/members/{bob}/remove/", [302, 403, 403, 404, 302]),
    ("post", "/teams/ray-cohort/members/{bob}/make-owner/", [302, 403, 403, 404, 302]),
    # Refused (no address typed; alice is the last owner): back where the form was, 303.
    ("post", "/teams/ray-cohort/delete/", [303, 403, 403, 404, 302]),
    ("post", "/teams/ray-cohort/privacy/", [302, 302, 302, 404, 302]),
    ("post", "/teams/ray-cohort/leave/", [303, 302, 302, 404, 302]),
    ("get", "/teams/join/{token}/", [302, 302, 302, 200, 302]),  # members go to their team
    ("get", "/teams/", [200, 200, 200, 200, 302]),
]


@pytest.mark.parametrize(("method", "url", "expected"), PAGES)
@pytest.mark.parametrize("role", ROLES)
def test_pages(as_role, role, method, url, expected, bob, invite):
    client = as_role(role)
    url = url.format(bob=bob.pk, invite=invite.pk, token=invite.token)
    data = {"uses": "single", "expires_in_days": "7"} if method == "post" else {}
    response = getattr(client, method)(url, data)
    status = expected[ROLES.index(role)]
    assert response.status_code == status
    if status == 302 and role == "anonymous":
        assert response["Location"].startswith("/accounts/login/?next=")
    if status == 403:
        assert b"Only an owner of Ray cohort can" in response.content


def test_a_refused_manage_action_changes_nothing(as_role, team, bob, charlie, invite):
    as_role("member").post(f"/teams/ray-cohort/members/{charlie.pk}/remove/")
    as_role("stranger").post(f"/teams/ray-cohort/invites/{invite.pk}/revoke/")
    assert Membership.objects.filter(team=team).count() == 3
    invite.refresh_from_db()
    assert invite.revoked_at is None


API = [
    ("get", "/api/teams/", [200, 200, 200, 200, 403]),
    ("post", "/api/teams/", [201, 201, 201, 201, 403]),
    ("get", "/api/teams/ray-cohort/progress/", [200, 200, 200, 404, 403]),
    ("post", "/api/teams/ray-cohort/invites/", [201, 403, 403, 404, 403]),
    ("post", "/api/teams/join/", [409, 409, 409, 201, 403]),
    # bob removing himself is leaving; charlie removing bob is managing.
    ("delete", "/api/teams/ray-cohort/members/{bob}/", [204, 204, 403, 404, 403]),
]


@pytest.mark.parametrize(("method", "url", "expected"), API)
@pytest.mark.parametrize("role", ROLES)
def test_api(api_client, role, method, url, expected, team, alice, bob, charlie, dave, invite):
    users = {"owner": alice, "member": bob, "hidden": charlie, "stranger": dave}
    if role in users:
        api_client.force_authenticate(users[role])
    url = url.format(bob=bob.pk)
    data = {"name": "Another team", "token": invite.token} if method == "post" else None
    response = getattr(api_client, method)(url, data, format="json")
    status = expected[ROLES.index(role)]
    assert response.status_code == status, response.content
    if status >= 400:
        assert response.json()["error"]
    if status == 403 and role != "anonymous":
        assert response.json()["error"].startswith("Only an owner of Ray cohort")
