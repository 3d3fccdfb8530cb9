"""The teams' named world: alice owns "Ray cohort", bob is a member, charlie is a member who hid
his details, dave is a stranger."""

import pytest

from apps.accounts.models import profile_for
from apps.teams import services
from apps.teams.models import Membership


@pytest.fixture
def dave(django_user_model):
    user = django_user_model.objects.create_user(username="dave", password="pw-dave-123")
    profile_for(user)
    return user


@pytest.fixture
def team(alice, bob, charlie, small_deck):
    team = services.team_create(user=alice, name="Ray cohort", deck=small_deck)
    Membership.objects.create(team=team, user=bob)
    Membership.objects.create(team=team, user=charlie, hidden=True)
    return team
