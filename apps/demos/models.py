from django.conf import settings
from django.db import models
from django.urls import reverse

from apps.demos.ray_demos import DemoSpec, get_demo
from apps.demos.ray_demos.claims import YES_NO, number, quantity


class DemoRun(models.Model):
    """One run of a live demo: who asked, with which parameters, and how it went."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded", "Finished"  # it ran to a verdict (which may be inconclusive)
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
    waiting = models.CharField(
        max_length=200, blank=True, help_text="What the running demo waits for, if anything."
    )

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
    def details(self) -> list[tuple[str, str]]:
        """The demo's own details beside its figures, each as (name, value in words): never a
        raw dict or list on the page."""
        shown_apart = {"effect", "claim", "figures", "conditions", "stopped", "retried"}
        return [
            (key.replace("_", " "), _in_words(value))
            for key, value in (self.summary or {}).items()
            if key not in shown_apart
        ]

    @property
    def claim(self) -> dict | None:
        """The claim with this run's verdict, reason and parts (runs from before verdicts:
        None)."""
        claim = (self.summary or {}).get("claim")
        return claim if isinstance(claim, dict) else None

    @property
    def verdict_label(self) -> str:
        verdict = (self.claim or {}).get("verdict")
        return {"shown": "Shown", "not_shown": "Not shown", "inconclusive": "Inconclusive"}.get(
            verdict or "", ""
        )

    @property
    def result_text(self) -> str:
        """One line for tables of runs: the verdict's reason, else the effect, else the error."""
        claim = self.claim
        if claim and claim.get("reason"):
            return claim["reason"]
        return (self.summary or {}).get("effect") or self.error

    @property
    def conditions_text(self) -> str:
        """The machine during the run, in a sentence."""
        c = (self.summary or {}).get("conditions")
        if not isinstance(c, dict):
            return ""
        text = (
            f"1-minute load average before the run: {number(c.get('load_1m', 0))} on "
            f"{c.get('machine_cpus')} CPUs{' (busy)' if c.get('busy') else ''}; Ray had "
            f"{number(c.get('ray_cpus', 0))} CPUs"
        )
        free = c.get("ray_cpus_free")
        if free is not None and free < c.get("ray_cpus", 0):
            text += f", {number(free)} of them free when it started"
        if c.get("cold"):
            text += "; the first demo this worker process ran (cold)"
        return text + "."

    @property
    def figure_rows(self) -> list[dict]:
        """The measured figures, each trial and the median and range, in words with units;
        then each ratio of two medians the claim checks."""
        figures = (self.summary or {}).get("figures")
        if not isinstance(figures, dict):
            return []
        claim = self.claim or {}
        needs = {}
        spec = self.spec
        for check in spec.claim.checks if spec else ():
            key = f"{check.figure}/{check.over}" if check.over else check.figure
            unit = "x" if check.over else (figures.get(check.figure) or {}).get("unit", "")
            needs[key] = check.needs(unit)
        rows = []
        for key, f in figures.items():
            if not isinstance(f, dict):
                continue
            unit, trials = f.get("unit", ""), f.get("trials") or []
            if unit == YES_NO:
                yes = sum(1 for v in trials if v >= 0.5)
                rows.append({"key": key, "label": f.get("label") or key, "n": len(trials),
                             "trials": ", ".join(quantity(v, unit) for v in trials),
                             "median": f"yes in {yes} of {len(trials)}" if trials else "",
                             "range": "", "needs": needs.get(key, "")})  # fmt: skip
                continue
            rows.append({
                "key": key,
                "label": f.get("label") or key,
                "n": len(trials),
                "trials": ", ".join(quantity(v, unit) for v in trials),
                "median": quantity(f.get("median"), unit) if trials else "",
                "range": (f"{quantity(f.get('min'), unit)} to {quantity(f.get('max'), unit)}"
                          if len(trials) > 1 else ""),
                "needs": needs.get(key, ""),
            })  # fmt: skip
        for part in claim.get("parts") or []:
            if part.get("over") and part.get("value") is not None:
                a, b = figures.get(part["figure"], {}), figures.get(part["over"], {})
                rows.append({
                    "key": f"{part['figure']}/{part['over']}",
                    "label": f"{a.get('label', part['figure'])} / {b.get('label', part['over'])}"
                             ", ratio of the medians",
                    "n": len(a.get("trials") or []),
                    "trials": "",
                    "median": quantity(part["value"], "x"),
                    "range": "",
                    "needs": needs.get(f"{part['figure']}/{part['over']}", ""),
                })  # fmt: skip
        return rows

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


def _in_words(value) -> str:
    """A detail of a summary as a person reads it: lists and mappings spelled out."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return number(value)
    if isinstance(value, list | tuple):
        return ", ".join(_in_words(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{str(k).replace('_', ' ')}: {_in_words(v)}" for k, v in value.items())
    return str(value)
