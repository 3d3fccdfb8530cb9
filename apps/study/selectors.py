"""Reads of the study loop shared by the pages and the API: due counts, cards, sessions, stats.

Every function here issues a fixed number of queries however many cards and reviews a learner has
(pinned by tests), and "today" is always the learner's local day (`profile.time_zone`). The queue
itself is `apps.study.queue`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from django.db.models import (
    Count,
    F,
    FloatField,
    Max,
    OuterRef,
    Q,
    Subquery,
    Sum,
)
from django.db.models.functions import Cast, TruncDate
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import CARDS_IN_USE, Card, Deck, Section
from apps.decks.selectors import visible_decks
from apps.study import progress, scheduler
from apps.study.models import CardState, ReviewLog


@dataclass
class Today:
    """The learner's local day and what they have already done in it."""

    now: datetime
    zone: ZoneInfo
    start: datetime
    end: datetime
    new_done: int
    reviews_done: int
    new_left: int
    reviews_left: int


def today(user, now: datetime | None = None) -> Today:
    """One query (plus the profile, once per user object)."""
    now = now or timezone.now()
    profile = profile_for(user)
    zone = profile.zone
    start, end = scheduler.day_start(now, zone), scheduler.day_end(now, zone)
    done = ReviewLog.objects.filter(user=user, reviewed_at__gte=start, undone_at=None).aggregate(
        new=Count("id", filter=Q(kind=ReviewLog.Kind.NEW)),
        reviews=Count("id", filter=Q(kind=ReviewLog.Kind.REVIEW)),
    )
    return Today(
        now=now,
        zone=zone,
        start=start,
        end=end,
        new_done=done["new"],
        reviews_done=done["reviews"],
        new_left=max(0, profile.new_cards_limit(scheduler.local_date(now, zone)) - done["new"]),
        reviews_left=max(0, profile.reviews_per_day - done["reviews"]),
    )


def due_counts(
    user, now: datetime | None = None, *, card_counts: dict[int, int] | None = None
) -> dict[int, dict[str, int]]:
    """{deck id: {"due": n, "new": n}} for the home page, each within today's limits.
    Pass `card_counts` ({deck id: cards}) when the caller has them, to save a query."""
    day = today(user, now)
    per_deck = (
        CardState.objects.filter(user=user, card__retired_at=None)
        .values("deck_id")
        .annotate(due=Count("id", filter=Q(suspended=False, due_at__lt=day.end)), seen=Count("id"))
    )
    known = {row["deck_id"]: row for row in per_deck}
    counts = {}
    if card_counts is None:
        card_counts = dict(Card.objects.values_list("deck_id").annotate(n=Count("id")))
    for deck_id, total in card_counts.items():
        row = known.get(deck_id, {"due": 0, "seen": 0})
        counts[deck_id] = {
            "due": min(row["due"], day.reviews_left),
            "new": min(max(0, total - row["seen"]), day.new_left),
        }
    return counts


def suspended_cards(user, limit: int = 200) -> list[CardState]:
    return list(
        CardState.objects.filter(user=user, suspended=True)
        .select_related("card", "card__deck")
        .order_by("card__deck__title", "card_id")[:limit]
    )


def visible_card(user, card_id: int | str | None) -> Card | None:
    """The card with its deck, if the user may see it (visible_decks); None for an id that is
    not a whole number in range. The one lookup of a card the learner names (a grade, a
    suspension, the API's card state)."""
    if isinstance(card_id, str):
        card_id = int(card_id) if card_id.isascii() and card_id.isdigit() else None
    if not isinstance(card_id, int) or not 0 < card_id < 2**63:
        return None
    cards = Card.objects.select_related("deck").filter(deck__in=visible_decks(user))
    return cards.filter(pk=card_id).first()


def visible_deck(user, slug: str) -> Deck | None:
    """The deck with this slug, if the user may see it (visible_decks)."""
    return visible_decks(user).filter(slug=slug).first()


MORE_NEW_CARDS = 10


@dataclass
class NextSteps:
    """What a learner can do when the queue is empty: learn more new cards today (`unseen` cards
    were never studied), cram, or take a knowledge check."""

    unseen: int
    more: int  # what the "learn N more new cards today" button offers
    knowledge_checks: list = field(default_factory=list)


