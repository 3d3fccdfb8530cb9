"""One set of numbers: what *learned*, *mature*, *retention* and *readiness* mean, everywhere a
person or an API client reads them (the stats page, the home page's path, the team dashboard, its
CSV and the API). Each is defined once here; the pages print `FORMULAS` beside the figures.
The figures of many learners at once (a team's members) are `apps.teams.members`'s, built on these.

- A card is **learned** when its SM-2 repetitions are at least 2 (two successful reviews in a row
  since its last lapse: it came back a day later and was recalled) and it is not overdue by more
  than 7 days (`LEARNED_OVERDUE_DAYS`): a card left unreviewed that long is no longer counted on.
  docs/using.md states the same; every page, the CSV and the API count it through `learned_q`.
- A card is **mature** when its interval is 21 days or more.
- **Retention** is the share of reviews graded 3 or more, over the reviews of cards that were
  due (ReviewLog kind "review": not first sightings of new cards, nor same-day re-drills; undone
  reviews aside) on the learner's last 30 local days, today included. No such review: no
  retention (shown as "—"), never 100 %.
- **Readiness** = 0.5 x the share of the deck's cards learned + 0.3 x the knowledge-check score
  (the average of the best score on each of the deck's checks, one not taken counting 0) + 0.2 x
  retention (none counting 0); with no card learned it is 0, whatever the other parts say.
"""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo

from django.db.models import Q

from apps.study import scheduler
from apps.study.models import MATURE_DAYS, ReviewLog

LEARNED_MIN_REPETITIONS = 2
LEARNED_OVERDUE_DAYS = 7
RETENTION_DAYS = 30
WEIGHTS = {"learned": 0.5, "knowledge": 0.3, "retention": 0.2}

FORMULAS = {
    "learned": f"a card is learned once its SM-2 repetitions are {LEARNED_MIN_REPETITIONS} or "
    "more (recalled on two reviews in a row, a day or more apart, and not failed since) and it "
    f"is not overdue by more than {LEARNED_OVERDUE_DAYS} days",
    "mature": f"a card is mature when its interval is {MATURE_DAYS} days or more",
    "retention": f"reviews graded 3+ ÷ reviews of cards that were due, last {RETENTION_DAYS} "
    "days (first sightings of new cards and same-day re-drills aside); — when there were none",
    "readiness": "0.5 × share of the deck's cards learned + 0.3 × knowledge-check score + 0.2 × "
    "retention (a missing part counts 0); 0 while no card is learned",
}


def learned_q(prefix: str = "", *, now: datetime) -> Q:
    """CardState rows that count as learned at `now` (`prefix` for a relation, e.g.
    "states__")."""
    return Q(**{
        f"{prefix}repetitions__gte": LEARNED_MIN_REPETITIONS,
        f"{prefix}due_at__gte": now - timedelta(days=LEARNED_OVERDUE_DAYS),
    })  # fmt: skip


def mature_q(prefix: str = "") -> Q:
    return Q(**{f"{prefix}interval_days__gte": MATURE_DAYS})


def retention_logs_q(prefix: str = "") -> Q:
    """ReviewLog rows that count towards retention (the window aside: see `retention_since`)."""
    return Q(**{f"{prefix}kind": ReviewLog.Kind.REVIEW, f"{prefix}undone_at": None})


def retention_passed_q(prefix: str = "") -> Q:
    return retention_logs_q(prefix) & Q(**{f"{prefix}grade__gte": 3})


def retention_since(now: datetime, zone: tzinfo) -> datetime:
    """The first instant of the retention window: the learner's local day 29 days before today."""
    return scheduler.day_start(now, zone) - timedelta(days=RETENTION_DAYS - 1)


def retention(passed: int, reviewed: int) -> float | None:
    return passed / reviewed if reviewed else None


def readiness(*, learned: int, cards: int, knowledge: float, retention: float | None) -> float:
    if not learned or not cards:
        return 0.0
    return (
        WEIGHTS["learned"] * learned / cards
        + WEIGHTS["knowledge"] * knowledge
        + WEIGHTS["retention"] * (retention or 0.0)
    )


def percent(share: float | None) -> int | None:
    return round(100 * share) if share is not None else None
