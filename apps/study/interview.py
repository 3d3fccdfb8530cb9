"""The interview plan, Django side: a learner's cards, SM-2 states and reviews loaded in a fixed
number of queries, handed to the pure memory model (`memory`) and planner (`plan`); plan-mode
reviews; and the learner's readiness for the team pages. Fitting a learner's own parameters and
scoring the model on held-out reviews is `apps.study.fitting`.

What the main queue uses: `planned_today` (the plan's cards "for your interview" today) and
`deferred_today` (SM-2 due cards the plan says can wait until after the interview).

Plan mode: a planned card that SM-2 makes due (or a new card) is graded as a normal review; one
that is not due yet is graded in plan mode, which records a ReviewLog of kind "plan" (the memory
model learns from it) and leaves the SM-2 schedule exactly as it was, like cram does, so the
"not due -> 409" rule of the queue and the API stands.
"""

from __future__ import annotations

import contextlib
import contextvars
import uuid
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.accounts.models import Profile, profile_for
from apps.decks.models import Card
from apps.study import plan, scheduler, services
from apps.study.memory import MemoryModel, Review
from apps.study.models import SCHEDULE_FIELDS, CardState, MemoryFit, ReviewLog
from config.errors import NotFound

DEFAULT_BUDGET_MINUTES = 20
NOON = plan.NOON
# What no plan page reads of a card (the plan page shows the stored HTML): not loaded.
CARD_UNREAD = ("front", "back", "why", "source", "tags", "updated_at", "section__summary",
               "section__summary_html")  # fmt: skip


class NoInterviewDate(services.StudyError):
    status = 409


class NoPlan(NotFound):
    """No interview date is set (or it is past): there is no plan to show."""


@dataclass
class InterviewPlan:
    interview_date: date
    today: date
    plan: plan.Plan
    seconds_per_review: float
    budget_minutes: int
    budget_is_default: bool
    own_parameters: bool
    cards: dict[int, Card]
    section_titles: dict[str, str]
    done_today: int
    done_per_day: dict[date, int]
    reviewed_today: set[int]
    states: dict[int, CardState]
    now: datetime
    zone: object

    def is_due(self, card_id: int) -> bool:
        """Whether SM-2 lets the card be graded now (a new card always)."""
        state = self.states.get(card_id)
        return state is None or scheduler.is_due(state.schedule, self.now, self.zone)

    def card_kind(self, card_id: int) -> str:
        """What a planned card is to the learner: "new" (never seen), "due" (SM-2 makes it due
        today) or "plan" (only the plan asks for it today)."""
        if card_id not in self.states:
            return "new"
        return "due" if self.is_due(card_id) else "plan"

    @property
    def new_today(self) -> list[int]:
        """Today's planned cards never seen, not yet reviewed today, in the plan's order."""
        return [
            cid
            for cid in self.plan.days[0].cards
            if cid not in self.states and cid not in self.reviewed_today
        ]

    @property
    def days_until(self) -> int:
        return (self.interview_date - self.today).days

    @property
    def today_cards(self) -> list[Card]:
        """Today's planned cards not yet reviewed today, SM-2's due ones first; a card of a
        reverse or cloze note reviewed today goes after the others, so a sibling shown right
        after its note's other card does not give the answer away (none is left out: the plan
        needs them all by the date)."""
        left = [
            self.cards[cid] for cid in self.plan.days[0].cards if cid not in self.reviewed_today
        ]
        studied = {
            (card.deck_id, card.note_slug)
            for cid in self.reviewed_today
            if (card := self.cards.get(cid)) is not None and card.kind != Card.Kind.BASIC
        }
        return sorted(left, key=lambda card: (card.deck_id, card.note_slug) in studied)  # stable

    def sections(self, readiness: plan.Readiness) -> list[tuple[str, float]]:
        return [(self.section_titles[key], r) for key, r in readiness.sections.items()]


def _model(user) -> tuple[MemoryModel, bool]:
    fit = MemoryFit.objects.filter(user=user).values_list("parameters", flat=True).first()
    return MemoryModel(fit or None), bool(fit)


# The plans built inside `one_plan()` blocks, by (user, local today); None outside them.
_ONE_PLAN: contextvars.ContextVar[dict | None] = contextvars.ContextVar("one_plan", default=None)


