from django.conf import settings
from django.db import models

from apps.study import scheduler
from apps.study.models import _apply, _schedule_of
from apps.study.scheduler import CardSchedule


class PracticeState(models.Model):
    """One learner's SM-2 schedule for one practice item that is not a card: a code exercise or
    a drill, named by its owner app's kind and key (study sits below those apps and knows only the
    name). A learner without a row has never practised the item."""

    class Kind(models.TextChoices):
        EXERCISE = "exercise", "code exercise"
        DRILL = "drill", "sizing or debugging drill"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="practice_states"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    key = models.CharField(max_length=120, help_text="The item's slug or key in its own app.")
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

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "kind", "key"], name="practice_state_one_per_item"
            ),
        ]
        indexes = [models.Index(fields=["user", "kind", "due_at"], name="practice_state_due")]

    def __str__(self) -> str:
        return f"{self.user} / {self.kind} {self.key}: n={self.repetitions}"

    @property
    def schedule(self) -> CardSchedule:
        return _schedule_of(self)

    def apply(self, schedule: CardSchedule) -> None:
        """Copy a scheduler result onto this row (unsaved)."""
        _apply(self, schedule)


class PracticeLog(models.Model):
    """One graded outcome of one practice item, with the schedule before and after (as
    ReviewLog is for cards). `ref` is the owner app's record of the outcome (a submission's or
    an attempt's id), unique per item, so a retried result is recorded once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=PracticeState.Kind.choices)
    key = models.CharField(max_length=120)
    ref = models.CharField(max_length=64)
    grade = models.PositiveSmallIntegerField()
    reviewed_at = models.DateTimeField()
    state_before = models.JSONField(null=True, blank=True, help_text="None for a first practice.")
    state_after = models.JSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "key", "ref"], name="practice_log_ref_once"),
        ]
        indexes = [models.Index(fields=["user", "reviewed_at"], name="practice_log_user_time")]

    def __str__(self) -> str:
        return f"{self.user} {self.kind} {self.key} graded {self.grade}"
