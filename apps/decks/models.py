from django.db import models
from django.urls import reverse

from apps.decks.markdown import card_faces, render_markdown, source_html


class Deck(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    description_html = models.TextField(blank=True, editable=False)
    objectives = models.JSONField(default=list, blank=True, help_text="Learning objectives.")
    is_published = models.BooleanField(default=True, help_text="Learners see published decks.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs):
        self.description_html = render_markdown(self.description)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("decks:deck", args=[self.slug])


class Section(models.Model):
    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="sections")
    slug = models.SlugField(max_length=80)
    order = models.PositiveIntegerField(default=0)
    title = models.CharField(max_length=200)
    summary = models.TextField(blank=True)
    summary_html = models.TextField(blank=True, editable=False)

    class Meta:
        ordering = ["deck", "order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["deck", "slug"], name="section_slug_unique_in_deck")
        ]

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs):
        self.summary_html = render_markdown(self.summary)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("decks:section", args=[self.deck.slug, self.slug])

    @property
    def number(self) -> int:
        return self.order + 1


class Concept(models.Model):
    """One of the lesson's questions with its explanation, read on the section page."""

    section = models.ForeignKey(Section, on_delete=models.CASCADE, related_name="concepts")
    order = models.PositiveIntegerField(default=0)
    question = models.CharField(max_length=300)
    explanation = models.TextField()
    explanation_html = models.TextField(blank=True, editable=False)

    class Meta:
        ordering = ["section", "order", "id"]

    def __str__(self) -> str:
        return self.question

    def save(self, *args, **kwargs):
        self.explanation_html = render_markdown(self.explanation)
        super().save(*args, **kwargs)


# For annotations over a deck's or section's cards (joins do not go through ActiveCards).
CARDS_IN_USE = models.Q(cards__retired_at=None)


class ActiveCards(models.Manager):
    """Cards in use: a card a deck file no longer has is retired (kept with its learners'
    history, out of decks, queues and quizzes) instead of deleted."""

    def get_queryset(self):
        return super().get_queryset().filter(retired_at=None)


class Card(models.Model):
    """One scheduled card. Its slug is its identity: text edits keep every learner's schedule.

    A note of kind reverse or cloze is several cards, one row each, sharing `note_slug` (the note's
    slug) and the note's text: `ordinal` says which (reverse: 1 front->back, 2 back->front;
    cloze: the deletion index). Every sibling stores the whole note, so any one shows itself.
    """

    class Kind(models.TextChoices):
        BASIC = "basic", "Basic"
        REVERSE = "reverse", "Basic and reversed"
        CLOZE = "cloze", "Cloze"

    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="cards")
    section = models.ForeignKey(Section, on_delete=models.CASCADE, related_name="cards")
    slug = models.SlugField(max_length=100)
    order = models.PositiveIntegerField(default=0)
    front = models.TextField()
    back = models.TextField()
    why = models.TextField("why it matters", blank=True)
    tags = models.JSONField(default=list, blank=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.BASIC)
    note_slug = models.SlugField(max_length=100, blank=True, help_text="The note's slug.")
    ordinal = models.PositiveSmallIntegerField(default=1)
    source = models.TextField(
        blank=True, help_text="Paper and section, or Ray docs page and version."
    )
    retired_at = models.DateTimeField(null=True, blank=True, editable=False)
    front_html = models.TextField(blank=True, editable=False)
    back_html = models.TextField(blank=True, editable=False)
    why_html = models.TextField(blank=True, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    all_objects = models.Manager()  # retired cards too: loaders, history, backups
    objects = ActiveCards()

    class Meta:
        ordering = ["deck", "section__order", "order", "id"]
        default_manager_name = "objects"
        base_manager_name = "all_objects"
        constraints = [
            models.UniqueConstraint(fields=["deck", "slug"], name="card_slug_unique_in_deck")
        ]
        indexes = [
            # A note's cards: the study queue looks up a new card's siblings by it (burying).
            models.Index(fields=["deck", "note_slug"], name="card_note_in_deck"),
            # A deck's or a section's cards in use, counted from the index alone (deck list,
            # guided path, deck page): 100,000 cards in a few ms, no table read.
            models.Index(
                fields=["deck", "section"],
                condition=models.Q(retired_at=None),
                name="card_in_use_by_section",
            ),  # fmt: skip
        ]

    def __str__(self) -> str:
        return self.slug

    def save(self, *args, **kwargs):
        self.render()
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("decks:section", args=[self.deck.slug, self.section.slug]) + (
            f"#{self.anchor}"
        )

    def render(self) -> None:
        """The stored HTML every page, the API and the exports show: the prompt, the answer
        followed by the source, and why it matters."""
        self.note_slug = self.note_slug or self.slug
        self.front_html, answer = card_faces(self.kind, self.ordinal, self.front, self.back)
        self.back_html = answer + source_html(self.source)
        self.why_html = render_markdown(self.why)

    @property
    def anchor(self) -> str:
        return f"card-{self.slug}"
