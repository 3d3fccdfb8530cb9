"""Who may author which deck, and the revision history of every card and quiz question."""

import difflib
import re

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.html import escape


class DeckAuthor(models.Model):
    """A per-deck author grant for a user who is not staff (staff may author every deck)."""

    deck = models.ForeignKey("decks.Deck", on_delete=models.CASCADE, related_name="authors")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="deck_grants"
    )
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["deck", "user"], name="deck_author_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} authors {self.deck}"


class Revision(models.Model):
    """One saved version of a card or a quiz question: its full editable fields, as JSON.

    Revisions are append-only; restoring an old one writes a new revision. ``number`` counts
    1, 2, 3... per card or question so people can say "revision 4".
    """

    class Source(models.TextChoices):
        ORIGINAL = "original", "as it was before the first recorded edit"
        EDITOR = "editor", "author pages"
        API = "api", "API"
        IMPORT = "import", "import"
        RESTORE = "restore", "restore"
        SUGGESTION = "suggestion", "a learner's suggestion, accepted"

    card = models.ForeignKey(
        "decks.Card", on_delete=models.CASCADE, null=True, blank=True, related_name="revisions"
    )
    question = models.ForeignKey(
        "quizzes.Question",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="revisions",
    )
    number = models.PositiveIntegerField()
    data = models.JSONField()
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    note = models.CharField(max_length=200, blank=True)
    changes_answer = models.BooleanField(
        default=False, help_text="The edit changed what is right: learners review the card again."
    )
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.EDITOR)
    restored_from = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Not stored: how many learners the edit made due again (card_update says, for the message).
    requeued: int = 0

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.CheckConstraint(
                condition=Q(card__isnull=False, question__isnull=True)
                | Q(card__isnull=True, question__isnull=False),
                name="revision_of_card_or_question",
            ),
            models.UniqueConstraint(
                fields=["card", "number"], condition=Q(card__isnull=False), name="card_rev_number"
            ),
            models.UniqueConstraint(
                fields=["question", "number"],
                condition=Q(question__isnull=False),
                name="question_rev_number",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.target} revision {self.number}"

    @property
    def target(self):
        return self.card if self.card_id else self.question

    def changes(self, previous: "Revision | None") -> list[tuple[str, str]]:
        """What this revision changed against the one before it, field by field, as HTML."""
        return revision_changes(previous.data if previous else None, self.data)


def _words(text: str) -> list[str]:
    return re.split(r"(\s+)", text)


def text_diff_html(old: str, new: str) -> str:
    """A word-level diff of two texts as HTML, with <del> and <ins> around what changed."""
    a, b = _words(old), _words(new)
    parts: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            parts.append(escape("".join(a[i1:i2])))
            continue
        if i2 > i1:
            parts.append(f"<del>{escape(''.join(a[i1:i2]))}</del>")
        if j2 > j1:
            parts.append(f"<ins>{escape(''.join(b[j1:j2]))}</ins>")
    return "".join(parts)


def _as_text(value) -> str:
    if isinstance(value, list):
        return "\n".join(
            ", ".join(f"{k}: {v}" for k, v in item.items()) if isinstance(item, dict) else str(item)
            for item in value
        )
    return "" if value is None else str(value)


def revision_changes(old: dict | None, new: dict) -> list[tuple[str, str]]:
    """(field, diff HTML) for every field that differs between two revisions' data; for the
    first revision, its non-empty fields as they were."""
    if old is None:
        return [(name, escape(_as_text(value))) for name, value in new.items() if value]
    return [
        (name, text_diff_html(_as_text(old.get(name)), _as_text(value)))
        for name, value in new.items()
        if old.get(name) != value
    ]


class ImportJob(models.Model):
    """A deck file imported by the Celery worker (apps/authoring/tasks.py), so that no web
    request parses or writes a large file: the web stores the upload and answers at once, the
    worker claims the job, parses it, writes it in one transaction and records the counts.
    Progress while it runs lives in the cache (services.import_job_progress), outside that
    transaction, and so does the worker's heartbeat (the reaper fails a job whose worker died).
    At most one job per deck is queued or running (the constraint below); a dry run (a
    preview, which writes nothing) does not count."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="import_jobs"
    )
    # Known at once for CSV and Anki files (the form names the deck); for YAML and JSON the
    # worker fills it in from the file before it writes, claiming the deck.
    deck_slug = models.CharField(max_length=100, blank=True)
    filename = models.CharField(max_length=255)
    options = models.JSONField(default=dict)  # fmt, deck_title, section, publish
    data = models.BinaryField()
    dry_run = models.BooleanField(default=False)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.QUEUED)
    rows_total = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # Written every IMPORTS_HEARTBEAT_S by the worker running the job (outside its transaction);
    # a running job whose heartbeats stopped is failed by the reaper, freeing its deck.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["deck_slug"],
                condition=Q(status__in=["queued", "running"], dry_run=False) & ~Q(deck_slug=""),
                name="import_job_one_active_per_deck",
            ),
        ]

    def __str__(self) -> str:
        return f"import {self.pk} of {self.filename} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status not in self.ACTIVE


class EditSuggestion(models.Model):
    """A learner's proposed edit of a shipped card (filed from the review page): the note's text
    as they would have it and why. The deck's authors accept it (a revision of the card, through
    the same rules as any author's edit) or reject it; either way the learner is told on their
    next visit (`told_at`). One open suggestion per learner and card: filing again updates it."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"

    card = models.ForeignKey("decks.Card", on_delete=models.CASCADE, related_name="suggestions")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="edit_suggestions"
    )
    front = models.TextField()
    back = models.TextField(blank=True)
    why = models.TextField(blank=True)
    note = models.CharField("what is wrong", max_length=300, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reply = models.CharField(max_length=300, blank=True, help_text="The author's answer.")
    revision = models.ForeignKey(
        Revision, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    told_at = models.DateTimeField(null=True, blank=True, help_text="The learner saw the outcome.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "card"], condition=Q(status="open"), name="suggestion_one_open"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "card"], name="suggestion_open_by_card"),
            models.Index(
                fields=["user"],
                condition=Q(told_at=None) & ~Q(status="open"),
                name="suggestion_untold",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} suggests an edit of {self.card_id} ({self.status})"


class ClientWrite(models.Model):
    """A create sent through the API with a client_id (a learner's own deck or card): what it
    made, so the same request sent again, a retry after an answer that never arrived, returns
    it instead of making another."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    client_id = models.UUIDField()
    deck = models.ForeignKey("decks.Deck", on_delete=models.CASCADE, null=True, related_name="+")
    card = models.ForeignKey("decks.Card", on_delete=models.CASCADE, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "client_id"], name="client_write_once")
        ]

    def __str__(self) -> str:
        return f"{self.client_id} of user {self.user_id}"
