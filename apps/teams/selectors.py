"""Reads shared by the team pages, the CSV export and the API.

`team_progress` issues a fixed number of queries (seven) whatever the team and deck size: every
figure comes from an aggregate grouped by member (and section, or local day), never from a loop
over members. The definitions below are the ones the dashboard page explains; *learned*,
*retention* and *readiness* are apps.study.progress's, the same as on the learner's stats page.

- A card is *learned* as `apps.study.progress` says (``repetitions >= 1``).
- *Mastery* of a section: the share of its cards the member has learned.
- *Due backlog*: the member's cards of the deck due now (``due_at <= now``), suspended ones aside.
- *Reviews in the last 7 / 30 days* and *retention* count the member's reviews of the deck's cards
  on their last 7 / 30 local days (today included, in their profile's time zone; UTC without a
  profile); undone reviews do not count. *Retention* is `apps.study.progress`'s: the share of
  those 30 days' reviews of due cards (first sightings of new cards and same-day re-drills
  aside) graded 3 or more.
- *Current streak*: consecutive local days with at least one review, ending today, or yesterday
  when today has none yet (the streak survives until the end of the next day). It looks back
  `STREAK_LOOKBACK_DAYS` days at most.
- *Knowledge check*: the average, over the deck's knowledge checks, of the member's best score on
  each (a check not taken counts 0).
- *Readiness*: `apps.study.progress.readiness` (0.5 x overall mastery + 0.3 x knowledge check +
  0.2 x retention, a missing part counting 0; 0 while no card is learned).
- *Weakest concepts*: the deck's cards learned by the smallest share of the team.

Privacy: a member who hides their details is counted in the team's averages and in the weakest
concepts, but never appears as a row to anyone but themself. When exactly one member is hidden
from a viewer, the averages and the weakest concepts that viewer sees leave that member out too:
otherwise the averages and the visible rows (or, for a card's learner count, the viewer's own
cards) would give their figures away.
"""

from __future__ import annotations

import hashlib
import os
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.cache import cache
from django.db.models import (
    Case,
    Count,
    FilteredRelation,
    FloatField,
    Max,
    Q,
    QuerySet,
    Subquery,
    When,
)
from django.db.models.functions import Cast, TruncDate
from django.http import Http404
from django.utils import timezone

from apps.charts.geometry import heat_level
from apps.decks.models import CARDS_IN_USE, Card, Deck, Section
from apps.quizzes.models import Attempt, Quiz
from apps.study import progress
from apps.study.interview import interview_readiness
from apps.study.models import CardState, ReviewLog
from apps.teams.models import Invite, Membership, Team

STREAK_LOOKBACK_DAYS = 365
WEAKEST_COUNT = 5


# Access -------------------------------------------------------------------------------------


def teams_of(user) -> QuerySet[Membership]:
    """The user's memberships with their teams and member counts, for the index and the API."""
    return (
        Membership.objects.filter(user=user)
        .select_related("team", "team__deck")
        .annotate(member_count=Count("team__memberships"))
        .order_by("team__name", "team_id")
    )


def membership_for(user, slug: str) -> Membership:
    """The user's membership of team `slug`. Strangers get a 404, so team slugs do not leak."""
    if not user.is_authenticated:
        raise Http404("No such team.")
    membership = (
        Membership.objects.select_related("team", "team__deck")
        .filter(team__slug=slug, user=user)
        .first()
    )
    if membership is None:
        raise Http404(f"You are not a member of a team called {slug!r}.")
    return membership


def team_members(team: Team) -> QuerySet[Membership]:
    return Membership.objects.filter(team=team).select_related("user").order_by("joined_at", "id")


def team_invites(team: Team) -> QuerySet[Invite]:
    return Invite.objects.filter(team=team).select_related("created_by")


def invite_for_token(token: str) -> Invite | None:
    return Invite.objects.select_related("team").filter(token=token).first()


def team_deck(team: Team) -> Deck | None:
    if team.deck_id:
        return team.deck
    return Deck.objects.filter(is_published=True).order_by("title", "id").first()


# Dashboard ----------------------------------------------------------------------------------


@dataclass
class SectionFigure:
    section: Section
    card_count: int


