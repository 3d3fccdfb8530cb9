"""Quizzes: guided checkpoints on section pages and scored knowledge checks.

What a learner's browser or API client sees of a question are *public keys*: random opaque
tokens made once per choice / statement / pair and kept across re-seeds. They are unrelated to
database ids, to the author's order and to which option is right, and every default ordering
here is by key, so neither an id nor an order can give an answer away.
"""

import html
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags

from apps.decks.markdown import render_markdown
from apps.quizzes import drills, scoring

# Answers posted this long after the deadline still count: the browser submits at zero,
# and the request needs a moment to arrive.
SUBMIT_GRACE = timedelta(seconds=5)


def public_key() -> str:
    return secrets.token_urlsafe(6)


def new_seed() -> int:
    return secrets.randbelow(2**31)


def render_inline(text: str) -> str:
    """Markdown for a short option (a label, a list item): one paragraph loses its <p>."""
    rendered = render_markdown(text).strip()
    if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<p>") == 1:
        return rendered[3:-4]
    return rendered


def plain_text(rendered: str) -> str:
    """Rendered Markdown as the plain text an <option> can hold."""
    return html.unescape(strip_tags(rendered)).strip()


class Quiz(models.Model):
    class Kind(models.TextChoices):
        CHECKPOINT = "checkpoint", "Checkpoint"
        KNOWLEDGE_CHECK = "knowledge_check", "Knowledge check"

    deck = models.ForeignKey("decks.Deck", on_delete=models.CASCADE, related_name="quizzes")
    section = models.ForeignKey(
        "decks.Section",
        on_delete=models.CASCADE,
        related_name="quizzes",
        null=True,
        blank=True,
        help_text="Empty for a check across the whole deck.",
    )
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    pass_mark = models.DecimalField(
        max_digits=3, decimal_places=2, default=0.7, help_text="Share of points to pass, 0-1."
    )
    time_limit_seconds = models.PositiveIntegerField(null=True, blank=True)
    shuffle = models.BooleanField(
        default=True, help_text="Shuffle questions and options per attempt."
    )
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["deck", "order", "id"]
        verbose_name_plural = "quizzes"

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        if self.is_checkpoint and self.section is not None:
            section_url = reverse("decks:section", args=[self.deck.slug, self.section.slug])
            return f"{section_url}#quiz-{self.slug}"
        return reverse("quizzes:quiz", args=[self.slug])

    @property
    def is_checkpoint(self) -> bool:
        return self.kind == self.Kind.CHECKPOINT

    @property
    def time_limit(self) -> timedelta | None:
        return timedelta(seconds=self.time_limit_seconds) if self.time_limit_seconds else None

    @property
    def time_limit_minutes(self) -> int | None:
        return -(-self.time_limit_seconds // 60) if self.time_limit_seconds else None

    def scoring_questions(self, seed: int | None = None) -> list[scoring.Question]:
        """The answer key for scoring; uses prefetched choices/statements/pairs when present.
        `seed` is the attempt's: a sizing drill's right value depends on its drawn numbers."""
        return [q.scoring_question(seed) for q in self.questions.all()]

    @property
    def draws_numbers(self) -> bool:
        """Whether a question draws its numbers per attempt (a sizing drill): then the attempt,
        and its seed, must exist before the questions are shown (uses prefetched questions)."""
        return any(q.kind == Question.Kind.NUMERIC for q in self.questions.all())

    def option_seed(self, seed: int | None) -> int | None:
        """The seed that orders options: the attempt's when the quiz shuffles, else None (the
        fixed order of the options' random keys, which is just as blind to what is right)."""
        return seed if self.shuffle else None

    def ordered_questions(self, seed: int | None = None) -> list["Question"]:
        """Questions as a learner sees them: shuffled per attempt when the quiz says so."""
        questions = list(self.questions.all())
        if self.shuffle and seed is not None:
            questions = scoring.shuffled(questions, seed=seed, salt="questions")
        return questions


class Question(models.Model):
    class Kind(models.TextChoices):
        SINGLE = scoring.SINGLE, "Single choice"
        MULTI = scoring.MULTI, "Select all that apply"
        TRUE_FALSE = scoring.TRUE_FALSE, "True or false"
        MATCH = scoring.MATCH, "Matching"
        NUMERIC = scoring.NUMERIC, "Sizing drill"

    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="questions")
    slug = models.SlugField(max_length=80)
    key = models.CharField(max_length=16, unique=True, default=public_key, editable=False)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    prompt = models.TextField()
    prompt_html = models.TextField(blank=True, editable=False)
    explanation = models.TextField()
    explanation_html = models.TextField(blank=True, editable=False)
    points = models.PositiveSmallIntegerField(default=1)
    order = models.PositiveIntegerField(default=0)
    cards = models.ManyToManyField("decks.Card", related_name="quiz_questions", blank=True)
    sizing = models.JSONField(
        default=dict,
        blank=True,
        help_text="A sizing drill's numbers and formula, as in the quiz file: given (drawn "
        "ranges), derived, formula, tolerance, unit. Checked when the file is loaded.",
    )
    solution = models.TextField(
        blank=True,
        help_text="A sizing drill's worked solution (Markdown with {name} placeholders), shown "
        "after the attempt with the learner's numbers.",
    )
    evidence = models.JSONField(
        default=dict,
        blank=True,
        help_text="A debugging drill's scenario: the tool, its output and where it came from.",
    )

    class Meta:
        ordering = ["quiz", "order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["quiz", "slug"], name="question_slug_unique_in_quiz")
        ]

    def __str__(self) -> str:
        return f"{self.quiz.slug}/{self.slug}"

    def save(self, *args, **kwargs):
        self.prompt_html = render_markdown(self.prompt)
        self.explanation_html = render_markdown(self.explanation)
        super().save(*args, **kwargs)

    @property
    def is_drill(self) -> bool:
        """A sizing drill or a debugging drill (a choice question with tool output): practice
        that is scheduled like a card each time an attempt scores it."""
        return self.kind == scoring.NUMERIC or bool(self.evidence)

    def sizing_drill(self) -> drills.SizingDrill:
        """The checked drill (the loader refused a bad one; the cache saves re-parsing)."""
        cached = getattr(self, "_sizing_drill", None)
        if cached is None or cached[0] != self.sizing:
            cached = (self.sizing, drills.sizing_drill(**self.sizing))
            self._sizing_drill = cached
        return cached[1]

    def drawn(self, seed: int | None) -> drills.Draw:
        """This drill's numbers for the attempt with `seed` (None: a fixed draw, e.g. for a
        reader who has no attempt)."""
        return self.sizing_drill().draw(seed, self.key)

    def prompt_for(self, draw: drills.Draw | None) -> tuple[str, str]:
        """The prompt (Markdown, HTML) with the drawn numbers in it; the stored one otherwise."""
        if draw is None or self.kind != scoring.NUMERIC:
            return self.prompt, self.prompt_html
        text = drills.fill(self.prompt, draw.given)
        return text, render_markdown(text)

    def solution_for(self, numbers: dict) -> tuple[str, str]:
        """The worked solution (Markdown, HTML) with one attempt's numbers filled in."""
        text = drills.fill(self.solution, numbers)
        return text, render_markdown(text)

    def scoring_question(self, seed: int | None = None) -> scoring.Question:
        if self.kind == scoring.NUMERIC:
            draw = self.drawn(seed)
            return scoring.Question(
                id=self.key,
                kind=self.kind,
                key=draw.answer,
                points=self.points,
                tolerance=self.sizing_drill().tolerance,
                numbers=draw.numbers,
            )
        if self.kind in (scoring.SINGLE, scoring.MULTI):
            choices = list(self.choices.all())
            right = [c.key for c in choices if c.correct]
            # (An admin edit may leave a single question without a right choice: then nobody
            # can get it right, rather than the page failing.)
            key: scoring.Answer = (
                (right[0] if right else None) if self.kind == scoring.SINGLE else right
            )
            return scoring.Question(
                id=self.key,
                kind=self.kind,
                key=key,
                points=self.points,
                choice_ids=tuple(c.key for c in choices),
            )
        if self.kind == scoring.TRUE_FALSE:
            key = {s.key: s.answer for s in self.statements.all()}
        else:
            key = {p.left_key: p.right_key for p in self.pairs.all()}
        return scoring.Question(id=self.key, kind=self.kind, key=key, points=self.points)

    # What the learner sees, in an order that depends on the attempt's seed and the public
    # keys only. Without a seed (checkpoints, the API outside an attempt) the key order is
    # a fixed random order.

    def options(self, seed: int | None = None) -> list["Choice"]:
        return self._ordered(self.choices.all(), seed, "choices")

    def shown_statements(self, seed: int | None = None) -> list["Statement"]:
        return self._ordered(self.statements.all(), seed, "statements")

    def lefts(self, seed: int | None = None) -> list["MatchPair"]:
        return self._ordered(self.pairs.all(), seed, "left")

    def rights(self, seed: int | None = None) -> list["MatchPair"]:
        """The pairs in the order their right-hand sides are shown: unrelated to the left
        column (a different salt, or the right keys' own order)."""
        rights = sorted(self.pairs.all(), key=lambda pair: pair.right_key)
        if seed is None:
            return rights
        return scoring.shuffled(rights, seed=seed, salt=f"{self.key}/right")

    def _ordered(self, items, seed, what):
        items = sorted(items, key=lambda item: getattr(item, "key", None) or item.left_key)
        if seed is None:
            return items
        return scoring.shuffled(items, seed=seed, salt=f"{self.key}/{what}")


