from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q

from apps.study import scheduler
from apps.study.memory import Memory
from apps.study.scheduler import CardSchedule


class CardState(models.Model):
    """One learner's SM-2 schedule for one card. A card without a row is new to that learner."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="card_states"
    )
    card = models.ForeignKey("decks.Card", on_delete=models.CASCADE, related_name="states")
    # Copied from card.deck (cards never change deck) so a deck's queue is one index range.
    deck = models.ForeignKey("decks.Deck", on_delete=models.CASCADE, related_name="+")
    repetitions = models.PositiveIntegerField(default=0)
    ease_factor = models.DecimalField(
        max_digits=6, decimal_places=2, default=scheduler.INITIAL_EASE
    )
    interval_days = models.PositiveIntegerField(default=0)
    due_at = models.DateTimeField()
    needs_redrill = models.BooleanField(default=False)
    redrill_anchor = models.DateTimeField(null=True, blank=True)
    lapses = models.PositiveIntegerField(default=0)
    last_grade = models.PositiveSmallIntegerField(null=True, blank=True)
    last_reviewed_at = models.DateTimeField(null=True, blank=True)
    introduced_at = models.DateTimeField(
        null=True, blank=True, help_text="First review; counts against the daily new-card limit."
    )
    suspended = models.BooleanField(default=False)
    # Set when a lapse brings `lapses` to the learner's leech threshold (Anki's "leech" tag);
    # cleared by an undo that takes the card back under it.
    leech = models.BooleanField(default=False)
    # The card's FSRS memory (apps.study.memory), changed by every review of it (SM-2's, its
    # re-drills and the interview's extra ones) in the same transaction as the review's log, and
    # put back by undo: what the interview scheduler plans with, never replayed from the log.
    # Empty while the card has never been reviewed.
    stability = models.FloatField(null=True, blank=True, help_text="FSRS stability, in days.")
    difficulty = models.FloatField(null=True, blank=True, help_text="FSRS difficulty, 1 to 10.")
    memory_day = models.DateField(
        null=True, blank=True, help_text="The learner's local day of the last review."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "card"], name="card_state_one_per_user_card"),
        ]
        indexes = [
            # The queue: a learner's active cards by due time, across decks or in one deck.
            models.Index(
                fields=["user", "due_at"], condition=Q(suspended=False), name="card_state_queue"
            ),
            models.Index(
                fields=["user", "deck", "due_at"],
                condition=Q(suspended=False),
                name="card_state_deck_queue",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} / {self.card_id}: n={self.repetitions} EF={self.ease_factor}"

    @property
    def schedule(self) -> CardSchedule:
        return _schedule_of(self)

    def apply(self, schedule: CardSchedule) -> None:
        """Copy a scheduler result onto this row (unsaved)."""
        _apply(self, schedule)

    @property
    def memory(self) -> Memory | None:
        if self.stability is None or self.difficulty is None or self.memory_day is None:
            return None
        return Memory(self.stability, self.difficulty, self.memory_day)

    def memory_apply(self, memory: Memory | None) -> None:
        """Copy a memory onto this row (unsaved); None empties it."""
        self.stability = memory.stability if memory else None
        self.difficulty = memory.difficulty if memory else None
        self.memory_day = memory.day if memory else None


MEMORY_FIELDS = ["stability", "difficulty", "memory_day"]
SCHEDULE_FIELDS = [
    "repetitions",
    "ease_factor",
    "interval_days",
    "due_at",
    "needs_redrill",
    "redrill_anchor",
    "lapses",
    "last_grade",
    "last_reviewed_at",
]
# Anki's line between young and mature cards.
MATURE_DAYS = 21


class ReviewLog(models.Model):
    """One grade given to one card, with the schedule before and after. Rows are edited only to
    mark them undone, and when a review synced from a device lands before them in time (or an
    undo takes out one before them): then each later row's state_before, state_after,
    memory_before and kind are rewritten to the replay of the card's reviews in time order
    (apps.study.sync), so every row still says what it did and undo restores the right state."""

    class Kind(models.TextChoices):
        NEW = "new", "first review of a new card"
        REVIEW = "review", "review of a due card"
        REDRILL = "redrill", "same-day re-drill"
        # A card the interview plan put in front of the learner before SM-2 made it due: logged
        # (the memory model learns from it) with its SM-2 schedule unchanged (state_after is
        # state_before).
        PLAN = "plan", "interview plan review of a card not due"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_logs"
    )
    card = models.ForeignKey("decks.Card", on_delete=models.CASCADE, related_name="review_logs")
    grade = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    reviewed_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    state_before = models.JSONField(null=True, blank=True, help_text="None for a new card.")
    state_after = models.JSONField()
    client_id = models.UUIDField(null=True, blank=True)
    undone_at = models.DateTimeField(null=True, blank=True)
    # The card's FSRS memory before this review, for undo: {} when it had none, null on a log
    # made before memories were stored (undo then works it out from the card's other reviews).
    memory_before = models.JSONField(null=True, blank=True)
    # Synced from a device that had not seen another review of this card (made on another device
    # meanwhile): both are kept and the card's state is their replay in time order. What the
    # response's "conflict" says, on the first answer and on a repeat of its client_id.
    conflict = models.BooleanField(default=False)
    # Not stored: set on the log an undo returns, the card's state after the undo (None: new
    # again); with later reviews of the card replayed, it is not this log's state_before.
    restored: dict | None = None

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "client_id"], name="review_log_client_once"),
        ]
        indexes = [models.Index(fields=["user", "reviewed_at"], name="review_log_user_time")]

    def __str__(self) -> str:
        return f"{self.user} graded card {self.card_id} {self.grade} at {self.reviewed_at:%Y-%m-%d}"


class NewCardCursor(models.Model):
    """Where a learner's new cards start in a deck: every card of the deck with an id up to
    `after_card_id` has a CardState for this user. It lets the queue find the next new cards
    with an index range instead of comparing the whole deck with the learner's states.

    Only ever an under-estimate: moved forward when a new card is introduced and no unseen card
    lies before it, moved back when an undo makes a card new again."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    deck = models.ForeignKey("decks.Deck", on_delete=models.CASCADE, related_name="+")
    after_card_id = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "deck"], name="new_card_cursor_one_per_deck")
        ]

    def __str__(self) -> str:
        return f"{self.user} / deck {self.deck_id}: new after card {self.after_card_id}"