@dataclass
class MemberFigures:
    user_id: int
    username: str
    role: str
    hidden: bool
    joined_at: datetime
    time_zone: str
    is_viewer: bool = False
    mastery: dict[int, float] = field(default_factory=dict)  # section id -> share
    cards_learned: int = 0
    due_backlog: int = 0
    reviews_7d: int = 0
    reviews_30d: int = 0
    good_30d: int = 0  # reviews counted by retention (progress.retention_logs_q) graded 3+
    retention_reviewed: int = 0  # reviews counted by retention
    retention: float | None = None
    streak_days: int = 0
    knowledge_checks: dict[int, float] = field(default_factory=dict)  # quiz id -> best share
    knowledge: float = 0.0
    mastery_overall: float = 0.0
    readiness: float = 0.0
    last_active: datetime | None = None
    cells: list[tuple[SectionFigure, float, int]] = field(default_factory=list)
    # The interview plan (apps.study.interview.interview_readiness): None without a date.
    interview_date: date | None = None
    interview_recall: float | None = None


@dataclass
class TeamAverages:
    counted: int  # members the averages are over
    left_out: int  # hidden members left out so that nobody can be worked out (0 or 1)
    mastery: dict[int, float]
    cells: list[tuple[SectionFigure, float, int]]
    mastery_overall: float
    cards_learned: float
    due_backlog: float
    reviews_7d: float
    reviews_30d: float
    retention: float | None
    streak_days: float
    knowledge: float
    readiness: float


@dataclass
class WeakCard:
    card: Card
    learners: int
    share: float


@dataclass
class TeamProgress:
    team: Team
    deck: Deck | None
    now: datetime
    sections: list[SectionFigure]
    knowledge_checks: list[Quiz]
    members: list[MemberFigures]  # every member; use `visible_rows` before showing rows
    weakest: list[WeakCard]
    card_count: int

    @property
    def member_count(self) -> int:
        return len(self.members)

    @property
    def hidden_count(self) -> int:
        return sum(1 for m in self.members if m.hidden)

    def visible_rows(self, viewer_id: int) -> list[MemberFigures]:
        """Rows the viewer may see: everyone who has not hidden their details, and themself."""
        return [m for m in self.members if not m.hidden or m.user_id == viewer_id]

    def averages_for(self, viewer_id: int) -> TeamAverages:
        """The team's averages as `viewer_id` may see them: over every member, hidden ones
        included, except when exactly one member is hidden from this viewer. Then the average
        and the visible rows would give that member's figures away, so they are left out."""
        counted = _counted_for(self.members, viewer_id)
        n = len(counted) or 1
        retentions = [m.retention for m in counted if m.retention is not None]
        mastery = {
            f.section.pk: sum(m.mastery.get(f.section.pk, 0.0) for m in counted) / n
            for f in self.sections
        }
        return TeamAverages(
            counted=len(counted),
            left_out=len(self.members) - len(counted),
            mastery=mastery,
            cells=[
                (f, mastery[f.section.pk], heat_level(mastery[f.section.pk])) for f in self.sections
            ],
            mastery_overall=sum(m.mastery_overall for m in counted) / n,
            cards_learned=sum(m.cards_learned for m in counted) / n,
            due_backlog=sum(m.due_backlog for m in counted) / n,
            reviews_7d=sum(m.reviews_7d for m in counted) / n,
            reviews_30d=sum(m.reviews_30d for m in counted) / n,
            retention=sum(retentions) / len(retentions) if retentions else None,
            streak_days=sum(m.streak_days for m in counted) / n,
            knowledge=sum(m.knowledge for m in counted) / n,
            readiness=sum(m.readiness for m in counted) / n,
        )


def _counted_for(members: list[MemberFigures], viewer_id: int | None) -> list[MemberFigures]:
    """The members a viewer's aggregates are over: all of them, except a member who is the only
    one hidden from this viewer (an aggregate next to the rows the viewer sees would be theirs)."""
    unseen = [m.user_id for m in members if m.hidden and m.user_id != viewer_id]
    if viewer_id is None or len(unseen) != 1:
        return members
    return [m for m in members if m.user_id != unseen[0]]


