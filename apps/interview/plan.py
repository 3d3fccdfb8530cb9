"""Interview mode, Django side: the learner's cards and stored FSRS memories loaded in a fixed
number of queries and handed to the pure interview scheduler (`apps.interview.planner`); its plan
kept for the day (`StudyPlan`); the queue it serves (`study_queue`); and the one definition of
readiness that the plan page, home and the team pages show. Plan-mode grades are
`apps.study.grading`'s.

Interview mode is on while a learner has an interview date, today or later, and has not turned
the mode off (`Profile.interview_mode`). Then the day's queue is the scheduler's choice: which
due cards, which new cards (past the daily new-card limit when the date needs them) and which
extra reviews, within the daily budget (`Profile.daily_budget_minutes`), until the predicted
recall on the day reaches the learner's target (`Profile.target_recall`; the rest of the budget
is theirs); SM-2's due cards it does not choose wait. SM-2 stays the scheduler of every other
learner, and of this one after the date or once the mode is off.

How a card studied in interview mode continues under SM-2: a card SM-2 makes due (or a new one)
is graded as SM-2's normal review, so its SM-2 schedule moves on as if SM-2 had shown it that
day; a card SM-2 has not made due is graded in plan mode (a ReviewLog of kind "plan"): its FSRS
memory learns from it and its SM-2 schedule stays exactly as it was, so the "not due -> 409"
rule stands. A due card that waited is still due in SM-2 when SM-2 resumes. Every review, of
either kind, updates the card's FSRS memory in its own transaction (`services.memory_review`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import date, datetime

from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.utils import timezone

from apps.accounts.models import Profile, profile_for
from apps.decks.models import Card, Deck, Section
from apps.interview import planner
from apps.interview.models import StudyPlan
from apps.interview.recall_sql import recall_sums
from apps.study import compiled_sql, queue, scheduler
from apps.study.memory import MemoryModel
from apps.study.models import MemoryFit, ReviewLog
from apps.study.queue_sql import learner_states, new_cards
from config.errors import NotFound

DEFAULT_BUDGET_MINUTES = 20
DEFAULT_SECONDS_PER_REVIEW = 12.0
MIN_TIMED_REVIEWS = 20
# A duration outside this range is a learner who walked away (or a clock glitch), not a review.
TIMED_RANGE_MS = (1_000, 300_000)
TIMED_LOOKBACK = 200  # the median of the learner's last this-many timed reviews
MORE_MINUTES = 10  # "what 10 more minutes a day would change"
LATER_DAYS = 7  # "what a date a week later would change"
# The unseen cards the plan looks at: as many as it could introduce (the budget times the days,
# the what-ifs' too), at most this many.
MAX_NEW_LOOKED_AT = 20_000
PLAN_VERSION = "2"  # a change of what a stored plan holds rebuilds every one


class NoPlan(NotFound):
    """No interview date is set (or it is past), or interview mode is off: no plan to show."""


def seconds_per_review(durations_ms) -> float:
    """The learner's median seconds per review from their own timed reviews, or a default of 12 s
    while fewer than 20 reviews were timed."""
    low, high = TIMED_RANGE_MS
    timed = [d for d in durations_ms if d is not None and low <= d <= high]
    if len(timed) < MIN_TIMED_REVIEWS:
        return DEFAULT_SECONDS_PER_REVIEW
    return statistics.median(timed) / 1000


def reviews_per_day(budget_minutes: int, seconds: float) -> int:
    """How many reviews fit a daily budget of `budget_minutes` at `seconds` per review."""
    return max(0, int(budget_minutes * 60 // max(seconds, 0.1)))


def interview_active(profile: Profile, today: date) -> bool:
    """Whether the interview scheduler makes this learner's queue today."""
    return (
        profile.interview_mode
        and profile.interview_date is not None
        and profile.interview_date >= today
    )


def _key(profile: Profile, today: date) -> str:
    budget = profile.daily_budget_minutes or DEFAULT_BUDGET_MINUTES
    return "|".join(
        [PLAN_VERSION, str(today), str(profile.interview_date), str(budget),
         str(profile.target_recall), profile.time_zone]
    )  # fmt: skip


