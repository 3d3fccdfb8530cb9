"""A deck's sections: create, edit, delete (only when empty) and reorder."""

from django.db import transaction
from django.db.models import Max

from apps.authoring.services.fields import order_swap, slug_check, text_clean
from apps.decks.models import Deck, Section
from config.errors import Conflict, ServiceError


@transaction.atomic
def section_create(*, deck: Deck, slug: str, title: str, summary: str = "") -> Section:
    slug = slug_check("slug", slug)
    if deck.sections.filter(slug=slug).exists():
        raise ServiceError(f"deck {deck.slug!r} already has a section {slug!r}", field="slug")
    title = (title or "").strip()
    if not title:
        raise ServiceError("title must not be empty", field="title")
    top = deck.sections.aggregate(n=Max("order"))["n"]
    return Section.objects.create(
        deck=deck, slug=slug, title=title, summary=text_clean(summary),
        order=0 if top is None else top + 1,
    )  # fmt: skip


@transaction.atomic
def section_update(*, section: Section, **fields) -> Section:
    if "slug" in fields:
        slug = slug_check("slug", fields["slug"])
        if section.deck.sections.filter(slug=slug).exclude(pk=section.pk).exists():
            raise ServiceError(f"deck already has a section {slug!r}", field="slug")
        section.slug = slug
    if "title" in fields:
        section.title = (fields["title"] or "").strip()
        if not section.title:
            raise ServiceError("title must not be empty", field="title")
    if "summary" in fields:
        section.summary = text_clean(fields["summary"])
    section.save()
    return section


@transaction.atomic
def section_delete(*, section: Section) -> None:
    count = section.cards.count()
    if count:
        raise Conflict(f"section {section.slug!r} still has {count} cards; move or delete them")
    section.delete()


@transaction.atomic
def section_move(*, section: Section, direction: str) -> bool:
    return order_swap(section.deck.sections.all(), section, direction, parent=section.deck)
