"""Membership stories: create, invite, join, leave, remove, hand over; every refusal changes
nothing and says what to do."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from apps.teams import services
from apps.teams.models import Invite, InviteUse, Membership, Team

pytestmark = pytest.mark.django_db


def test_the_creator_owns_a_new_team_with_a_unique_slug(alice, bob, small_deck):
    first = services.team_create(user=alice, name="Ray Cohort", deck=small_deck)
    second = services.team_create(user=bob, name="ray cohort")
    assert (first.slug, second.slug) == ("ray-cohort", "ray-cohort-2")
    assert second.deck == small_deck  # the first published deck by default
    assert Membership.objects.get(team=first).role == "owner"


def test_join_is_never_a_team_slug(alice):
    assert services.team_create(user=alice, name="Join").slug == "join-2"


@pytest.mark.parametrize("name", ["", "   ", "x" * 101])
def test_a_team_needs_a_sensible_name(alice, name):
    with pytest.raises(services.TeamError, match="name"):
        services.team_create(user=alice, name=name)
    assert not Team.objects.exists()


def test_a_single_use_link_lets_one_person_in(team, alice, dave, django_user_model):
    invite = services.invite_create(team=team, by=alice)
    membership = services.team_join(user=dave, token=invite.token)
    assert (membership.team, membership.role) == (team, "member")
    erin = django_user_model.objects.create_user("erin")
    with pytest.raises(services.InviteRefused, match="already been used"):
        services.team_join(user=erin, token=invite.token)
    assert not Membership.objects.filter(user=erin).exists()


def test_a_multi_use_link_counts_its_uses(team, alice, dave, django_user_model):
    invite = services.invite_create(team=team, by=alice, max_uses=2)
    services.team_join(user=dave, token=invite.token)
    services.team_join(user=django_user_model.objects.create_user("erin"), token=invite.token)
    with pytest.raises(services.InviteRefused, match="used its 2 times"):
        services.team_join(user=django_user_model.objects.create_user("fay"), token=invite.token)
    invite.refresh_from_db()
    assert invite.uses == 2


def test_an_expired_link_is_refused(team, alice, dave):
    invite = services.invite_create(team=team, by=alice, max_uses=None)
    later = timezone.now() + Invite.DEFAULT_LIFETIME + timedelta(seconds=1)
    with pytest.raises(services.InviteRefused, match="expired"):
        services.team_join(user=dave, token=invite.token, now=later)
    assert not Membership.objects.filter(user=dave).exists()


def test_a_revoked_link_is_refused(team, alice, dave):
    invite = services.invite_revoke(invite=services.invite_create(team=team, by=alice), by=alice)
    with pytest.raises(services.InviteRefused, match="revoked"):
        services.team_join(user=dave, token=invite.token)


def test_an_unknown_token_is_refused(team, dave):
    with pytest.raises(services.InviteRefused, match="not valid"):
        services.team_join(user=dave, token="nope")


def test_a_member_cannot_join_twice(team, alice, bob):
    invite = services.invite_create(team=team, by=alice)
    with pytest.raises(services.AlreadyMember, match="already a member"):
        services.team_join(user=bob, token=invite.token)
    invite.refresh_from_db()
    assert invite.uses == 0


@pytest.mark.parametrize("max_uses", [1, None])
def test_a_removed_member_cannot_come_back_with_the_old_link(team, alice, dave, max_uses):
    invite = services.invite_create(team=team, by=alice, max_uses=max_uses)
    services.team_join(user=dave, token=invite.token)
    services.member_remove(team=team, by=alice, user=dave)
    with pytest.raises(services.InviteRefused):
        services.team_join(user=dave, token=invite.token)
    invite.refresh_from_db()
    assert invite.uses == 1  # the single-use link stays used
    assert not Membership.objects.filter(team=team, user=dave).exists()
    fresh = services.invite_create(team=team, by=alice)
    assert services.team_join(user=dave, token=fresh.token).team == team


def test_only_owners_manage(team, alice, bob, charlie):
    with pytest.raises(services.NotOwner, match="Only an owner of Ray cohort can invite"):
        services.invite_create(team=team, by=bob)
    invite = services.invite_create(team=team, by=alice)
    with pytest.raises(services.NotOwner):
        services.invite_revoke(invite=invite, by=bob)
    with pytest.raises(services.NotOwner):
        services.member_remove(team=team, by=bob, user=charlie)
    with pytest.raises(services.NotOwner):
        services.ownership_transfer(team=team, by=bob, to=bob)
    assert Membership.objects.filter(team=team).count() == 3


@pytest.mark.parametrize(
    ("max_uses", "expires_in"),
    [(0, timedelta(days=1)), (1001, timedelta(days=1)), (1, timedelta(0)), (1, timedelta(days=91))],
)
def test_invite_bounds(team, alice, max_uses, expires_in):
    with pytest.raises(services.TeamError):
        services.invite_create(team=team, by=alice, max_uses=max_uses, expires_in=expires_in)


def test_the_last_owner_hands_over_before_leaving(team, alice, bob):
    with pytest.raises(services.TeamError, match="hand over ownership"):
        services.team_leave(team=team, user=alice)
    with pytest.raises(services.TeamError, match="hand over ownership"):
        services.member_remove(team=team, by=alice, user=alice)
    services.ownership_transfer(team=team, by=alice, to=bob)
    roles = dict(Membership.objects.filter(team=team).values_list("user__username", "role"))
    assert roles == {"alice": "member", "bob": "owner", "charlie": "member"}
    services.team_leave(team=team, user=alice)
    assert not Membership.objects.filter(team=team, user=alice).exists()


def test_a_sole_owner_deletes_instead_of_leaving(alice):
    team = services.team_create(user=alice, name="Solo")
    with pytest.raises(services.TeamError, match="delete the team"):
        services.team_leave(team=team, user=alice)
    services.team_delete(team=team, by=alice)
    assert not Team.objects.exists()


def test_ownership_goes_only_to_members(team, alice, dave):
    with pytest.raises(services.TeamError, match="not a member"):
        services.ownership_transfer(team=team, by=alice, to=dave)


def test_a_member_hides_and_shows_their_details(team, bob):
    assert services.membership_set_hidden(team=team, user=bob, hidden=True).hidden
    assert not services.membership_set_hidden(team=team, user=bob, hidden=False).hidden


@pytest.mark.django_db(transaction=True)
def test_concurrent_joins_never_exceed_max_uses(alice, django_user_model):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite serialises writers, so there is no race to lose")
    team = services.team_create(user=alice, name="Race")
    invite = services.invite_create(team=team, by=alice, max_uses=3)
    users = [django_user_model.objects.create_user(f"racer{i}") for i in range(10)]
    barrier = threading.Barrier(len(users))
    outcomes = []

    def join(user):
        try:
            barrier.wait()
            services.team_join(user=user, token=invite.token)
            outcomes.append("joined")
        except services.InviteRefused:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=join, args=(u,)) for u in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    invite.refresh_from_db()
    assert sorted(outcomes) == ["joined"] * 3 + ["refused"] * 7
    assert invite.uses == 3
    assert InviteUse.objects.filter(invite=invite).count() == 3
    assert Membership.objects.filter(team=team).count() == 4


@pytest.mark.django_db(transaction=True)
def test_two_owners_leaving_at_once_never_leave_the_team_without_an_owner(alice, bob, charlie):
    """The first owner's leave is held open until the second has tried: the second must wait
    for it and then see that it is the last owner, instead of counting two owners."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite serialises writers, so there is no race to lose")
    team = services.team_create(user=alice, name="Race")
    Membership.objects.create(team=team, user=bob, role=Membership.Role.OWNER)
    Membership.objects.create(team=team, user=charlie)
    first_left, second_done = threading.Event(), threading.Event()
    outcomes = {}

    def leave(user):
        try:
            services.team_leave(team=team, user=user)
            outcomes[user.username] = "left"
        except services.TeamError:
            outcomes[user.username] = "refused"

    def first():
        try:
            with transaction.atomic():
                leave(alice)
                first_left.set()
                second_done.wait(timeout=2)  # with the fix, bob waits for this commit
        finally:
            connection.close()

    def second():
        try:
            first_left.wait(timeout=5)
            leave(bob)
            second_done.set()
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == {"alice": "left", "bob": "refused"}
    assert list(
        Membership.objects.filter(team=team, role="owner").values_list("user", flat=True)
    ) == [bob.pk]