SORT_KEYS = {
    "username": lambda m: m.username.lower(),
    "readiness": lambda m: m.readiness,
    "mastery": lambda m: m.mastery_overall,
    "learned": lambda m: m.cards_learned,
    "due": lambda m: m.due_backlog,
    "reviews_7d": lambda m: m.reviews_7d,
    "reviews_30d": lambda m: m.reviews_30d,
    "retention": lambda m: -1 if m.retention is None else m.retention,
    "streak": lambda m: m.streak_days,
    "knowledge": lambda m: m.knowledge,
    "last_active": lambda m: m.last_active or datetime.min.replace(tzinfo=UTC),
}
DEFAULT_SORT = "-readiness"


def sort_rows(rows: list[MemberFigures], sort: str | None) -> tuple[list[MemberFigures], str]:
    """Rows ordered by `sort` (a SORT_KEYS name, '-' for descending); unknown -> the default."""
    sort = sort or DEFAULT_SORT
    name = sort.removeprefix("-")
    if name not in SORT_KEYS:
        sort, name = DEFAULT_SORT, DEFAULT_SORT.removeprefix("-")
    rows = sorted(rows, key=lambda m: m.username.lower())  # stable tie-break by name
    return sorted(rows, key=SORT_KEYS[name], reverse=sort.startswith("-")), sort


def _zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (KeyError, ValueError):
        return ZoneInfo("UTC")


def _local_day_expression(zones: set[str]):
    """The review's local date in its author's time zone, as one SQL expression: a CASE over
    the (few) zones the team's members live in, so one grouped query serves every member."""
    whens = [
        When(user__profile__time_zone=name, then=TruncDate("reviewed_at", tzinfo=_zone(name)))
        for name in sorted(zones)
        if name != "UTC"
    ]
    utc_day = TruncDate("reviewed_at", tzinfo=UTC)
    return Case(*whens, default=utc_day) if whens else utc_day


def _streak(days: set[date], today: date) -> int:
    start = today if today in days else today - timedelta(days=1)
    streak = 0
    while start - timedelta(days=streak) in days:
        streak += 1
    return streak


def progress_cache_seconds() -> int:
    """How long a team's computed progress is reused (0: never). `TEAMS_PROGRESS_CACHE_S` in
    the settings or the environment; 60 s by default."""
    value = getattr(settings, "TEAMS_PROGRESS_CACHE_S", None)
    if value is None:
        value = os.environ.get("TEAMS_PROGRESS_CACHE_S", "60")
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return 60


def _progress_cache_key(team: Team, viewer_id: int | None) -> tuple[str, list[tuple]]:
    """The cache key of `team`'s progress as `viewer_id` sees it, in one query: a digest of the
    team's membership rows (who, role, hidden, joined, name, time zone) and of the deck's
    content (its cards' count and last change, its sections and knowledge checks). Any
    membership change, a member hiding their details, or a content change gives a new key, so
    a cached entry can never show the wrong people; only the members' new reviews, attempts
    and schedules wait for the entry to expire. Returns the key and the membership rows (a
    miss computes from them instead of reading the members again)."""
    deck = team_deck(team)
    deck_id = deck.pk if deck else 0

    def stamp(queryset, aggregate):
        """One figure over the deck's rows, as a scalar subquery (grouped by the one deck)."""
        return Subquery(queryset.order_by().values("deck_id").annotate(v=aggregate).values("v"))

    cards = Card.objects.filter(deck_id=deck_id)
    checks = Quiz.objects.filter(deck_id=deck_id, kind=Quiz.Kind.KNOWLEDGE_CHECK)
    rows = list(
        Membership.objects.filter(team=team)
        .annotate(
            cards_n=stamp(cards, Count("id")),
            cards_at=stamp(cards, Max("updated_at")),
            sections=stamp(Section.objects.filter(deck_id=deck_id), Count("id")),
            checks=stamp(checks, Count("id")),
            checks_last=stamp(checks, Max("id")),
        )
        .order_by("joined_at", "id")
        .values_list(
            "user_id", "role", "hidden", "joined_at", "user__username",
            "user__profile__time_zone", "cards_n", "cards_at", "sections", "checks",
            "checks_last",
        )
    )  # fmt: skip
    unseen = [row[0] for row in rows if row[2] and row[0] != viewer_id]
    counted = f"without-{unseen[0]}" if viewer_id is not None and len(unseen) == 1 else "all"
    digest = hashlib.sha256(
        repr((deck_id, deck.updated_at if deck else None, rows)).encode()
    ).hexdigest()[:24]
    return f"teams:progress:v1:{team.pk}:{digest}:{counted}", [row[:6] for row in rows]