@dataclass
class InterviewPlan:
    """A learner's plan for today as stored: today's cards and what the pages say of it."""

    interview_date: date
    today: date
    cards: list[tuple[int, str]]  # today's cards, in order, with their kind
    summary: dict
    built_at: datetime
    decks: list[int | None]  # today's cards' decks

    def choice(self) -> queue.Chosen:
        """Today's cards as the queue takes them."""
        return queue.Chosen(
            cards=[card_id for card_id, _ in self.cards], kinds=[kind for _, kind in self.cards],
            decks=self.decks, waiting=self.summary["waiting"],
        )  # fmt: skip

    @property
    def days_until(self) -> int:
        return (self.interview_date - self.today).days

    def __getattr__(self, name):
        """The summary's figures as attributes (`ip.per_day`, `ip.followed`), for templates."""
        try:
            return self.__dict__["summary"][name]
        except KeyError:
            raise AttributeError(name) from None


def interview_plan(user, now: datetime | None = None) -> InterviewPlan | None:
    """The learner's plan for their local today, None when interview mode is not on. One query
    while the stored plan holds (the profile is the user's, loaded once); built afresh (eight
    queries and the scheduler's work) at the day's first request, and when the date, budget,
    target or zone changed (the worker drops it when it fits new parameters)."""
    now = now or timezone.now()
    profile = profile_for(user)
    today = scheduler.local_date(now, profile.zone)
    if not interview_active(profile, today) or profile.interview_date is None:  # (active: set)
        return None
    key = _key(profile, today)
    row = StudyPlan.objects.filter(user=user).first()
    if row is None or row.key != key:
        row = _build(user, profile, now, today, key)
    return InterviewPlan(
        interview_date=profile.interview_date,
        today=today,
        cards=[(entry[0], entry[1]) for entry in row.today],
        decks=[entry[2] for entry in row.today],
        summary=row.summary,
        built_at=row.built_at,
    )


def today_choice(user, now: datetime | None = None) -> queue.Chosen | None:
    """The scheduler's choice for today, as the queue takes it; None when SM-2 schedules. One
    query while today's plan is stored (the profile is the user's), compiled once as the
    queue's are (apps.study.compiled_sql)."""
    now = now or timezone.now()
    profile = profile_for(user)
    today = scheduler.local_date(now, profile.zone)
    if not interview_active(profile, today):
        return None
    key = _key(profile, today)
    start = scheduler.day_start(now, profile.zone)
    found = next(iter(compiled_sql.rows(
        ("study-plan",),
        lambda user_id, deck, start, end: StudyPlan.objects.filter(user=user_id).values_list(
            "key", "today", "summary__waiting"
        ),
        user=user.pk, deck=None, start=start, end=start,
    )), None)  # fmt: skip
    if found is None or found[0] != key:
        built = _build(user, profile, now, today, key)
        found = (built.key, built.today, built.summary["waiting"])
    _, cards, waiting = found
    return queue.Chosen(
        cards=[entry[0] for entry in cards], kinds=[entry[1] for entry in cards],
        decks=[entry[2] for entry in cards], waiting=waiting,
    )  # fmt: skip


def study_queue(user, deck: Deck | None = None, **kwargs) -> queue.Queue:
    """The learner's queue: the interview scheduler's choice while interview mode is on, else
    SM-2's (`queue.queue` with the same arguments)."""
    return queue.queue(user, deck, chosen=today_choice(user, kwargs.get("now")), **kwargs)


def _model(user) -> tuple[MemoryModel, bool]:
    fit = MemoryFit.objects.filter(user=user).values_list("parameters", flat=True).first()
    return MemoryModel(fit or None), bool(fit)


def _decks(user, states: list) -> list[int]:
    """The decks the plan covers: those the learner studies and their own decks (made for the
    interview, studied or not), with every published deck while no card has been studied. One
    query."""
    studied = {deck_id for _, _, _, _, _, _, deck_id in states}
    covered = Q(owner=user) if studied else Q(owner=user) | Q(is_published=True)
    rows = Deck.objects.filter(covered)
    return sorted(studied | set(rows.values_list("pk", flat=True)))