class MemoryFit(models.Model):
    """A learner's own FSRS parameters, fitted by the worker from their reviews
    (apps.study.memory.fit_parameters); without a row the model uses FSRS's defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_fit"
    )
    parameters = models.JSONField(default=list, help_text="21 FSRS-6 parameters; [] = defaults.")
    reviews = models.PositiveIntegerField(
        default=0, help_text="Reviews the last fit (or attempt at one) was made from."
    )
    fitted_at = models.DateTimeField(null=True, blank=True)
    # The stats page's calibration scores a model that never saw the reviews it scores: these
    # parameters are fitted on the reviews before `holdout_split_at` only (memory.holdout_split),
    # and calibration scores the reviews from then on. The planner keeps the full `parameters`.
    holdout_parameters = models.JSONField(
        default=list,
        blank=True,
        help_text="Fitted on the reviews before holdout_split_at only; [] = too few to fit.",
    )
    holdout_split_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Where the held-out reviews begin; empty on a fit made before held-out fits.",
    )
    claimed_at = models.DateTimeField(null=True, blank=True, help_text="A worker is fitting.")
    # The stats page's calibration as the worker last computed it (apps.interview.fitting): a big
    # history is not replayed on every view. `calibration_reviews` empty: never computed.
    calibration = models.JSONField(
        null=True, blank=True, help_text="Bins and log losses; null = no review could be scored."
    )
    calibration_reviews = models.PositiveIntegerField(
        null=True, blank=True, help_text="Reviews the stored calibration was computed from."
    )
    calibrated_at = models.DateTimeField(null=True, blank=True)
    # db_default: code from before this field (a rolling deploy) can still create rows.
    calibration_key = models.CharField(
        max_length=64,
        blank=True,
        db_default="",
        help_text="What it scored: parameters, split, time zone.",
    )
    calibration_asked_at = models.DateTimeField(
        null=True, blank=True, help_text="A page asked the worker for a fresh calibration."
    )

    def __str__(self) -> str:
        return f"FSRS parameters of {self.user} ({self.reviews} reviews)"

    def calibration_stale(self, *, reviews: int, key: str, tolerance: float) -> bool:
        """Whether the stored calibration no longer stands for the learner's `reviews` scored
        as `key` says: none stored, other parameters, split or time zone, or a count of reviews
        that moved by `tolerance` (a share) or more since."""
        if self.calibration_reviews is None or self.calibration_key != key:
            return True
        stored = self.calibration_reviews
        return abs(reviews - stored) >= tolerance * max(1, stored)


class SectionProgress(models.Model):
    """How far a learner went through one section of a lesson: when they first opened it, which
    of its checkpoint questions they have answered (right or wrong: a checkpoint is done once
    each was tried) and which right at least once (checkpoints are practice and unscored; this
    only tells the home page where the learner is)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    section = models.ForeignKey("decks.Section", on_delete=models.CASCADE, related_name="+")
    read_at = models.DateTimeField(null=True, blank=True)
    checkpoint_right = models.JSONField(default=list, blank=True)  # question keys
    checkpoint_answered = models.JSONField(default=list, blank=True)  # question keys

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "section"], name="section_progress_one_per_section"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} / section {self.section_id}"


def _schedule_of(row) -> CardSchedule:
    """The SM-2 schedule a card's or a practice item's row holds (the same SCHEDULE_FIELDS)."""
    return CardSchedule(
        repetitions=row.repetitions,
        ease_factor=Decimal(row.ease_factor).quantize(scheduler.TWO_PLACES),
        interval_days=row.interval_days,
        due_at=row.due_at,
        needs_redrill=row.needs_redrill,
        redrill_anchor=row.redrill_anchor,
        lapses=row.lapses,
        last_grade=row.last_grade,
        last_reviewed_at=row.last_reviewed_at,
    )


def _apply(row, schedule: CardSchedule) -> None:
    for name in SCHEDULE_FIELDS:
        setattr(row, name, getattr(schedule, name))
