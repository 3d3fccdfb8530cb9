from django.conf import settings
from django.db import models
from django.urls import reverse

from apps.demos.ray_demos import DemoSpec, get_demo


class DemoRun(models.Model):
    """One run of a live demo: who asked, with which parameters, and how it went."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        CANCELLED = "cancelled"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    demo = models.CharField(max_length=64, db_index=True, help_text="Slug of the demo.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="demo_runs"
    )
    params = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.FloatField(default=0.0)
    summary = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    cancel_requested = models.BooleanField(default=False)
    last_seq = models.PositiveIntegerField(default=0, help_text="Seq of the newest point.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="host:pid that ran it.")
    cluster_nodes = models.PositiveIntegerField(null=True, blank=True)
    cluster_cpus = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["user", "status"], name="demorun_user_status"),
            models.Index(fields=["status", "heartbeat_at"], name="demorun_status_heartbeat"),
        ]

    def __str__(self) -> str:
        return f"{self.demo} #{self.pk} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("demos:run", args=[self.pk])

    @property
    def spec(self) -> DemoSpec | None:
        return get_demo(self.demo)

    @property
    def title(self) -> str:
        spec = self.spec
        return spec.title if spec else self.demo

    @property
    def soft_limit_s(self) -> int | None:
        """Celery's soft limit: a margin past the demo's own deadline, which normally stops it."""
        spec = self.spec
        return spec.time_limit_s + 15 if spec else None

    @property
    def hard_limit_s(self) -> int | None:
        """Celery kills the worker process here, when not even the soft limit stopped the run."""
        spec = self.spec
        return spec.time_limit_s + 45 if spec else None

    @property
    def is_finished(self) -> bool:
        return self.status not in self.ACTIVE

    @property
    def progress_percent(self) -> int:
        return round(100 * (1.0 if self.status == self.Status.SUCCEEDED else self.progress))

    @property
    def summary_rows(self) -> list[tuple[str, object]]:
        """The summary as (name, value) pairs for tables (templates cannot call dict.items
        when a summary happens to have a key named "items")."""
        shown_apart = {"effect", "claim", "figures", "conditions"}  # drawn as the verdict
        return [(k, v) for k, v in (self.summary or {}).items() if k not in shown_apart]

    @property
    def claim(self) -> dict | None:
        """The claim with this run's verdict and reason (runs from before verdicts: None)."""
        claim = (self.summary or {}).get("claim")
        return claim if isinstance(claim, dict) else None

    @property
    def figure_rows(self) -> list[dict]:
        """The measured figures, each with its label, unit, min/median/max and trial count."""
        figures = (self.summary or {}).get("figures")
        if not isinstance(figures, dict):
            return []
        return [
            {"key": key, "n": len(f.get("trials") or []), **f}
            for key, f in figures.items()
            if isinstance(f, dict)
        ]

    @property
    def param_rows(self) -> list[tuple[str, object]]:
        return list((self.params or {}).items())

    @property
    def duration_s(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class DemoPoint(models.Model):
    """One measured point of a run; pages poll for the points after the last seq they drew."""

    run = models.ForeignKey(DemoRun, on_delete=models.CASCADE, related_name="points")
    seq = models.PositiveIntegerField()
    data = models.JSONField()

    class Meta:
        ordering = ["run", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["run", "seq"], name="demopoint_seq_unique_in_run")
        ]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.seq}"


class DemoCardLink(models.Model):
    """A demo illustrates a card: the card shows "see it live", the demo page links the card."""

    demo = models.CharField(max_length=64, db_index=True)
    card = models.ForeignKey("decks.Card", on_delete=models.CASCADE, related_name="demo_links")
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["demo", "order", "id"]
        constraints = [models.UniqueConstraint(fields=["demo", "card"], name="democardlink_unique")]

    def __str__(self) -> str:
        return f"{self.demo} -> {self.card_id}"
