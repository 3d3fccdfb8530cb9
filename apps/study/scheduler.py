"""SM-2, exactly as written in DESIGN.md ("SM-2, exactly"). Pure: no Django import.

A card's schedule for one user is a frozen `CardSchedule`; `review(state, grade, now)` returns the
next one. Easiness is a `Decimal` with exactly two places, so `ceil(I x EF)` never drifts the way
binary floats do (6 x 2.8 x ... x 3.1 must give 465, not 466).

Rules, in the order `review` applies them:

* A card flagged `needs_redrill` (it was last graded 3): a grade of 4 or 5 clears the flag and the
  card becomes due `interval_days` after the review that set the flag (`redrill_anchor`); a lower
  grade keeps it due today. A re-drill grade never changes repetitions, easiness or interval.
* Otherwise, grade >= 3: EF += 0.1 - (5-q)(0.08 + (5-q)0.02), floored at 1.30; repetitions += 1;
  interval = 1 after the first success, 6 after the second, then ceil(interval x new EF), capped at
  36500 days. Grade 3 also flags the card for a same-day re-drill (due now); 4 and 5 make it due
  `interval` days after this review.
* Grade < 3: repetitions = 0, interval = 0, EF unchanged, lapses += 1 if the card had been learnt
  (repetitions > 0), due now.

Whether a card is due is a matter of days in the learner's time zone: `is_due` is true when
`due_at` falls on or before the end of the learner's local today.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from decimal import ROUND_CEILING, Decimal
from typing import Any

GRADES = range(0, 6)
# What each grade means, as the review page's exact grades and the card browser's history say.
GRADE_NAMES: dict[int, str] = {
    0: "0 · blackout",
    1: "1 · wrong, recognised the answer",
    2: "2 · wrong, answer felt easy once seen",
    3: "3 · right, with serious difficulty",
    4: "4 · right, after hesitation",
    5: "5 · right, instantly",
}
INITIAL_EASE = Decimal("2.50")
MIN_EASE = Decimal("1.30")
MAX_INTERVAL_DAYS = 36500
TWO_PLACES = Decimal("0.01")
# How far ahead of the server's clock a device's review moment may be (clocks drift).
CLOCK_SKEW = timedelta(seconds=60)


class GradeError(ValueError):
    """A grade outside 0..5 (or not an integer); the message is fit to show a person."""


@dataclass(frozen=True, slots=True)
class CardSchedule:
    repetitions: int = 0
    ease_factor: Decimal = INITIAL_EASE
    interval_days: int = 0
    due_at: datetime | None = None
    needs_redrill: bool = False
    # When the review that set needs_redrill happened: the clearing review counts from here.
    redrill_anchor: datetime | None = None
    lapses: int = 0
    last_grade: int | None = None
    last_reviewed_at: datetime | None = None

    def as_json(self) -> dict[str, object]:
        """A JSON-ready dict (Decimal as "2.36", datetimes as ISO 8601), e.g. for ReviewLog."""
        return {
            "repetitions": self.repetitions,
            "ease_factor": f"{self.ease_factor:.2f}",
            "interval_days": self.interval_days,
            "due_at": _iso(self.due_at),
            "needs_redrill": self.needs_redrill,
            "redrill_anchor": _iso(self.redrill_anchor),
            "lapses": self.lapses,
            "last_grade": self.last_grade,
            "last_reviewed_at": _iso(self.last_reviewed_at),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CardSchedule:
        return cls(
            repetitions=int(data["repetitions"]),
            ease_factor=Decimal(str(data["ease_factor"])).quantize(TWO_PLACES),
            interval_days=int(data["interval_days"]),
            due_at=_parse(data.get("due_at")),
            needs_redrill=bool(data.get("needs_redrill", False)),
            redrill_anchor=_parse(data.get("redrill_anchor")),
            lapses=int(data.get("lapses", 0)),
            last_grade=data.get("last_grade"),
            last_reviewed_at=_parse(data.get("last_reviewed_at")),
        )


def new_state(now: datetime) -> CardSchedule:
    """A card never reviewed: n=0, EF=2.50, I=0, due now."""
    return CardSchedule(due_at=now)


def check_grade(grade: object) -> int:
    if isinstance(grade, bool) or not isinstance(grade, int) or grade not in GRADES:
        raise GradeError(f"grade must be 0 to 5, got {grade!r}")
    return grade


def next_ease(ease_factor: Decimal, grade: int) -> Decimal:
    """SM-2's easiness update, exact to two decimals and floored at 1.30."""
    miss = 5 - grade
    ease = ease_factor + Decimal("0.1") - miss * (Decimal("0.08") + miss * Decimal("0.02"))
    return max(MIN_EASE, ease.quantize(TWO_PLACES))