def next_steps(user, deck: Deck | None) -> NextSteps:
    """Two queries (one without a deck)."""
    from apps.quizzes.selectors import deck_knowledge_checks

    cards = Card.objects.filter(deck=deck) if deck else Card.objects.filter(deck__is_published=True)
    unseen = cards.exclude(states__user=user).count()
    # The sections' own checks in lesson order first, the deck-wide final check last.
    checks = sorted(deck_knowledge_checks(deck), key=lambda q: q.section_id is None) if deck else []
    return NextSteps(unseen, min(unseen, MORE_NEW_CARDS), checks)


def card_state(user, card: Card) -> CardState | None:
    return CardState.objects.filter(user=user, card=card).first()


@dataclass
class SessionSummary:
    reviews: int
    again: int  # grades 0-2
    hard: int  # grade 3
    good: int  # grade 4
    easy: int  # grade 5
    seconds: int

    @property
    def passed_share(self) -> int:
        return round(100 * (self.reviews - self.again) / self.reviews) if self.reviews else 0


def session_summary(user, since: datetime) -> SessionSummary:
    """What the learner did since `since` (reviews not undone). One query."""
    row = ReviewLog.objects.filter(user=user, reviewed_at__gte=since, undone_at=None).aggregate(
        reviews=Count("id"),
        again=Count("id", filter=Q(grade__lt=3)),
        hard=Count("id", filter=Q(grade=3)),
        good=Count("id", filter=Q(grade=4)),
        easy=Count("id", filter=Q(grade=5)),
        ms=Sum("duration_ms"),
    )
    ms = row.pop("ms") or 0
    return SessionSummary(**row, seconds=ms // 1000)


# --- stats -----------------------------------------------------------------------------------


@dataclass
class SectionMastery:
    deck: str
    title: str
    cards: int
    learnt: int  # progress.learned_q
    mature: int  # progress.mature_q
    deck_id: int = 0

    @property
    def learnt_pct(self) -> int:
        return round(100 * self.learnt / self.cards) if self.cards else 0

    @property
    def mature_pct(self) -> int:
        return round(100 * self.mature / self.cards) if self.cards else 0


@dataclass
class DeckReadiness:
    """One learner's figures for one deck, as the team dashboard computes them for a member."""

    deck: str
    cards: int
    learned: int
    retention: float | None
    knowledge: float
    checks: int

    @property
    def readiness(self) -> float:
        return progress.readiness(
            learned=self.learned, cards=self.cards, knowledge=self.knowledge,
            retention=self.retention,
        )  # fmt: skip


@dataclass
class Stats:
    today: date
    per_day: dict[date, int]  # reviews per local day over the last year
    forecast: list[int]  # cards due on each of the next 30 local days (overdue counted today)
    retention: dict[str, tuple[int, int]]  # "young"/"mature": (passed, reviewed), last 30 days
    streak: int
    mastery: list[SectionMastery]
    total_reviews: int
    decks: list[DeckReadiness] = field(default_factory=list)


def stats(user, now: datetime | None = None) -> Stats:
    """Everything the stats page draws, in five queries whatever the history's size."""
    now = now or timezone.now()
    zone = profile_for(user).zone
    today_local = scheduler.local_date(now, zone)
    year_ago = scheduler.day_start(now, zone) - timedelta(days=365)
    logs = ReviewLog.objects.filter(user=user, undone_at=None)
    per_day = dict(
        logs.filter(reviewed_at__gte=year_ago)
        .annotate(day=TruncDate("reviewed_at", tzinfo=zone))
        .values_list("day")
        .annotate(n=Count("id"))
        .values_list("day", "n")
    )
    horizon = scheduler.day_end(now, zone) + timedelta(days=29)
    forecast = [0] * 30
    due = (
        CardState.objects.filter(user=user, suspended=False, due_at__lt=horizon)
        .annotate(day=TruncDate("due_at", tzinfo=zone))
        .values_list("day")
        .annotate(n=Count("id"))
        .values_list("day", "n")
    )
    for day, n in due:
        forecast[max(0, (day - today_local).days)] += n
    since = progress.retention_since(now, zone)
    month = logs.filter(progress.retention_logs_q(), reviewed_at__gte=since)
    mature = progress.mature_q("state_before__")
    passed = Q(grade__gte=3)
    r = month.aggregate(
        young=Count("id", filter=~mature),
        young_passed=Count("id", filter=~mature & passed),
        mature=Count("id", filter=mature),
        mature_passed=Count("id", filter=mature & passed),
        total=Count("id"),
    )
    retention = {
        "young": (r["young_passed"], r["young"]),
        "mature": (r["mature_passed"], r["mature"]),
        "all": (r["young_passed"] + r["mature_passed"], r["total"]),
    }
    mastery = _mastery(user)
    streak, day = 0, today_local
    if not per_day.get(day):
        day -= timedelta(days=1)  # today's reviews may still be ahead; the streak holds
    while per_day.get(day):
        streak, day = streak + 1, day - timedelta(days=1)
    return Stats(
        today=today_local,
        per_day=per_day,
        forecast=forecast,
        retention=retention,
        streak=streak,
        mastery=mastery,
        total_reviews=sum(per_day.values()),
        decks=_deck_readiness(user, mastery, since),
    )


def _mastery(user) -> list[SectionMastery]:
    sections = (
        Section.objects.filter(deck__is_published=True)
        .select_related("deck")
        .annotate(n=Count("cards", filter=CARDS_IN_USE))
        .order_by("deck__title", "order")
    )
    counts = {
        row["card__section_id"]: row
        for row in CardState.objects.filter(user=user, card__retired_at=None)
        .values("card__section_id")
        .annotate(
            learnt=Count("id", filter=progress.learned_q()),
            mature=Count("id", filter=progress.mature_q()),
        )
    }
    return [
        SectionMastery(
            deck=s.deck.title,
            title=s.title,
            cards=s.n,
            learnt=counts.get(s.pk, {}).get("learnt", 0),
            mature=counts.get(s.pk, {}).get("mature", 0),
            deck_id=s.deck_id,
        )
        for s in sections
    ]


def _deck_readiness(user, mastery: list[SectionMastery], since: datetime) -> list[DeckReadiness]:
    """Learned, retention, knowledge check and readiness per deck the learner has started: the
    team dashboard's figures for one member (apps.study.progress). Two queries."""
    from apps.quizzes.models import Quiz

    decks: dict[int, DeckReadiness] = {}
    for m in mastery:
        row = decks.setdefault(m.deck_id, DeckReadiness(m.deck, 0, 0, None, 0.0, 0))
        row.cards += m.cards
        row.learned += m.learnt
    reviews = (
        ReviewLog.objects.filter(progress.retention_logs_q(), user=user, reviewed_at__gte=since)
        .values("card__deck_id")
        .annotate(n=Count("id"), passed=Count("id", filter=Q(grade__gte=3)))
        .values_list("card__deck_id", "n", "passed")
    )
    for deck_id, n, passed in reviews:
        if deck_id in decks:
            decks[deck_id].retention = progress.retention(passed, n)
    checks = Quiz.objects.filter(deck_id__in=list(decks), kind=Quiz.Kind.KNOWLEDGE_CHECK).annotate(
        best=Max(
            Cast("attempts__score", FloatField()) / Cast("attempts__max_score", FloatField()),
            filter=Q(
                attempts__user=user,
                attempts__submitted_at__isnull=False,
                attempts__score__isnull=False,
                attempts__max_score__gt=0,
            ),
        )
    )
    best: dict[int, list[float]] = {}
    for check in checks:
        best.setdefault(check.deck_id, []).append(min(1.0, check.best or 0.0))
    for deck_id, shares in best.items():
        decks[deck_id].knowledge = sum(shares) / len(shares)
        decks[deck_id].checks = len(shares)
    return [d for d in decks.values() if d.learned or d.retention is not None or d.knowledge]


# --- the guided path on the home page ----------------------------------------------------------


@dataclass
class SectionStep:
    section: Section
    cards: int
    learned: int
    read: bool
    checkpoint_questions: int  # 0: the section has no checkpoint
    checkpoint_right: int
    quiz_score: int | None  # best knowledge-check percent for this section's checks, if taken
    quiz_slug: str | None = None
    checkpoint_slug: str | None = None

    @property
    def checkpoint_done(self) -> bool:
        return self.checkpoint_questions > 0 and self.checkpoint_right >= self.checkpoint_questions


@dataclass
class DeckPath:
    sections: list[SectionStep]
    cards: int
    learned: int
    knowledge_checks: list  # (quiz, best percent or None), the deck's checks
    next_label: str = ""
    next_url: str = ""


def learning_path(user, decks: list[Deck], due: dict[int, dict]) -> dict[int, DeckPath]:
    """Each deck's sections with what the learner did (read, checkpoint answered right, cards
    learned, knowledge-check score) and the one next step. Five queries whatever the size;
    `due` is due_counts()' {deck id: {"due": n, "new": n}}."""
    from apps.quizzes.models import Attempt, Question, Quiz
    from apps.study.models import SectionProgress
    from apps.study.progress import learned_q, percent

    deck_ids = [d.pk for d in decks]
    sections = list(
        Section.objects.filter(deck_id__in=deck_ids)
        .annotate(n=Count("cards"))
        .order_by("deck_id", "order", "id")
    )
    learned = dict(
        CardState.objects.filter(learned_q(), user=user, deck_id__in=deck_ids)
        .values("card__section_id")
        .annotate(n=Count("id"))
        .values_list("card__section_id", "n")
    )
    progress = {
        p.section_id: p for p in SectionProgress.objects.filter(user=user, section__in=sections)
    }
    keys: dict[int, set[str]] = {}
    checkpoint_slug: dict[int, str] = {}
    for section_id, key, slug in (
        Question.objects.filter(
            quiz__kind=Quiz.Kind.CHECKPOINT,
            quiz__deck_id__in=deck_ids,
            quiz__section__isnull=False,
        )
        .order_by("quiz__order", "quiz_id", "order", "id")
        .values_list("quiz__section_id", "key", "quiz__slug")
    ):
        keys.setdefault(section_id, set()).add(key)
        checkpoint_slug.setdefault(section_id, slug)
    checks = list(
        Quiz.objects.filter(deck_id__in=deck_ids, kind=Quiz.Kind.KNOWLEDGE_CHECK)
        .annotate(
            best=Subquery(
                Attempt.objects.filter(
                    user=user, quiz=OuterRef("pk"), submitted_at__isnull=False, max_score__gt=0
                )
                .order_by("-score")
                .values("score")[:1]
            ),
            best_max=Subquery(
                Attempt.objects.filter(
                    user=user, quiz=OuterRef("pk"), submitted_at__isnull=False, max_score__gt=0
                )
                .order_by("-score")
                .values("max_score")[:1]
            ),
        )
        .order_by(F("section__order").asc(nulls_first=True), "order", "id")
    )
    paths = {d.pk: DeckPath([], 0, 0, []) for d in decks}
    by_deck = {d.pk: d for d in decks}
    for check in checks:
        best = percent(float(check.best) / check.best_max) if check.best is not None else None
        paths[check.deck_id].knowledge_checks.append((check, best))
    section_checks = {c.section_id: (c, b) for c, b in
                      ((c, b) for p in paths.values() for c, b in p.knowledge_checks)
                      if c.section_id}  # fmt: skip
    for section in sections:
        section.deck = by_deck[section.deck_id]
        done = progress.get(section.pk)
        questions = keys.get(section.pk, set())
        check = section_checks.get(section.pk)
        step = SectionStep(
            section=section,
            cards=section.n,
            learned=learned.get(section.pk, 0),
            read=bool(done and done.read_at),
            checkpoint_questions=len(questions),
            checkpoint_right=len(questions & set(done.checkpoint_right)) if done else 0,
            quiz_score=check[1] if check else None,
            quiz_slug=check[0].slug if check else None,
            checkpoint_slug=checkpoint_slug.get(section.pk),
        )
        path = paths[section.deck_id]
        path.sections.append(step)
        path.cards += step.cards
        path.learned += step.learned
    for deck in decks:
        _next_step(deck, paths[deck.pk], due.get(deck.pk, {"due": 0, "new": 0}))
    return paths


def _next_step(deck: Deck, path: DeckPath, due: dict) -> None:
    """Read the first unread section, then answer its checkpoint; with every section read, drill
    what is due, then take the first knowledge check not passed yet."""
    from django.urls import reverse

    for step in path.sections:
        number = f"{step.section.number:02d}"
        if not step.read:
            path.next_label = f"Read section {number}: {step.section.title}"
            path.next_url = step.section.get_absolute_url()
            return
        if step.checkpoint_questions and not step.checkpoint_done:
            path.next_label = f"Answer the checkpoint of section {number}: {step.section.title}"
            path.next_url = f"{step.section.get_absolute_url()}#quiz-{step.checkpoint_slug}"
            return
    if due["due"] or due["new"]:
        n = due["due"] + due["new"]
        path.next_label = f"Review {n} card{'s' if n != 1 else ''} due today"
        path.next_url = reverse("study:review-deck", args=[deck.slug])
        return
    for check, best in path.knowledge_checks:
        if best is None or best < 100 * float(check.pass_mark):
            path.next_label = f"Take the knowledge check: {check.title}"
            path.next_url = reverse("quizzes:quiz", args=[check.slug])
            return
    path.next_label = f"Cram {deck.title} (nothing due until tomorrow)"
    path.next_url = reverse("study:cram", args=[deck.slug])
