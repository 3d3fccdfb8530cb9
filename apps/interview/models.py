from django.conf import settings
from django.db import models


class StudyPlan(models.Model):
    """A learner's interview plan as the scheduler built it (apps.interview.plan), kept for
    their local day: today's choice of cards, which the queue serves, and what the plan page,
    home and the team pages say of it. Built at the first request of a day that needs it and
    again when `key` no longer matches (the date, budget, target, zone or mode changed, or the
    day did); the worker deletes it when it fits new parameters."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    key = models.CharField(max_length=200, help_text="What the plan was built from.")
    today = models.JSONField(default=list, help_text="Today's cards: [[card id, kind], ...].")
    summary = models.JSONField(default=dict)
    built_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"Interview plan of {self.user} ({self.key})"
