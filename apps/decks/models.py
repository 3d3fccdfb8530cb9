from django.db import models
from django.urls import reverse

from apps.decks.markdown import render_markdown


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


class Card(models.Model):
    """A flashcard. Its slug is its identity: text edits keep every learner's schedule."""

    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="cards")
    section = models.ForeignKey(Section, on_delete=models.CASCADE, related_name="cards")
    slug = models.SlugField(max_length=100)
    order = models.PositiveIntegerField(default=0)
    front = models.TextField()
    back = models.TextField()
    why = models.TextField("why it matters", blank=True)
    tags = models.JSONField(default=list, blank=True)
    front_html = models.TextField(blank=True, editable=False)
    back_html = models.TextField(blank=True, editable=False)
    why_html = models.TextField(blank=True, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["deck", "section__order", "order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["deck", "slug"], name="card_slug_unique_in_deck")
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
        self.front_html = render_markdown(self.front)
        self.back_html = render_markdown(self.back)
        self.why_html = render_markdown(self.why)

    @property
    def anchor(self) -> str:
        return f"card-{self.slug}"