def _inputs(user, profile: Profile, now: datetime, today: date):
    """What the scheduler needs, in six queries: the parameters, the states with their
    memories, the first unseen cards, how many unseen cards each section has, today's reviews
    and the learner's recent durations."""
    model, own = _model(user)
    zone = profile.zone
    states = list(
        learner_states(user, None).values_list(
            "card_id", "stability", "difficulty", "memory_day", "due_at", "card__section_id",
            "deck_id",
        )
    )  # fmt: skip
    decks = _decks(user, states)
    budget = profile.daily_budget_minutes or DEFAULT_BUDGET_MINUTES
    recent = ReviewLog.objects.filter(user=user, undone_at=None, duration_ms__isnull=False)
    durations = recent.order_by("-reviewed_at").values_list("duration_ms", flat=True)
    seconds = seconds_per_review(durations[:TIMED_LOOKBACK])
    per_day = min(planner.MAX_PER_DAY, reviews_per_day(budget, seconds))
    assert profile.interview_date is not None  # built for an active plan only
    days_until = (profile.interview_date - today).days
    room = (per_day + reviews_per_day(MORE_MINUTES, seconds)) * (max(1, days_until) + LATER_DAYS)
    unseen = new_cards(user, None).filter(deck_id__in=decks, retired_at=None)
    # in the order the queue takes new cards (their ids: the lesson's order, by the cursor)
    first = list(
        unseen.order_by("id").values_list("pk", "section_id", "deck_id", "note_slug", "kind")[
            : min(room, MAX_NEW_LOOKED_AT)
        ]
    )
    per_section = dict(
        unseen.order_by().values_list("section_id").annotate(n=Count("pk")).values_list(
            "section_id", "n"
        )
    )  # fmt: skip
    done_today = ReviewLog.objects.filter(
        user=user, undone_at=None, reviewed_at__gte=scheduler.day_start(now, zone)
    ).count()
    items = []
    for card_id, s, d, day, due_at, section_id, _deck in states:
        due_day = (scheduler.local_date(due_at, zone) - today).days
        if s is None or day is None:  # never reviewed (the memory's fields are set together)
            items.append(planner.Item(card_id, str(section_id), due_day=due_day))
        else:
            last = (day - today).days
            items.append(planner.Item(card_id, str(section_id), s, d, last, due_day))
    new = [planner.Item(card_id, str(section_id)) for card_id, section_id, *_ in first]
    notes = {
        card_id: (deck, note) for card_id, _, deck, note, kind in first if kind != Card.Kind.BASIC
    }
    decks_of = {card_id: deck for card_id, _, deck, *_ in first}
    decks_of |= {card_id: deck for card_id, *_, deck in states}
    # A card with a state but no review (suspended then unsuspended, requeued): unseen too.
    for item in items:
        if not item.seen:
            per_section[int(item.group)] = per_section.get(int(item.group), 0) + 1
    return {
        "model": model,
        "own": own,
        "items": [i for i in items if i.seen],
        "new": [i for i in items if not i.seen] + new,
        "unseen": {str(k): v for k, v in per_section.items()},
        "notes": notes,
        "decks": decks_of,
        "per_day": per_day,
        "seconds": seconds,
        "budget": budget,
        "done_today": done_today,
        "days_until": days_until,
    }


def _build(user, profile: Profile, now: datetime, today: date, key: str) -> StudyPlan:
    """Plan, review the plan, and store both (the same request a moment later, or another tab,
    builds the same plan: the last one stored wins)."""
    got = _inputs(user, profile, now, today)
    common = {
        "items": got["items"], "new": got["new"], "unseen": got["unseen"],
        "parameters": got["model"].parameters, "days_until": got["days_until"],
        "per_day": got["per_day"], "done_today": got["done_today"],
        "target": profile.target_recall / 100,
    }  # fmt: skip
    extra = reviews_per_day(MORE_MINUTES, got["seconds"])
    plan = planner.plan_build(**common, more_per_day=extra)
    review = planner.plan_review(**common, extra_per_day=extra, later_days=LATER_DAYS, plan=plan)
    choice = planner.study_today(plan)
    summary = {
        "per_day": plan.per_day,
        "seconds_per_review": got["seconds"],
        "budget_minutes": got["budget"],
        "budget_is_default": profile.daily_budget_minutes is None,
        "own_parameters": got["own"],
        "target": profile.target_recall / 100,
        "done_today": got["done_today"],
        "days": [[len(d.items), d.due, d.new] for d in plan.days],
        "now": plan.now.overall,
        "followed": plan.followed.overall,
        "sections_now": plan.now.groups,
        "sections_followed": plan.followed.groups,
        "total": len(got["items"]) + sum(got["unseen"].values()),
        "waiting": len(choice.waiting),
        "waiting_after": len(choice.waiting_after),
        "more_time": review.more_time,
        "more_minutes": MORE_MINUTES,
        "later_date": review.later_date,
        "later_days": LATER_DAYS,
    }
    # One new card of a reverse or cloze note a day, as SM-2's queue buries siblings: the others
    # of today's come another day (seen right after, they would give its answer away).
    introduced: set = set()
    today_cards = []
    for key_ in choice.items:
        note = got["notes"].get(key_) if choice.kinds[key_] == "new" else None
        if note is not None:
            if note in introduced:
                continue
            introduced.add(note)
        today_cards.append([key_, choice.kinds[key_], got["decks"].get(key_)])
    values = {"key": key, "today": today_cards, "summary": summary, "built_at": timezone.now()}
    try:
        with transaction.atomic():
            row, _ = StudyPlan.objects.update_or_create(user=user, defaults=values)
    except IntegrityError:  # another request stored its plan first: the same inputs
        row = StudyPlan.objects.get(user=user)
    return row