def next_interval(repetitions: int, interval_days: int, ease_factor: Decimal) -> int:
    """Interval after a successful review; `repetitions` already counts that review."""
    if repetitions == 1:
        return 1
    if repetitions == 2:
        return 6
    grown = (Decimal(interval_days) * ease_factor).to_integral_value(rounding=ROUND_CEILING)
    return min(MAX_INTERVAL_DAYS, int(grown))


def review(state: CardSchedule, grade: int, now: datetime) -> CardSchedule:
    """The schedule after grading `state` with `grade` at `now` (whether it was due is not checked
    here: the caller refuses reviews of cards that are not due)."""
    grade = check_grade(grade)
    if state.needs_redrill:
        if grade >= 4:
            anchor = state.redrill_anchor or now
            return dataclasses.replace(
                state,
                needs_redrill=False,
                redrill_anchor=None,
                due_at=anchor + timedelta(days=state.interval_days),
                last_grade=grade,
                last_reviewed_at=now,
            )
        return dataclasses.replace(state, due_at=now, last_grade=grade, last_reviewed_at=now)
    if grade >= 3:
        repetitions = state.repetitions + 1
        ease = next_ease(state.ease_factor, grade)
        interval = next_interval(repetitions, state.interval_days, ease)
        redrill = grade == 3
        return dataclasses.replace(
            state,
            repetitions=repetitions,
            ease_factor=ease,
            interval_days=interval,
            needs_redrill=redrill,
            redrill_anchor=now if redrill else None,
            due_at=now if redrill else now + timedelta(days=interval),
            last_grade=grade,
            last_reviewed_at=now,
        )
    return dataclasses.replace(
        state,
        repetitions=0,
        interval_days=0,
        lapses=state.lapses + (1 if state.repetitions > 0 else 0),
        needs_redrill=False,
        redrill_anchor=None,
        due_at=now,
        last_grade=grade,
        last_reviewed_at=now,
    )


def replay(
    start: CardSchedule | None, reviews: Iterable[tuple[datetime, int | None]]
) -> list[tuple[CardSchedule | None, CardSchedule]]:
    """Each review's (state before, state after), the reviews taken in time order (a stable sort:
    reviews at the same instant keep their given order) from `start` (None: a card never
    reviewed, new at the first review's moment). A grade of None is a review logged that leaves
    the schedule as it is (the interview's plan-mode review). No due check: this is how two
    devices' reviews of one card are merged (Anki's rule), and how the rest of a card's history
    is replayed when one review is taken out of it."""
    steps: list[tuple[CardSchedule | None, CardSchedule]] = []
    state = start
    for at, grade in sorted(reviews, key=lambda step: step[0]):
        current = state if state is not None else new_state(at)
        after = current if grade is None else review(current, grade, at)
        steps.append((state, after))
        state = after
    return steps


