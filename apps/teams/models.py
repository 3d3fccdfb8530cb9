import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone


class Team(models.Model):
    """A group preparing together (a hiring cohort, a study group) over one deck."""

    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=110, unique=True)
    deck = models.ForeignKey(
        "decks.Deck",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The deck the dashboard measures; empty means the first published deck.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("teams:dashboard", args=[self.slug])


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        MEMBER = "member", "Member"

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="team_memberships"
    )
    role = models.CharField(max_length=8, choices=Role.choices, default=Role.MEMBER)
    hidden = models.BooleanField(
        "hide my details from the team",
        default=False,
        help_text="Counted in the team's averages, never shown as a row to other members.",
    )
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["team", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["team", "user"], name="membership_one_per_team_user")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"

    @property
    def is_owner(self) -> bool:
        return self.role == self.Role.OWNER


def invite_token() -> str:
    return secrets.token_urlsafe(24)


class InviteQuerySet(models.QuerySet):
    def active(self, now=None):
        now = now or timezone.now()
        return self.filter(revoked_at=None, expires_at__gt=now).filter(
            models.Q(max_uses=None) | models.Q(uses__lt=models.F("max_uses"))
        )


class Invite(models.Model):
    """A link that lets whoever holds it join the team, until it expires, is revoked or is used
    up. Uses only ever go up: a removed member's single-use link stays used."""

    DEFAULT_LIFETIME = timedelta(days=7)

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="invites")
    token = models.CharField(max_length=64, unique=True, default=invite_token, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    max_uses = models.PositiveIntegerField(
        null=True, blank=True, default=1, help_text="1: single-use; empty: any number of uses."
    )
    uses = models.PositiveIntegerField(default=0)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = InviteQuerySet.as_manager()

    # Set by the manage page (teams.views.manage) for its template: the absolute link to share,
    # and whether it still admits anyone.
    url: str
    is_active: bool

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"invite to {self.team} ({self.uses}/{self.max_uses or '∞'})"

    def get_absolute_url(self) -> str:
        return reverse("teams:join", args=[self.token])

    @property
    def is_single_use(self) -> bool:
        return self.max_uses == 1

    def refusal(self, now=None) -> str | None:
        """Why this link cannot be used now, in words fit to show; None when it can."""
        now = now or timezone.now()
        if self.revoked_at is not None:
            return "This invite link was revoked by a team owner. Ask them for a new one."
        if self.expires_at <= now:
            return (
                f"This invite link expired on {timezone.localtime(self.expires_at):%Y-%m-%d %H:%M}."
                " Ask a team owner for a new one."
            )
        if self.max_uses is not None and self.uses >= self.max_uses:
            if self.is_single_use:
                return "This single-use invite link has already been used. Ask for a new one."
            return f"This invite link has been used its {self.max_uses} times. Ask for a new one."
        return None

    @property
    def status(self) -> str:
        return "active" if self.refusal() is None else (
            "revoked" if self.revoked_at else "expired" if self.expires_at <= timezone.now()
            else "used up"
        )  # fmt: skip


class InviteUse(models.Model):
    """Who joined through which link: a link works once per person, so a removed member cannot
    come back through a multi-use link they used before."""

    invite = models.ForeignKey(Invite, on_delete=models.CASCADE, related_name="redemptions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    used_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["invite", "user"], name="invite_use_once_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.user} used {self.invite_id}"