# --- readiness: the one definition the plan page, home and the team pages show ---------------


def recall_now(user, ip: InterviewPlan) -> float:
    """The learner's predicted recall on the day if they study nothing more, from their cards'
    memories as they are now (it moves with each review): the plan page's and home's figure.
    Two queries."""
    recalled = recall_sums({user.pk: ip.interview_date}, None)[user.pk]
    total = ip.summary.get("total") or 0
    return min(1.0, recalled / total) if total else 0.0


@dataclass(frozen=True)
class Readiness:
    interview_date: date | None
    predicted_recall: float | None  # on the day, if nothing more is studied; None without a date


def interview_readiness(user_ids, *, deck_id: int, card_count: int) -> dict[int, Readiness]:
    """Each user's interview date and predicted recall on the day if they study nothing more:
    the expected share of the deck's `card_count` cards recalled on the day (`recall_sums`,
    the plan page's own figure over one deck). What the team dashboard, CSV and API show. One
    query without a date among them, three with."""
    ids = list(user_ids)
    dates = dict(Profile.objects.filter(user_id__in=ids).values_list("user_id", "interview_date"))
    planning = {uid: day for uid, day in dates.items() if day is not None}
    sums = recall_sums(planning, deck_id) if planning else {}
    out = {}
    for uid in ids:
        if uid not in planning:
            out[uid] = Readiness(dates.get(uid), None)
            continue
        share = min(1.0, sums.get(uid, 0.0) / card_count) if card_count else 0.0
        out[uid] = Readiness(planning[uid], share)
    return out


@dataclass(frozen=True)
class TodayLine:
    """The plan in one line: what to do today, how ready on the day, and what would change it."""

    cards_today: int
    days_until: int
    interview_date: date
    now: float
    followed: float
    target: float
    more_minutes: int
    more_time: float
    later_days: int
    later_date: float
    waiting: int


def today_line(
    user, now: datetime | None = None, ip: InterviewPlan | None = None
) -> TodayLine | None:
    """What the plan page and home say in one line; None when interview mode is not on. Four
    queries while today's plan is stored: the plan (none when `ip` is given), what is left of
    today's cards, and the recall on the day as the cards' memories are now (two)."""
    ip = ip or interview_plan(user, now)
    if ip is None:
        return None
    left = queue.queue(user, None, chosen=ip.choice(), now=now, size=0)
    return TodayLine(
        cards_today=left.total,
        days_until=ip.days_until,
        interview_date=ip.interview_date,
        now=recall_now(user, ip),
        followed=ip.followed,
        target=ip.target,
        more_minutes=ip.more_minutes,
        more_time=ip.more_time,
        later_days=ip.later_days,
        later_date=ip.later_date,
        waiting=left.counts.get("waiting", 0),
    )


def next_step(user, now: datetime | None = None) -> dict | None:
    """The home page's pointer to the plan: {"date", "days"} while an interview date is today
    or later, else None. No query beyond the profile."""
    profile = profile_for(user)
    if profile.interview_date is None:
        return None
    today = scheduler.local_date(now or timezone.now(), profile.zone)
    days = (profile.interview_date - today).days
    return {"date": profile.interview_date, "days": days} if days >= 0 else None


def sections_of(keys) -> dict[str, tuple[str, str]]:
    """(title, slug) of each section by the plan's section keys (their ids as text). One
    query."""
    ids = [int(k) for k in keys if str(k).isdigit()]
    rows = Section.objects.filter(pk__in=ids).values_list("pk", "title", "slug")
    return {str(pk): (title, slug) for pk, title, slug in rows}