def moment_refusal(
    at: datetime,
    now: datetime,
    *,
    hold_days: int,
    based_on: datetime | None = None,
    last_reviewed_at: datetime | None = None,
    skew: timedelta = CLOCK_SKEW,
) -> str | None:
    """Why a review a device made at `at` cannot be taken now, or None when it can: in the
    future by more than `skew`, older than `hold_days` days, before `based_on` (the last review
    of the state the device graded from), or, when no `based_on` is given, before the card's
    `last_reviewed_at`. The sentence says the moment and the bound."""
    if at > now + skew:
        return (
            f"reviewed_at {_iso_s(at)} is in the future: the server's time is {_iso_s(now)} and a"
            f" device's clock may be at most {int(skew.total_seconds())} seconds ahead; set the"
            " device's clock right and sync again"
        )
    oldest = now - timedelta(days=hold_days)
    if at < oldest:
        return (
            f"reviewed_at {_iso_s(at)} is older than {hold_days} days (the oldest moment taken now"
            f" is {_iso_s(oldest)}); a device keeps reviews for {hold_days} days at most, so this"
            " one cannot be synced"
        )
    if based_on is not None and at < based_on:
        return (
            f"reviewed_at {_iso_s(at)} is before based_on {_iso_s(based_on)}, the last review of"
            " the state it was graded from; check the device's clock"
        )
    if based_on is None and last_reviewed_at is not None and at < last_reviewed_at:
        return (
            f"reviewed_at {_iso_s(at)} is before this card's last review at"
            f" {_iso_s(last_reviewed_at)}; send based_on (the last_reviewed_at of the state the"
            " device graded from) or check the device's clock"
        )
    return None


def leech_reached(lapses_before: int, lapses_after: int, threshold: int) -> bool:
    """True when a review's lapse brings the card to the leech threshold (0: leeches off), as
    Anki tags a note "leech" on its 8th lapse by default."""
    return threshold > 0 and lapses_before < threshold <= lapses_after


def local_date(moment: datetime, tz: tzinfo) -> date:
    return moment.astimezone(tz).date()


def day_end(now: datetime, tz: tzinfo) -> datetime:
    """The first instant of the learner's local tomorrow: everything due before it is due today."""
    tomorrow = local_date(now, tz) + timedelta(days=1)
    return datetime.combine(tomorrow, time.min, tzinfo=tz).astimezone(UTC)


def day_start(now: datetime, tz: tzinfo) -> datetime:
    """The first instant of the learner's local today (for "reviews done today" limits)."""
    return datetime.combine(local_date(now, tz), time.min, tzinfo=tz).astimezone(UTC)


def is_due(state: CardSchedule, now: datetime, tz: tzinfo = UTC) -> bool:
    """Due when due_at falls on or before the end of the learner's local today."""
    return state.due_at is None or state.due_at < day_end(now, tz)


def days_until_due(state: CardSchedule, now: datetime, tz: tzinfo = UTC) -> int:
    """Whole local days from today to the due day; 0 means due today (again today)."""
    if state.due_at is None:
        return 0
    return max(0, (local_date(state.due_at, tz) - local_date(now, tz)).days)


def preview(state: CardSchedule, now: datetime, tz: tzinfo = UTC) -> dict[int, int]:
    """Days until due that each grade 0..5 would give now, for buttons such as "Good - 6d"."""
    return {grade: days_until_due(review(state, grade, now), now, tz) for grade in GRADES}


def preview_ease(state: CardSchedule, now: datetime) -> dict[int, Decimal]:
    """How much each grade 0..5 would change the easiness now (0 where SM-2 leaves it alone: a
    failed grade, or a re-drill), for buttons such as "Easy - 1d - ease +0.10"."""
    return {grade: review(state, grade, now).ease_factor - state.ease_factor for grade in GRADES}


def format_ease_change(change: Decimal) -> str:
    """ "ease +0.10", "ease −0.14", "ease ±0"."""
    if change == 0:
        return "ease ±0"
    sign = "+" if change > 0 else "\u2212"
    return f"ease {sign}{abs(change):.2f}"


def format_days(days: int) -> str:
    """A short label for an interval: "today", "1d", "6d", "3mo", "1.3y"."""
    if days <= 0:
        return "today"
    if days < 31:
        return f"{days}d"
    if days < 365:
        return f"{round(days / 30.4)}mo"
    return f"{days / 365:.1f}y"


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _iso_s(moment: datetime) -> str:
    """A moment to the second, in UTC, for sentences: 2026-12-01T09:30:00Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None