@contextlib.contextmanager
def one_plan():
    """Within this block (or a function it decorates) a learner's plan is built once: every
    `interview_plan`, `planned_today` and `deferred_today` of the same learner and local day
    share the first one. For what one request reads (the queue, then what the page says of the
    plan); nothing in the block may write what the plan is built from (a grade, a profile)."""
    token = _ONE_PLAN.set({})
    try:
        yield
    finally:
        _ONE_PLAN.reset(token)


def interview_plan(user, now: datetime | None = None) -> InterviewPlan | None:
    """The learner's plan from today to their interview date, or None without a date (or with a
    date already past). Five queries whatever the number of cards and reviews: the profile, the
    fitted parameters, the states, the cards and the reviews (inside `one_plan()`, none the
    second time)."""
    now = now or timezone.now()
    profile = profile_for(user)
    today = scheduler.local_date(now, profile.zone)
    built = _ONE_PLAN.get()
    if built is None:
        return _interview_plan(user, profile, now, today)
    key = (user.pk, today)
    if key not in built:
        built[key] = _interview_plan(user, profile, now, today)
    return built[key]


def _interview_plan(user, profile: Profile, now: datetime, today: date) -> InterviewPlan | None:
    zone = profile.zone
    if profile.interview_date is None or profile.interview_date < today:
        return None
    model, own = _model(user)
    # What the plan and its pages read of a state and a card, no more: a learner's thousand
    # cards' raw Markdown and timestamps were a good part of the plan's cost.
    states = {
        s.card_id: s
        for s in CardState.objects.filter(user=user).only(
            "card_id", "deck_id", "suspended", *SCHEDULE_FIELDS
        )
    }
    cards = (
        Card.objects.filter(deck__is_published=True).select_related("section").defer(*CARD_UNREAD)
    )
    decks = {s.deck_id for s in states.values()}
    if decks:
        cards = cards.filter(deck_id__in=decks)
    cards = {
        c.pk: c for c in cards.order_by("deck_id", "section__order", "order", "id")
        if not (c.pk in states and states[c.pk].suspended)
    }  # fmt: skip
    # The reviews as plain rows (a Review object per row cost more than the rest of the loop).
    reviews = ReviewLog.objects.filter(user=user, undone_at=None).values_list(
        "card_id", "grade", "reviewed_at", "duration_ms"
    )
    by_card: dict[int, list[tuple[int, int, datetime]]] = {}
    start = scheduler.day_start(now, zone)
    done_per_day: dict[date, int] = {}
    reviewed_today: set[int] = set()
    durations = []
    for card_id, grade, at, duration_ms in reviews:
        by_card.setdefault(card_id, []).append((card_id, grade, at))
        durations.append(duration_ms)
        day = scheduler.local_date(at, zone)
        done_per_day[day] = done_per_day.get(day, 0) + 1
        if at >= start:
            reviewed_today.add(card_id)
    seconds = plan.seconds_per_review(durations)
    budget = profile.daily_budget_minutes or DEFAULT_BUDGET_MINUTES
    titles = {}
    plan_cards = []
    for card in cards.values():
        key = str(card.section_id)
        titles[key] = card.section.title
        state = states.get(card.pk)
        plan_cards.append(
            plan.PlanCard(
                card_id=card.pk,
                section=key,
                memory=model.replayed(by_card.get(card.pk, ())),
                schedule=state.schedule if state is not None else None,
            )
        )
    done_today = done_per_day.get(today, 0)
    result = plan.plan_build(
        cards=plan_cards,
        model=model,
        today_start=start,
        days_until=(profile.interview_date - today).days,
        per_day=plan.reviews_per_day(budget, seconds),
        target=profile.target_recall / 100,
        done_today=done_today,
    )
    return InterviewPlan(
        interview_date=profile.interview_date,
        today=today,
        plan=result,
        seconds_per_review=seconds,
        budget_minutes=budget,
        budget_is_default=profile.daily_budget_minutes is None,
        own_parameters=own,
        cards=cards,
        section_titles=titles,
        done_today=done_today,
        done_per_day=done_per_day,
        reviewed_today=reviewed_today,
        states=states,
        now=now,
        zone=zone,
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


def planned_today(user, now: datetime | None = None) -> list[int]:
    """The card ids the plan adds for today "for your interview", not yet reviewed today, in
    the order to show them; [] without an interview date (or with one past). SM-2's due cards are
    not in it (the queue shows them already); a new card the plan introduces may also be among
    the queue's new cards, so the queue shows each card once. Five queries (`interview_plan`)."""
    ip = interview_plan(user, now)
    if ip is None:
        return []
    day = ip.plan.days[0]
    due = set(day.cards[: day.due])
    return [cid for cid in day.cards if cid not in due and cid not in ip.reviewed_today]


def deferred_today(user, now: datetime | None = None) -> set[int]:
    """SM-2's cards due today that the plan says can wait until after the interview: their
    predicted recall on the day is at or above the target already, so reviewing them now would
    spend the budget where it is not needed. They stay due in SM-2. set() without a date."""
    ip = interview_plan(user, now)
    return set() if ip is None else set(ip.plan.deferred)


def plan_review_record(
    *,
    user,
    card: Card,
    grade: int,
    client_id: uuid.UUID | None = None,
    duration_ms: int | None = None,
    now: datetime | None = None,
) -> tuple[ReviewLog, bool]:
    """Grade a planned card: a normal review when SM-2 lets it be graded now, else a plan-mode
    review that logs the grade and leaves the schedule as it was. (log, created) as
    `services.review_record`; the same client_id again replays the first log."""
    if profile_for(user).interview_date is None:
        raise NoInterviewDate("no interview date is set; set one in your profile to plan for it")
    grade = scheduler.check_grade(grade)
    try:
        return services.review_record(
            user=user, card=card, grade=grade, client_id=client_id, duration_ms=duration_ms, now=now
        )
    except services.CardNotDue:
        pass
    try:
        with transaction.atomic():
            services.learner_lock(user)  # as a grade: an undo in flight sees this log whole
            row = CardState.objects.select_for_update().get(user=user, card=card)
            if row.suspended:
                raise services.CardSuspended(
                    f"card {card.slug} is suspended; unsuspend it to review it"
                )
            schedule = row.schedule.as_json()
            log = ReviewLog.objects.create(
                user=user,
                card=card,
                grade=grade,
                kind=ReviewLog.Kind.PLAN,
                reviewed_at=now or timezone.now(),
                duration_ms=duration_ms,
                state_before=schedule,
                state_after=schedule,
                client_id=client_id,
            )
    except IntegrityError:
        replayed = services._replay(user, client_id, card, grade)
        if replayed is None:
            raise
        return replayed, False
    return log, True


@dataclass(frozen=True)
class Readiness:
    interview_date: date | None
    predicted_recall: float | None  # on the day, if nothing more is studied; None without a date


def interview_readiness(user_ids, *, deck_id: int, card_count: int) -> dict[int, Readiness]:
    """Each user's interview date and predicted recall on the day if they study nothing more:
    the predicted share of the deck's `card_count` cards recalled at noon of the interview day
    (cards never reviewed count 0). The one definition the team dashboard, CSV and API show.
    One query (the profiles), two when someone has a date (their reviews of the deck), whatever
    the number of users and reviews."""
    ids = list(user_ids)
    profiles = {
        uid: (day, zone)
        for uid, day, zone in Profile.objects.filter(user_id__in=ids).values_list(
            "user_id", "interview_date", "time_zone"
        )
    }
    out = {uid: Readiness(None, None) for uid in ids}
    planning = [uid for uid, (day, _) in profiles.items() if day is not None]
    if not planning:
        return out
    by_user: dict[int, dict[int, list[Review]]] = {}
    logs = ReviewLog.objects.filter(
        user_id__in=planning, undone_at=None, card__deck_id=deck_id
    ).values_list("user_id", "card_id", "grade", "reviewed_at")
    for uid, card_id, grade, at in logs:
        by_user.setdefault(uid, {}).setdefault(card_id, []).append(Review(card_id, grade, at))
    model = MemoryModel()
    for uid in planning:
        day, zone = profiles[uid]
        noon = datetime.combine(day, datetime.min.time(), tzinfo=ZoneInfo(zone)) + NOON
        recalled = sum(
            model.recall(model.memory(history), noon) for history in by_user.get(uid, {}).values()
        )
        out[uid] = Readiness(day, min(1.0, recalled / card_count) if card_count else 0.0)
    return out
