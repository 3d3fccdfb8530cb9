"""Study figures per member of a group of learners over one deck: what the team dashboard, its
CSV and the API show for each member. Each read is one query grouped by member (and section, or
local day) whatever the group's size, never a loop over members; *learned* and *retention* are
`apps.study.progress`'s, the same as on the learner's stats page.

- *Learned per section*: the member's learned cards of the deck (retired cards aside), by section.
- *Due backlog*: the member's cards of the deck due now (``due_at <= now``), suspended ones aside.
- *Reviews in the last 7 / 30 days* and *retention* count the member's reviews of the deck's cards
  on their last 7 / 30 local days (today included, in their profile's time zone; UTC without a
  profile); undone reviews do not count.
- *Current streak*: consecutive local days with at least one review, ending today, or yesterday
  when today has none yet (the streak survives until the end of the next day). It looks back
  `STREAK_LOOKBACK_DAYS` days at most.
- *Least learned cards*: the deck's cards learned by the fewest of the given learners.

`user_ids` may be a list of ids or a queryset of them (e.g. a team's memberships'
``values("user_id")``), which the query then uses as a subquery.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, TypedDict
from zoneinfo import ZoneInfo

from django.db.models import Case, Count, FilteredRelation, Max, Q, When
from django.db.models.functions import TruncDate

from apps.decks.models import Card, Deck

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations
from apps.study import progress
from apps.study.models import CardState, ReviewLog

STREAK_LOOKBACK_DAYS = 365


@dataclass
class MemberStudy:
    learned_by_section: dict[int, int] = field(default_factory=dict)  # section id -> learned
    cards_learned: int = 0
    due_backlog: int = 0
    last_active: datetime | None = None
    reviews_7d: int = 0
    reviews_30d: int = 0
    retention_passed: int = 0  # reviews counted by retention (progress.retention_logs_q) graded 3+
    retention_reviewed: int = 0  # reviews counted by retention
    streak_days: int = 0

    @property
    def retention(self) -> float | None:
        return progress.retention(self.retention_passed, self.retention_reviewed)


def zone(name: str | None) -> ZoneInfo:
    """The time zone called `name`; UTC for none or an unknown name."""
    try:
        return ZoneInfo(name or "UTC")
    except (KeyError, ValueError):
        return ZoneInfo("UTC")


def member_study(
    deck: Deck, *, user_ids, zones: dict[int, str], now: datetime
) -> dict[int, MemberStudy]:
    """The study figures of each user in `zones` (user id -> time zone name) over `deck`, as of
    `now`. Two queries: card states by member and section, reviews by member and local day."""
    members = {user_id: MemberStudy() for user_id in zones}
    _add_states(members, deck, user_ids=user_ids, now=now)
    _add_reviews(members, deck, user_ids=user_ids, zones=zones, now=now)
    return members


def _add_states(members: dict[int, MemberStudy], deck: Deck, *, user_ids, now: datetime) -> None:
    learned_q = progress.learned_q(now=now) & Q(card__retired_at=None)  # retired: in neither count
    rows = (
        CardState.objects.filter(user_id__in=user_ids, deck=deck)
        .values("user_id", "card__section_id")
        .annotate(
            learned=Count("id", filter=learned_q),
            due=Count("id", filter=Q(suspended=False, due_at__lte=now, card__retired_at=None)),
            last=Max("last_reviewed_at"),
        )
        .order_by()
    )
    for row in rows:
        member = members.get(row["user_id"])
        if member is None:
            continue
        member.learned_by_section[row["card__section_id"]] = row["learned"]
        member.cards_learned += row["learned"]
        member.due_backlog += row["due"]
        if row["last"] and (member.last_active is None or row["last"] > member.last_active):
            member.last_active = row["last"]


def _local_day_expression(zone_names: set[str]):
    """The review's local date in its author's time zone, as one SQL expression: a CASE over
    the (few) zones the members live in, so one grouped query serves every member."""
    whens = [
        When(user__profile__time_zone=name, then=TruncDate("reviewed_at", tzinfo=zone(name)))
        for name in sorted(zone_names)
        if name != "UTC"
    ]
    utc_day = TruncDate("reviewed_at", tzinfo=UTC)
    return Case(*whens, default=utc_day) if whens else utc_day


def _add_reviews(
    members: dict[int, MemberStudy], deck: Deck, *, user_ids, zones: dict[int, str], now: datetime
) -> None:
    rows = (
        ReviewLog.objects.filter(
            user_id__in=user_ids,
            card__deck=deck,
            undone_at=None,
            reviewed_at__gte=now - timedelta(days=STREAK_LOOKBACK_DAYS + 1),
        )
        .annotate(day=_local_day_expression(set(zones.values())))
        .values("user_id", "day")
        .annotate(
            n=Count("id"),
            reviewed=Count("id", filter=progress.retention_logs_q()),
            passed=Count("id", filter=progress.retention_passed_q()),
        )
        .order_by()
    )
    today = {user_id: now.astimezone(zone(name)).date() for user_id, name in zones.items()}
    active_days: dict[int, set[date]] = defaultdict(set)
    for row in rows:
        member = members.get(row["user_id"])
        if member is None:
            continue
        day = row["day"]
        if isinstance(day, datetime):
            day = day.date()
        active_days[row["user_id"]].add(day)
        age = (today[row["user_id"]] - day).days
        if age < 7:
            member.reviews_7d += row["n"]
        if age < 30:
            member.reviews_30d += row["n"]
        if age < progress.RETENTION_DAYS:
            member.retention_reviewed += row["reviewed"]
            member.retention_passed += row["passed"]
    for user_id, member in members.items():
        member.streak_days = streak(active_days.get(user_id, set()), today[user_id])


def streak(days: set[date], today: date) -> int:
    """Consecutive days of `days` ending today, or yesterday while today has none yet."""
    start = today if today in days else today - timedelta(days=1)
    streak = 0
    while start - timedelta(days=streak) in days:
        streak += 1
    return streak


class Learners(TypedDict):
    learners: int  # how many of the given learners have learned the card


def least_learned_cards(
    deck: Deck, *, user_ids: list[int], count: int, now: datetime
) -> list[WithAnnotations[Card, Learners]]:
    """The `count` cards of `deck` that the fewest of `user_ids` have learned, each with
    `learners` (how many of them have), in the deck's order among equals. One query."""
    # The learners' learned states are joined ON the condition, so the join touches only their
    # rows instead of every learner's states (see bench/README-teams.md).
    return list(
        Card.objects.filter(deck=deck)
        .select_related("section", "deck")
        .annotate(
            learned_states=FilteredRelation(
                "states",
                condition=Q(
                    # FilteredRelation takes no subquery; [0] keeps SQL valid with no learners.
                    states__user_id__in=list(user_ids) or [0],
                )
                & progress.learned_q("states__", now=now),
            ),
            learners=Count("learned_states"),
        )
        .order_by("learners", "section__order", "order", "id")[:count]
    )
