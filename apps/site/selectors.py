"""Reads the site's pages compose from several apps: the stats page's figures (study's reviews
and card states, with the best knowledge-check scores from quizzes for each deck's readiness) and
the guided path on the home page (sections read, checkpoints answered, cards learned, knowledge
checks taken, and the one next step).

They live here, above study and quizzes, so that neither has to read the other's tables. Every
function issues a fixed number of queries whatever the learner's history (pinned by tests), and
"today" is the learner's local day (`profile.time_zone`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db.models import Count, F, FloatField, Max, OuterRef, Q, Subquery
from django.db.models.functions import Cast, TruncDate
from django.urls import reverse
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Deck, Section
from apps.decks.selectors import count_of, section_cards
from apps.quizzes.models import Attempt, Question, Quiz
from apps.study import progress, scheduler
from apps.study.models import CardState, ReviewLog, SectionProgress

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
    mastery = _mastery(user, now)
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


def _mastery(user, now: datetime) -> list[SectionMastery]:
    sections = (
        Section.objects.filter(deck__is_published=True)
        .select_related("deck")
        .annotate(n=count_of(section_cards()))
        .order_by("deck__title", "order")
    )
    counts = {
        row["card__section_id"]: row
        for row in CardState.objects.filter(user=user, card__retired_at=None)
        .values("card__section_id")
        .annotate(
            learnt=Count("id", filter=progress.learned_q(now=now)),
            mature=Count("id", filter=progress.mature_q()),
        )
    }
    return [
        SectionMastery(
            deck=s.deck.title,
            title=s.title,
            cards=s.n,
            learnt=counts[s.pk]["learnt"] if s.pk in counts else 0,
            mature=counts[s.pk]["mature"] if s.pk in counts else 0,
            deck_id=s.deck_id,
        )
        for s in sections
    ]


def _deck_readiness(user, mastery: list[SectionMastery], since: datetime) -> list[DeckReadiness]:
    """Learned, retention, knowledge check and readiness per deck the learner has started: the
    team dashboard's figures for one member (apps.study.progress). Two queries."""
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
    checkpoint_answered: int = 0  # answered at least once, right or wrong

    @property
    def checkpoint_done(self) -> bool:
        """Every checkpoint question was answered right at least once."""
        return self.checkpoint_questions > 0 and self.checkpoint_right >= self.checkpoint_questions

    @property
    def checkpoint_tried(self) -> bool:
        """Every checkpoint question was answered, right or wrong: the path moves on (what was
        wrong is taught by the section's cards and its knowledge check)."""
        return self.checkpoint_answered >= self.checkpoint_questions


@dataclass
class DeckPath:
    sections: list[SectionStep]
    cards: int
    learned: int
    knowledge_checks: list  # (quiz, best percent or None), the deck's checks


