"""Reads shared by the team pages, the CSV export and the API.

`team_progress` issues a fixed number of queries (eleven) whatever the team and deck size: every
figure comes from an aggregate grouped by member (and section, or local day), never from a loop
over members. Teams composes what the apps that own the figures provide: *learned*, *retention*
and *readiness* are apps.study.progress's, the same as on the learner's stats page; the study
figures per member (cards learned per section, due backlog, reviews in the last 7 / 30 local
days, retention, streak, the least learned cards) are apps.teams.members's; the knowledge-check
scores per member are apps.quizzes.selectors's, the code exercises passed apps.exercises'. The
dashboard page explains each definition.

- *Mastery* of a section: the share of its cards the member has learned.
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
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max, QuerySet, Subquery
from django.http import Http404
from django.utils import timezone

from apps.charts.geometry import heat_level
from apps.decks.models import Card, Deck, Section
from apps.decks.selectors import count_of, section_cards
from apps.exercises import selectors as exercises
from apps.interview.plan import interview_readiness
from apps.quizzes import selectors as quizzes
from apps.study import progress
from apps.teams import members as study_members
from apps.teams.models import Invite, Membership, Team

if TYPE_CHECKING:
    from apps.quizzes.models import Quiz

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
    retention: float | None = None
    streak_days: int = 0
    knowledge_checks: dict[int, float] = field(default_factory=dict)  # quiz id -> best share
    knowledge: float = 0.0
    mastery_overall: float = 0.0
    readiness: float = 0.0
    last_active: datetime | None = None
    cells: list[tuple[SectionFigure, float, int]] = field(default_factory=list)
    # The interview plan (apps.interview.plan.interview_readiness): None without a date.
    interview_date: date | None = None
    interview_recall: float | None = None
    exercises_passed: int = 0  # the deck's code exercises with a passing Submit
    own_cards: int = 0  # cards in the member's own decks: the team sees how many, never which


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
    exercises_passed: float = 0.0
    hidden: int = 0  # hidden members among the counted ones (their rows are not shown)

    @property
    def label(self) -> str:
        """What the averages are over, for the CSV's row: "team average (3 members, 1 of them
        hidden)", or, with the one hidden member left out, "team average (2 members; 1 hidden
        member left out so the average cannot give them away)"."""
        members = f"{self.counted} member{'s' if self.counted != 1 else ''}"
        if self.left_out:
            return (
                f"team average ({members}; {self.left_out} hidden member left out"
                " so the average cannot give them away)"
            )
        if self.hidden:
            return f"team average ({members}, {self.hidden} of them hidden)"
        return f"team average ({members})"


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
    exercise_count: int = 0  # the deck's live code exercises

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
            exercises_passed=sum(m.exercises_passed for m in counted) / n,
            hidden=sum(1 for m in counted if m.hidden and m.user_id != viewer_id),
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
    "exercises": lambda m: m.exercises_passed,
    "own": lambda m: m.own_cards,
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


def progress_cache_seconds() -> int:
    """How long a team's computed progress is reused (0: never): settings.TEAMS_PROGRESS_CACHE_S."""
    return max(0, int(settings.TEAMS_PROGRESS_CACHE_S))


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
    checks = quizzes.knowledge_checks(deck_id)
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
    return f"teams:progress:v2:{team.pk}:{digest}:{counted}", [row[:6] for row in rows]


def team_progress(
    team: Team, *, now: datetime | None = None, viewer_id: int | None = None
) -> TeamProgress:
    """Every figure of the team dashboard. Computed in eleven queries (twelve when a member has an
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
    deck = team_deck(team)
    if deck is None:
        return TeamProgress(team, None, now, [], [], members, [], 0)

    sections = [
        SectionFigure(section=s, card_count=s.card_count)
        for s in Section.objects.filter(deck=deck)
        .select_related("deck")
        .annotate(card_count=count_of(section_cards()))  # from the index, not the table
        .order_by("order", "id")
    ]  # query 2
    card_count = sum(s.card_count for s in sections)
    zones = {m.user_id: m.time_zone for m in members}
    studied = study_members.member_study(
        deck, user_ids=member_ids, zones=zones, now=now
    )  # queries 3 and 4
    checks, scores = quizzes.member_checks(deck, user_ids=member_ids)  # queries 5 and 6
    plans = interview_readiness(
        list(zones), deck_id=deck.pk, card_count=card_count
    )  # query 7 (and 8 when a member has an interview date)
    for member in members:
        _fill(member, sections, card_count, studied[member.user_id], scores.get(member.user_id))
        plan = plans[member.user_id]
        member.interview_date, member.interview_recall = plan.interview_date, plan.predicted_recall

    exercise_count, passed = exercises.member_exercises(deck, user_ids=member_ids)  # two more
    own = dict(
        Card.objects.filter(deck__owner__in=member_ids)
        .values("deck__owner")
        .annotate(n=Count("id"))
        .values_list("deck__owner", "n")
    )  # one more: how many cards of their own each has (their decks are theirs alone)
    for member in members:
        member.exercises_passed = passed.get(member.user_id, 0)
        member.own_cards = own.get(member.user_id, 0)

    counted_ids = [m.user_id for m in _counted_for(members, viewer_id)]
    n = len(counted_ids) or 1
    weakest = [
        WeakCard(card=card, learners=card.learners, share=card.learners / n)
        for card in study_members.least_learned_cards(
            deck, user_ids=counted_ids, count=WEAKEST_COUNT, now=now
        )
    ]  # query 8 (or 9)
    return TeamProgress(
        team=team,
        deck=deck,
        now=now,
        sections=sections,
        knowledge_checks=checks,
        members=members,
        weakest=weakest,
        card_count=card_count,
        exercise_count=exercise_count,
    )


def _fill(
    member: MemberFigures,
    sections: list[SectionFigure],
    card_count: int,
    studied: study_members.MemberStudy,
    checks: quizzes.MemberChecks | None,
) -> None:
    """A member's row from the figures study and quizzes give for them."""
    checks = checks or quizzes.MemberChecks()
    for figure in sections:
        count = figure.card_count
        share = studied.learned_by_section.get(figure.section.pk, 0) / count if count else 0.0
        member.mastery[figure.section.pk] = share
        member.cells.append((figure, share, heat_level(share)))
    member.cards_learned = studied.cards_learned
    member.due_backlog = studied.due_backlog
    member.last_active = studied.last_active
    member.reviews_7d, member.reviews_30d = studied.reviews_7d, studied.reviews_30d
    member.retention = studied.retention
    member.streak_days = studied.streak_days
    member.knowledge_checks, member.knowledge = checks.best, checks.score
    member.mastery_overall = member.cards_learned / card_count if card_count else 0.0
    member.readiness = progress.readiness(
        learned=member.cards_learned,
        cards=card_count,
        knowledge=member.knowledge,
        retention=member.retention,
    )
