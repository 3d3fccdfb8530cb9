"""Code exercises: an exercise with its revisions, the learners' submissions, and the sandbox
workers' heartbeats.

An exercise's content lives in its revisions, append-only like a card's history: a revision is
checked in the sandbox (the reference passes every test, each wrong solution fails one) before it
becomes the one learners see (`Exercise.current`). A submission names the revision it ran, so a
result stays readable after the tests change.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from apps.decks.markdown import render_markdown, source_html


class Exercise(models.Model):
    """A code exercise of a deck: what stays when its text changes (slug, deck, place, cards).
    Learners see it once a revision has passed its check (`current`)."""

    deck = models.ForeignKey("decks.Deck", on_delete=models.CASCADE, related_name="exercises")
    section = models.ForeignKey(
        "decks.Section",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="exercises",
    )
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    order = models.PositiveIntegerField(default=0)
    current = models.ForeignKey(
        "ExerciseRevision",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The checked revision learners see; empty until one passes its check.",
    )
    cards = models.ManyToManyField("decks.Card", related_name="exercises", blank=True)
    retired_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # Set for templates: the learner's practice state, when due (exercises.views.index, an
    # ExerciseDue), and the newest revision (selectors.deck_exercises).
    due: object
    latest: ExerciseRevision | None

    class Meta:
        ordering = ["deck", "order", "id"]

    def __str__(self) -> str:
        return self.slug

    def get_absolute_url(self) -> str:
        return reverse("exercises:exercise", args=[self.slug])

    @property
    def is_live(self) -> bool:
        return self.current_id is not None and self.retired_at is None

    @property
    def live_revision(self) -> ExerciseRevision:
        """The checked revision learners see, on an exercise from selectors.live_exercises
        (which all have one)."""
        if self.current is None:
            raise LookupError(f"exercise {self.slug!r} has no checked revision")
        return self.current


class ExerciseRevision(models.Model):
    """One version of an exercise's content, checked in the sandbox before learners see it."""

    class Status(models.TextChoices):
        CHECKING = "checking", "being checked"
        ACCEPTED = "accepted", "accepted"
        REFUSED = "refused", "refused"
        UNCHECKED = "unchecked", "not checked (no sandbox)"

    class Source(models.TextChoices):
        SEED = "seed", "shipped content (checked by the test suite)"
        EDITOR = "editor", "author pages"
        API = "api", "API"
        IMPORT = "import", "import"
        RESTORE = "restore", "restore"

    exercise = models.ForeignKey(Exercise, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=200)
    prompt = models.TextField(help_text="Markdown.")
    prompt_html = models.TextField(blank=True, editable=False)
    starter = models.TextField(blank=True, help_text="The code the editor starts with.")
    examples = models.TextField(blank=True, help_text="Visible tests, run by Run and Submit.")
    tests = models.TextField(help_text="Hidden tests, run by Submit; never sent to learners.")
    reference = models.TextField(help_text="A solution that passes every test (authors only).")
    wrong = models.JSONField(
        default=list, help_text='Plausible wrong solutions: [{"code": ..., "mistake": ...}].'
    )
    card_slugs = models.JSONField(default=list, help_text="The cards it practises (slugs).")
    source = models.TextField(help_text="Where the exercise's facts come from.")
    source_html = models.TextField(blank=True, editable=False)
    section_slug = models.SlugField(max_length=80, blank=True)
    runtime = models.CharField(
        max_length=10, choices=[("numpy", "Python and numpy"), ("ray", "a local Ray (and RLlib)")],
        default="numpy", help_text="What a run needs: Ray's runs get larger limits.",
    )  # fmt: skip
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.CHECKING)
    check_report = models.JSONField(default=dict, blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)
    check_claimed_at = models.DateTimeField(null=True, blank=True)
    made_by = models.CharField(max_length=10, choices=Source.choices, default=Source.EDITOR)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    note = models.CharField(max_length=200, blank=True)
    batch = models.UUIDField(null=True, blank=True, help_text="The import that made it.")
    created_at = models.DateTimeField(auto_now_add=True)

    CONTENT_FIELDS = (
        "title", "prompt", "starter", "examples", "tests", "reference", "wrong", "card_slugs",
        "source", "section_slug", "runtime",
    )  # fmt: skip

    class Meta:
        ordering = ["exercise", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["exercise", "number"], name="exercise_rev_number"),
        ]
        indexes = [models.Index(fields=["batch"], name="exercise_rev_batch")]

    def __str__(self) -> str:
        return f"{self.exercise_id} revision {self.number} ({self.status})"

    def save(self, *args, **kwargs):
        self.prompt_html = render_markdown(self.prompt)
        self.source_html = source_html(self.source)
        super().save(*args, **kwargs)

    def content(self) -> dict:
        return {name: getattr(self, name) for name in self.CONTENT_FIELDS}


class SubmissionQuerySet(models.QuerySet):
    def active(self):
        return self.filter(status__in=Submission.ACTIVE)


class Submission(models.Model):
    """One Run (the visible examples) or Submit (every test) of a learner's code."""

    class Mode(models.TextChoices):
        RUN = "run", "Run (examples)"
        SUBMIT = "submit", "Submit (all tests)"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        PASSED = "passed"
        FAILED = "failed"
        ERROR = "error"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="exercise_submissions"
    )
    exercise = models.ForeignKey(Exercise, on_delete=models.CASCADE, related_name="submissions")
    revision = models.ForeignKey(ExerciseRevision, on_delete=models.PROTECT, related_name="+")
    mode = models.CharField(max_length=6, choices=Mode.choices, default=Mode.SUBMIT)
    code = models.TextField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    tests = models.JSONField(default=list, blank=True)
    problem = models.TextField(blank=True, help_text="What stopped the run, as a sentence.")
    syntax_error = models.JSONField(null=True, blank=True)
    stdout = models.TextField(blank=True)
    stderr = models.TextField(blank=True)
    time_ms = models.PositiveIntegerField(null=True, blank=True)
    grade = models.PositiveSmallIntegerField(null=True, blank=True, help_text="SM-2 grade given.")
    client_id = models.UUIDField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Times a worker claimed it.")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True, help_text="Last handed to the broker.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # One run in flight per learner, across exercises: a learner's queued runs can never
            # fill the worker pool ahead of everyone else's.
            models.UniqueConstraint(
                fields=["user"],
                condition=Q(status__in=["queued", "running"]),
                name="submission_one_active_per_learner",
            ),
            models.UniqueConstraint(fields=["user", "client_id"], name="submission_client_once"),
        ]
        indexes = [
            models.Index(fields=["user", "exercise", "created_at"], name="submission_user_ex"),
            models.Index(fields=["status", "sent_at"], name="submission_status_sent"),
        ]

    def __str__(self) -> str:
        return f"{self.exercise_id} #{self.pk} {self.mode} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("exercises:submission", args=[self.pk])

    @property
    def is_finished(self) -> bool:
        return self.status not in self.ACTIVE

    @property
    def passed_count(self) -> int:
        return sum(1 for t in self.tests if t.get("passed"))


class SandboxWorker(models.Model):
    """A worker serving the `exercises` queue, as it last said: whether its sandbox starts, and
    why not. The exercise page reads it to say why runs wait or are refused."""

    name = models.CharField(max_length=200, unique=True)
    sandbox_ok = models.BooleanField(default=False)
    reason = models.TextField(blank=True)
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} ({'ok' if self.sandbox_ok else 'no sandbox'})"