def learning_path(user, decks: list[Deck]) -> dict[int, DeckPath]:
    """Each deck's sections with what the learner did (read, checkpoint answered and answered
    right, cards learned, knowledge-check score). Five queries whatever the size."""
    deck_ids = [d.pk for d in decks]
    # Each section's cards in use, counted from the index one section at a time: a join to the
    # cards would read a 100,000-card deck's table.
    sections = list(
        Section.objects.filter(deck_id__in=deck_ids)
        .annotate(n=count_of(section_cards()))
        .order_by("deck_id", "order", "id")
    )
    learned = dict(
        CardState.objects.filter(
            progress.learned_q(now=timezone.now()),
            user=user,
            deck_id__in=deck_ids,
            card__retired_at=None,
        )
        .values("card__section_id")
        .annotate(n=Count("id"))
        .values_list("card__section_id", "n")
    )
    done_by_section = {
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
    for quiz in checks:
        best = None if quiz.best is None else progress.percent(float(quiz.best) / quiz.best_max)
        paths[quiz.deck_id].knowledge_checks.append((quiz, best))
    section_checks = {c.section_id: (c, b) for c, b in
                      ((c, b) for p in paths.values() for c, b in p.knowledge_checks)
                      if c.section_id}  # fmt: skip
    for section in sections:
        section.deck = by_deck[section.deck_id]
        done = done_by_section.get(section.pk)
        questions = keys.get(section.pk, set())
        answered = set(done.checkpoint_answered) | set(done.checkpoint_right) if done else set()
        check = section_checks.get(section.pk)
        step = SectionStep(
            section=section,
            cards=section.n,
            learned=learned.get(section.pk, 0),
            read=bool(done and done.read_at),
            checkpoint_questions=len(questions),
            checkpoint_right=len(questions & set(done.checkpoint_right)) if done else 0,
            checkpoint_answered=len(questions & answered),
            quiz_score=check[1] if check else None,
            quiz_slug=check[0].slug if check else None,
            checkpoint_slug=checkpoint_slug.get(section.pk),
        )
        path = paths[section.deck_id]
        path.sections.append(step)
        path.cards += step.cards
        path.learned += step.learned
    return paths


# --- the one next step (home and the study index) ----------------------------------------------


@dataclass(frozen=True)
class Action:
    """Something the learner can do now: what a button or a link says, and where it goes."""

    kind: str  # "due", "interview", "read", "checkpoint", "new", "quiz", "cram"
    label: str
    url: str


@dataclass
class NextActions:
    """The one primary action and the others worth a link, most pressing first."""

    primary: Action | None
    others: list[Action]


def interview_action(line) -> Action | None:
    """The interview's step for today from study's `interview.today_line()` (the one place the
    next step asks the interview scheduler): today's cards left, which the one review queue
    serves while interview mode is on; None with the mode off or with today's cards done. No
    query."""
    if line is None or not line.cards_today:
        return None
    days, left = line.days_until, line.cards_today
    when = "today" if days == 0 else f"in {days} day{'s' if days != 1 else ''}"
    label = f"Study {left} card{'s' if left != 1 else ''} for your interview ({when})"
    return Action("interview", label, reverse("study:review"))


def next_actions(
    decks: list[Deck],
    due: dict[int, dict],
    paths: dict[int, DeckPath],
    *,
    interview: Action | None,
    interview_mode: bool = False,
    has_plan: bool = False,
) -> NextActions:
    """The learner's next step, in this order: cards due today (SM-2 serves what is due), then
    the interview plan's cards, then the next section (read it, then answer its checkpoint),
    then new cards, then a knowledge check not passed yet; with nothing left, cram. `due` is
    due_counts()' {deck id: {"due": n, "new": n}}; `interview` is interview_action()'s, and with
    `has_plan` (an interview date ahead) and nothing planned left a link to the plan comes last.
    With `interview_mode` on the queue serves the interview scheduler's cards only, so SM-2's
    due and new counts make no step of their own. No query."""
    actions: list[Action] = []
    due_total = sum(due.get(d.pk, {}).get("due", 0) for d in decks)
    new_total = sum(due.get(d.pk, {}).get("new", 0) for d in decks)
    if interview_mode:
        due_total = new_total = 0
    if due_total:
        actions.append(
            Action("due", f"Review {_cards(due_total)} due today", _review_url(decks, due, "due"))
        )
    if interview is not None:
        actions.append(interview)
    section = _next_section(decks, paths)
    if section is not None:
        actions.append(section)
    if new_total:
        actions.append(
            Action(
                "new",
                f"Learn {new_total} new card{'s' if new_total != 1 else ''} today",
                _review_url(decks, due, "new"),
            )
        )
    quiz = _next_quiz(decks, paths)
    if quiz is not None:
        actions.append(quiz)
    if not actions and decks:
        deck = decks[0]
        label = f"Cram {deck.title} (nothing due until tomorrow)"
        actions.append(Action("cram", label, reverse("study:cram", args=[deck.slug])))
    if has_plan and interview is None:
        actions.append(Action("plan", "Your interview plan", reverse("study:plan")))
    return NextActions(actions[0] if actions else None, actions[1:])


def _cards(n: int) -> str:
    return f"{n} card{'s' if n != 1 else ''}"


def _review_url(decks: list[Deck], due: dict[int, dict], key: str) -> str:
    """The review page of the one deck with such cards, or of every deck when several have."""
    with_cards = [d for d in decks if due.get(d.pk, {}).get(key)]
    if len(with_cards) == 1:
        return reverse("study:review-deck", args=[with_cards[0].slug])
    return reverse("study:review")


def _next_section(decks: list[Deck], paths: dict[int, DeckPath]) -> Action | None:
    """The first section not read, or read with a checkpoint question never answered."""
    for deck in decks:
        path = paths.get(deck.pk)
        for step in path.sections if path else ():
            number = f"{step.section.number:02d}"
            if not step.read:
                label = f"Read section {number}: {step.section.title}"
                return Action("read", label, step.section.get_absolute_url())
            if step.checkpoint_questions and not step.checkpoint_tried:
                label = f"Answer the checkpoint of section {number}: {step.section.title}"
                url = f"{step.section.get_absolute_url()}#quiz-{step.checkpoint_slug}"
                return Action("checkpoint", label, url)
    return None


def _next_quiz(decks: list[Deck], paths: dict[int, DeckPath]) -> Action | None:
    """The first knowledge check, in lesson order, not passed yet."""
    for deck in decks:
        path = paths.get(deck.pk)
        for check, best in path.knowledge_checks if path else ():
            if best is None or best < 100 * float(check.pass_mark):
                label = f"Take the knowledge check: {check.title}"
                return Action("quiz", label, reverse("quizzes:quiz", args=[check.slug]))
    return None
