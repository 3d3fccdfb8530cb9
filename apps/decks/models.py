from collections.abc import Sequence
from urllib.parse import quote

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from apps.decks.markdown import MEDIA_REF, card_faces, render_markdown, source_html

URL_SAFE = "!$&'()*+,;=~:@"  # what reverse() leaves unquoted in a path part (RFC 3986)


class Deck(models.Model):
    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    description_html = models.TextField(blank=True, editable=False)
    objectives = models.JSONField(default=list, blank=True, help_text="Learning objectives.")
    is_published = models.BooleanField(default=True, help_text="Learners see published decks.")
    # A learner's own deck: nobody else sees it (staff included), it is never published, and it
    # is studied in its owner's one queue beside the published decks (apps.decks.selectors).
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="own_decks",
        help_text="Set for a learner's private deck; empty for the shipped decks.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # Set by the home and study pages (apps.site.views) for their templates: today's due and
    # new counts ({"due": n, "new": n}; also set as `due`, which is not declared here: the
    # study selectors annotate a count of that name), and the deck's guided path.
    study: dict[str, int]
    path: object

    class Meta:
        ordering = ["title"]
        constraints = [
            models.CheckConstraint(
                condition=Q(owner__isnull=True) | Q(is_published=False),
                name="private_deck_never_published",
            )
        ]

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs):
        self.description_html = render_markdown(self.description)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("decks:deck", args=[self.slug])

    @property
    def is_private(self) -> bool:
        return self.owner_id is not None

    def media_urls(self, *, fresh: bool = False) -> dict[str, str]:
        """The deck's images by the name card text gives them (`![](<media:NAME>)`), each
        with the URL that serves it to whoever may see the deck. Kept on this instance (the
        cards of one import render with one query); `fresh` reads them again."""
        if fresh or not hasattr(self, "_media_urls"):
            prefix = reverse("decks:media", args=[self.slug, "-"])[:-1]
            names = self.media.values_list("name", flat=True) if self.pk else []
            self._media_urls = {name: prefix + quote(name, safe=URL_SAFE) for name in names}
        return self._media_urls


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
    type_answer = models.BooleanField(
        "type the answer",
        default=False,
        help_text="The learner types the answer before revealing it and sees the two compared.",
    )
    front_html = models.TextField(blank=True, editable=False)
    back_html = models.TextField(blank=True, editable=False)
    why_html = models.TextField(blank=True, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    all_objects = models.Manager()  # retired cards too: loaders, history, backups
    objects = ActiveCards()

    # Set by the section page (apps.site.views.section) for its template: the card's live demos.
    live_demos: Sequence[object]

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

    def render(self, media: dict[str, str] | None = None) -> None:
        """The stored HTML every page, the API and the exports show: the prompt, the answer
        followed by the source, and why it matters. Images the text names (`media:NAME`) point
        at the deck's media (`media`, or the deck's own looked up when the text names one);
        a name the deck has no image for shows as a visible placeholder."""
        self.note_slug = self.note_slug or self.slug
        if media is None and MEDIA_REF in f"{self.front}{self.back}{self.why}":
            media = self.deck.media_urls()
        self.front_html, answer = card_faces(
            self.kind, self.ordinal, self.front, self.back, media=media
        )
        self.back_html = answer + source_html(self.source)
        self.why_html = render_markdown(self.why, media=media)

    @property
    def anchor(self) -> str:
        return f"card-{self.slug}"


def media_key(media: "Media", filename: str) -> str:
    """Where an image is stored: by its deck and its content's SHA-256, never by the name a
    person or a package gave it (so no name reaches the storage's paths)."""
    return f"media/{media.deck_id}/{media.sha256[:2]}/{media.sha256}.{media.extension}"


class Media(models.Model):
    """An image of a deck, stored through Django's storage API (STORAGES["default"]: the
    filesystem by default, S3-compatible storage in production) and served only to whoever may
    see the deck (`decks:media`). Its bytes were checked and re-encoded by apps.decks.images."""

    EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}

    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="media")
    name = models.CharField(max_length=120, help_text="The name card text gives it.")
    file = models.FileField(upload_to=media_key, max_length=200)
    content_type = models.CharField(max_length=20)
    size = models.PositiveIntegerField()
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["deck", "name"], name="media_name_unique_in_deck")
        ]

    def __str__(self) -> str:
        return f"{self.deck_id}/{self.name}"

    @property
    def extension(self) -> str:
        return self.EXTENSIONS[self.content_type]
