"""Writes of the teams app: creating teams, invites, joining, leaving and handing over.

Every refusal raises a `TeamError` whose message is fit to show a person and whose `status` is
the HTTP status the API answers with; a refused call changes nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from apps.decks.models import Deck
from apps.teams.models import Invite, InviteUse, Membership, Team
from config.errors import ServiceError
from config.names import name_problem

NAME_MAX = 100
INVITE_MAX_LIFETIME = timedelta(days=90)
INVITE_MAX_USES = 1000
RESERVED_SLUGS = {"join"}


class TeamError(ServiceError):
    status = 400


class NotOwner(TeamError):
    status = 403


class InviteRefused(TeamError):
    status = 410


class AlreadyMember(TeamError):
    status = 409


def _require_owner(team: Team, user, action: str) -> Membership:
    membership = Membership.objects.filter(team=team, user=user).first()
    if membership is None or not membership.is_owner:
        raise NotOwner(f"Only an owner of {team.name} can {action}.")
    return membership


def _unique_slug(name: str) -> str:
    base = slugify(name)[:100] or "team"
    taken = set(
        Team.objects.filter(slug__regex=rf"^{base}(-[0-9]+)?$").values_list("slug", flat=True)
    )
    taken |= RESERVED_SLUGS  # /teams/join/<token>/ must never be a team's page
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def team_create(*, user, name: str, deck: Deck | None = None) -> Team:
    """A new team whose creator is its owner. Without a deck it follows the first published one."""
    name = (name or "").strip()
    if not name:
        raise TeamError("Give the team a name, e.g. 'Ray interview cohort'.")
    problem = name_problem(name, "A team name")
    if problem:
        raise TeamError(problem)
    if len(name) > NAME_MAX:
        raise TeamError(f"A team name has at most {NAME_MAX} characters, got {len(name)}.")
    if deck is None:
        deck = Deck.objects.filter(is_published=True).order_by("title", "id").first()
    for _ in range(3):
        try:
            with transaction.atomic():
                team = Team.objects.create(
                    name=name, slug=_unique_slug(name), deck=deck, created_by=user
                )
                Membership.objects.create(team=team, user=user, role=Membership.Role.OWNER)
                return team
        except IntegrityError:
            continue  # another team took the same slug between our read and our insert
    raise TeamError("Could not find a free address for that name; try a slightly different one.")


@transaction.atomic
def team_delete(*, team: Team, by) -> None:
    _require_owner(team, by, "delete it")
    team.delete()


@transaction.atomic
def invite_create(
    *,
    team: Team,
    by,
    max_uses: int | None = 1,
    expires_in: timedelta = Invite.DEFAULT_LIFETIME,
    now: datetime | None = None,
) -> Invite:
    """A join link; `max_uses` 1 is single-use, None any number of uses."""
    _require_owner(team, by, "invite people")
    if max_uses is not None and not 1 <= max_uses <= INVITE_MAX_USES:
        raise TeamError(f"max_uses must be 1 to {INVITE_MAX_USES} or empty, got {max_uses}.")
    if not timedelta(minutes=5) <= expires_in <= INVITE_MAX_LIFETIME:
        raise TeamError(
            f"An invite lasts from 5 minutes to {INVITE_MAX_LIFETIME.days} days, got {expires_in}."
        )
    now = now or timezone.now()
    return Invite.objects.create(
        team=team, created_by=by, created_at=now, expires_at=now + expires_in, max_uses=max_uses
    )


@transaction.atomic
def invite_revoke(*, invite: Invite, by) -> Invite:
    _require_owner(invite.team, by, "revoke invites")
    if invite.revoked_at is None:
        Invite.objects.filter(pk=invite.pk, revoked_at=None).update(revoked_at=timezone.now())
        invite.refresh_from_db(fields=["revoked_at"])
    return invite


@transaction.atomic
def team_join(*, user, token: str, now: datetime | None = None) -> Membership:
    """Join the team of the invite `token`. The invite row is locked (SELECT ... FOR UPDATE on
    PostgreSQL; SQLite serialises writers), so concurrent joins never exceed max_uses."""
    now = now or timezone.now()
    invite = (
        Invite.objects.select_for_update(of=("self",))
        .select_related("team")
        .filter(token=(token or "").strip())
        .first()
    )
    if invite is None:
        raise InviteRefused(
            "This invite link is not valid. Check that you copied all of it, "
            "or ask a team owner for a new one."
        )
    team = invite.team
    if Membership.objects.filter(team=team, user=user).exists():
        raise AlreadyMember(f"You are already a member of {team.name}.")
    refusal = invite.refusal(now)
    if refusal:
        raise InviteRefused(refusal)
    if InviteUse.objects.filter(invite=invite, user=user).exists():
        raise InviteRefused(used_before_message(team))
    Invite.objects.filter(pk=invite.pk).update(uses=invite.uses + 1)
    InviteUse.objects.create(invite=invite, user=user, used_at=now)
    return Membership.objects.create(team=team, user=user, joined_at=now)


def used_before_message(team: Team) -> str:
    return (
        f"You have used this link to join {team.name} before. "
        "Ask a team owner for a new invite to rejoin."
    )


def _last_owner_guard(team: Team, membership: Membership, what: str) -> None:
    # Callers lock `membership` with select_for_update(), which also locks the team's row
    # (Membership's default ordering joins Team), so two owners leaving at once take turns
    # and the second sees it is the last owner.
    if not membership.is_owner:
        return
    owners = Membership.objects.filter(team=team, role=Membership.Role.OWNER).count()
    if owners > 1:
        return
    if Membership.objects.filter(team=team).count() == 1:
        raise TeamError(
            f"You are the only member of {team.name}; delete the team instead of {what}."
        )
    raise TeamError(
        f"You are the last owner of {team.name}: hand over ownership to another member "
        f"before {what}."
    )


@transaction.atomic
def member_remove(*, team: Team, by, user) -> None:
    """An owner removes `user` (possibly themself, which is leaving)."""
    _require_owner(team, by, "remove members")
    membership = Membership.objects.select_for_update().filter(team=team, user=user).first()
    if membership is None:
        raise TeamError(f"{user} is not a member of {team.name}.")
    _last_owner_guard(team, membership, "leaving" if user == by else "removing yourself")
    membership.delete()


@transaction.atomic
def team_leave(*, team: Team, user) -> None:
    membership = Membership.objects.select_for_update().filter(team=team, user=user).first()
    if membership is None:
        raise TeamError(f"You are not a member of {team.name}.")
    _last_owner_guard(team, membership, "leaving")
    membership.delete()


@transaction.atomic
def ownership_transfer(*, team: Team, by, to) -> Membership:
    """`by` hands ownership to member `to` and becomes a plain member."""
    current = _require_owner(team, by, "hand over ownership")
    if to == by:
        raise TeamError("You already own this team; choose another member.")
    target = Membership.objects.select_for_update().filter(team=team, user=to).first()
    if target is None:
        raise TeamError(f"{to} is not a member of {team.name}; invite them first.")
    target.role = Membership.Role.OWNER
    target.save(update_fields=["role"])
    current.role = Membership.Role.MEMBER
    current.save(update_fields=["role"])
    return target


@transaction.atomic
def membership_set_hidden(*, team: Team, user, hidden: bool) -> Membership:
    membership = Membership.objects.filter(team=team, user=user).first()
    if membership is None:
        raise TeamError(f"You are not a member of {team.name}.")
    membership.hidden = bool(hidden)
    membership.save(update_fields=["hidden"])
    return membership