def team_progress(
    team: Team, *, now: datetime | None = None, viewer_id: int | None = None
) -> TeamProgress:
    """Every figure of the team dashboard. Computed in eight queries (nine when a member has an
    interview date) whatever the team or deck size, and kept in the shared cache for
    `progress_cache_seconds()` under a key that changes with the team's membership and the
    deck's content (one query to check): a lead's dashboard shows figures "as of"
    `progress.now`, at most that old. Pass `now` to compute afresh for that moment (no cache).
    With `viewer_id`, the weakest concepts are counted over the members that viewer's averages
    are over (see `TeamProgress.averages_for`)."""
    ttl = progress_cache_seconds()
    if now is not None or not ttl:
        return _compute_team_progress(team, now=now, viewer_id=viewer_id)
    key, member_rows = _progress_cache_key(team, viewer_id)
    progress = cache.get(key)
    if progress is None:
        progress = _compute_team_progress(team, viewer_id=viewer_id, member_rows=member_rows)
        cache.set(key, progress, ttl)
    progress.team = team  # the caller's (fresh) row: a renamed team shows its new name
    return progress


def _compute_team_progress(
    team: Team,
    *,
    now: datetime | None = None,
    viewer_id: int | None = None,
    member_rows: list[tuple] | None = None,
) -> TeamProgress:
    now = now or timezone.now()
    member_ids = Membership.objects.filter(team=team).values("user_id")
    if member_rows is None:
        member_rows = list(
            Membership.objects.filter(team=team)
            .order_by("joined_at", "id")
            .values_list(
                "user_id", "role", "hidden", "joined_at", "user__username",
                "user__profile__time_zone",
            )
        )  # query 1 (or the cache key's query)  # fmt: skip
    members = [
        MemberFigures(
            user_id=user_id,
            username=username,
            role=role,
            hidden=hidden,
            joined_at=joined_at,
            time_zone=time_zone or "UTC",
        )
        for user_id, role, hidden, joined_at, username, time_zone in member_rows
    ]
    by_user = {m.user_id: m for m in members}
    deck = team_deck(team)
    if deck is None:
        return TeamProgress(team, None, now, [], [], members, [], 0)

    sections = [
        SectionFigure(section=s, card_count=s.card_count)
        for s in Section.objects.filter(deck=deck)
        .select_related("deck")
        .annotate(card_count=Count("cards", filter=CARDS_IN_USE))
        .order_by("order", "id")
    ]  # query 2
    card_count = sum(s.card_count for s in sections)

    learned_q = progress.learned_q() & Q(card__retired_at=None)  # retired: in neither count
    learned_by_section: dict[int, dict[int, int]] = defaultdict(dict)
    state_rows = (
        CardState.objects.filter(user_id__in=member_ids, deck=deck)
        .values("user_id", "card__section_id")
        .annotate(
            learned=Count("id", filter=learned_q),
            due=Count("id", filter=Q(suspended=False, due_at__lte=now, card__retired_at=None)),
            last=Max("last_reviewed_at"),
        )
        .order_by()
    )  # query 3
    for row in state_rows:
        member = by_user.get(row["user_id"])
        if member is None:
            continue
        learned_by_section[row["user_id"]][row["card__section_id"]] = row["learned"]
        member.cards_learned += row["learned"]
        member.due_backlog += row["due"]
        if row["last"] and (member.last_active is None or row["last"] > member.last_active):
            member.last_active = row["last"]

    zones = {m.time_zone for m in members}
    day_rows = (
        ReviewLog.objects.filter(
            user_id__in=member_ids,
            card__deck=deck,
            undone_at=None,
            reviewed_at__gte=now - timedelta(days=STREAK_LOOKBACK_DAYS + 1),
        )
        .annotate(day=_local_day_expression(zones))
        .values("user_id", "day")
        .annotate(
            n=Count("id"),
            reviewed=Count("id", filter=progress.retention_logs_q()),
            passed=Count("id", filter=progress.retention_passed_q()),
        )
        .order_by()
    )  # query 4
    today = {m.user_id: now.astimezone(_zone(m.time_zone)).date() for m in members}
    active_days: dict[int, set[date]] = defaultdict(set)
    for row in day_rows:
        member = by_user.get(row["user_id"])
        if member is None:
            continue
        day = row["day"]
        if isinstance(day, datetime):
            day = day.date()
        active_days[row["user_id"]].add(day)
        age = (today[member.user_id] - day).days
        if age < 7:
            member.reviews_7d += row["n"]
        if age < 30:
            member.reviews_30d += row["n"]
        if age < progress.RETENTION_DAYS:
            member.retention_reviewed += row["reviewed"]
            member.good_30d += row["passed"]

    checks = list(
        Quiz.objects.filter(deck=deck, kind=Quiz.Kind.KNOWLEDGE_CHECK).order_by("order", "id")
    )  # query 5
    best_rows = (
        Attempt.objects.filter(
            user_id__in=member_ids,
            quiz__deck=deck,
            quiz__kind=Quiz.Kind.KNOWLEDGE_CHECK,
            submitted_at__isnull=False,
            score__isnull=False,
            max_score__gt=0,
        )
        .values("user_id", "quiz_id")
        .annotate(best=Max(Cast("score", FloatField()) / Cast("max_score", FloatField())))
        .order_by()
    )  # query 6
    for row in best_rows:
        if row["user_id"] in by_user:
            by_user[row["user_id"]].knowledge_checks[row["quiz_id"]] = min(1.0, row["best"])

    for member in members:
        learned = learned_by_section.get(member.user_id, {})
        for figure in sections:
            count = figure.card_count
            share = learned.get(figure.section.pk, 0) / count if count else 0.0
            member.mastery[figure.section.pk] = share
            member.cells.append((figure, share, heat_level(share)))
        member.mastery_overall = member.cards_learned / card_count if card_count else 0.0
        member.retention = progress.retention(member.good_30d, member.retention_reviewed)
        member.streak_days = _streak(active_days.get(member.user_id, set()), today[member.user_id])
        if checks:
            member.knowledge = sum(member.knowledge_checks.get(q.pk, 0.0) for q in checks) / len(
                checks
            )
        member.readiness = progress.readiness(
            learned=member.cards_learned,
            cards=card_count,
            knowledge=member.knowledge,
            retention=member.retention,
        )

    counted_ids = [m.user_id for m in _counted_for(members, viewer_id)]
    n = len(counted_ids) or 1
    # The members' learned states are joined ON the condition, so the join touches only this
    # team's rows instead of every learner's states (5x faster than COUNT ... FILTER at 200
    # members on PostgreSQL; a correlated subquery was slower still).
    weakest_cards = (
        Card.objects.filter(deck=deck)
        .select_related("section", "deck")
        .annotate(
            learned_states=FilteredRelation(
                "states",
                condition=Q(
                    # FilteredRelation takes no subquery; [0] keeps SQL valid with no members.
                    states__user_id__in=counted_ids or [0],
                )
                & progress.learned_q("states__"),
            ),
            learners=Count("learned_states"),
        )
        .order_by("learners", "section__order", "order", "id")[:WEAKEST_COUNT]
    )  # query 7
    weakest = [
        WeakCard(card=card, learners=card.learners, share=card.learners / n)
        for card in weakest_cards
    ]
    plans = interview_readiness(
        [m.user_id for m in members], deck_id=deck.pk, card_count=card_count
    )  # query 8 (and 9 when a member has an interview date)
    for member in members:
        plan = plans[member.user_id]
        member.interview_date, member.interview_recall = plan.interview_date, plan.predicted_recall
    return TeamProgress(
        team=team,
        deck=deck,
        now=now,
        sections=sections,
        knowledge_checks=checks,
        members=members,
        weakest=weakest,
        card_count=card_count,
    )