class Choice(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="choices")
    key = models.CharField(max_length=16, unique=True, default=public_key, editable=False)
    text = models.TextField()
    text_html = models.TextField(blank=True, editable=False)
    correct = models.BooleanField(default=False)
    order = models.PositiveIntegerField(default=0, help_text="The author's order, never shown.")

    class Meta:
        ordering = ["key"]

    def __str__(self) -> str:
        return self.text

    def save(self, *args, **kwargs):
        self.text_html = render_inline(self.text)
        super().save(*args, **kwargs)


class Statement(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="statements")
    key = models.CharField(max_length=16, unique=True, default=public_key, editable=False)
    text = models.TextField()
    text_html = models.TextField(blank=True, editable=False)
    answer = models.BooleanField()
    order = models.PositiveIntegerField(default=0, help_text="The author's order, never shown.")

    class Meta:
        ordering = ["key"]

    def __str__(self) -> str:
        return self.text

    def save(self, *args, **kwargs):
        self.text_html = render_inline(self.text)
        super().save(*args, **kwargs)


class MatchPair(models.Model):
    """One row of a matching question; the two sides get unrelated keys."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="pairs")
    left_key = models.CharField(max_length=16, unique=True, default=public_key, editable=False)
    right_key = models.CharField(max_length=16, unique=True, default=public_key, editable=False)
    left = models.TextField()
    right = models.TextField()
    left_html = models.TextField(blank=True, editable=False)
    right_html = models.TextField(blank=True, editable=False)
    order = models.PositiveIntegerField(default=0, help_text="The author's order, never shown.")

    class Meta:
        ordering = ["left_key"]

    def __str__(self) -> str:
        return f"{self.left} -> {self.right}"

    def save(self, *args, **kwargs):
        self.left_html = render_inline(self.left)
        self.right_html = render_inline(self.right)
        super().save(*args, **kwargs)

    @property
    def right_plain(self) -> str:
        return plain_text(self.right_html)


class AttemptQuerySet(models.QuerySet):
    def submitted(self):
        return self.filter(submitted_at__isnull=False)

    def open(self):
        return self.filter(submitted_at__isnull=True)


class Attempt(models.Model):
    """One sitting of a knowledge check. Open until submitted; scored once, kept for history.

    ``answers`` holds what the server has (autosaved while the attempt is open, then the
    submitted answers); ``results`` keeps each question's points and right answer as scored,
    and ``passed`` the verdict, so history survives later edits to the quiz.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quiz_attempts"
    )
    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="attempts")
    seed = models.PositiveIntegerField(default=new_seed)
    started_at = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField(null=True, blank=True)
    saved_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    timed_out = models.BooleanField(default=False)
    score = models.DecimalField(max_digits=7, decimal_places=2, null=True, blank=True)
    max_score = models.PositiveIntegerField(default=0)
    passed = models.BooleanField(
        default=False,
        help_text="Whether the exact score (not the rounded one) reached the pass mark, as "
        "it was when the attempt was scored.",
    )
    answers = models.JSONField(default=dict, blank=True)
    results = models.JSONField(default=list, blank=True)
    client_id = models.UUIDField(
        null=True,
        blank=True,
        help_text="The API client's id for the submit, so a retried submit is recorded once.",
    )

    objects = AttemptQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["user", "quiz", "submitted_at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "quiz"],
                condition=models.Q(submitted_at__isnull=True),
                name="one_open_attempt_per_user_and_quiz",
            ),
            models.UniqueConstraint(fields=["user", "client_id"], name="attempt_client_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} / {self.quiz.slug} #{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("quizzes:attempt", args=[self.pk])

    @property
    def is_open(self) -> bool:
        return self.submitted_at is None

    def accepts_answers(self, now=None) -> bool:
        """Whether answers arriving ``now`` may still count."""
        now = now or timezone.now()
        return self.is_open and (self.deadline is None or now <= self.deadline + SUBMIT_GRACE)

    def seconds_left(self, now=None) -> int | None:
        if self.deadline is None:
            return None
        return max(0, int((self.deadline - (now or timezone.now())).total_seconds()))

    @property
    def percent(self) -> int | None:
        if self.score is None or not self.max_score:
            return None
        return round(100 * self.score / self.max_score)
