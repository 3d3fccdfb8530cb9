"""Images of a deck: an upload from the card editor, or an .apkg's media brought by an import.
Each is checked and re-encoded (apps.decks.images) before it is stored through Django's storage
API under a name made of its deck and its content's hash; the name card text gives it is only a
label in the database. After a write, the deck's cards that name an image are rendered again, so
a placeholder becomes the picture (and a picture whose image went, a placeholder)."""

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q

from apps.authoring.services.own import quota_check
from apps.decks.images import CheckedImage, ImageRefused, image_check, media_name_check
from apps.decks.markdown import MEDIA_REF
from apps.decks.models import Card, Deck, Media, media_key
from config.errors import ServiceError


class MediaRefused(ServiceError):
    """An image was not stored; the message says why."""


def _checked(name: str, data: bytes) -> CheckedImage:
    return image_check(
        data, name=name, max_bytes=settings.MEDIA_MAX_BYTES, max_pixels=settings.MEDIA_MAX_PIXELS
    )


def _free_name(deck: Deck, name: str) -> str:
    """`name`, or `name-2.png`... when the deck holds another image of that name."""
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    taken = set(deck.media.filter(name__startswith=stem).values_list("name", flat=True))
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{stem}-{n}.{ext}" if ext else f"{stem}-{n}"
    return candidate


def _store(deck: Deck, name: str, image: CheckedImage, *, replace: bool) -> Media:
    existing = deck.media.filter(name=name).first()
    if existing is not None and existing.sha256 == image.sha256:
        return existing
    if existing is not None and replace:
        existing.delete()  # its file goes once the transaction commits (below)
        old = existing.file.name
        if old:
            transaction.on_commit(lambda: _file_drop(old))
    media = Media(deck=deck, name=name, content_type=image.content_type, size=len(image.data),
                  width=image.width, height=image.height, sha256=image.sha256)  # fmt: skip
    key = media_key(media, name)
    if default_storage.exists(key):  # the same picture in this deck under another name
        media.file.name = key
    else:
        media.file.save(name, ContentFile(image.data), save=False)
    media.save()
    return media


def _file_drop(key: str) -> None:
    """Delete a stored file no row names any more."""
    if not Media.objects.filter(file=key).exists():
        default_storage.delete(key)


def media_files_drop(keys) -> None:
    """After a deck was deleted: its images' files, which no row names any more."""
    for key in keys:
        _file_drop(key)


def cards_rerender(deck: Deck) -> int:
    """Render again the deck's cards whose text names an image (one query for the deck's media,
    one for the cards, one UPDATE per such card)."""
    media = deck.media_urls(fresh=True)
    names = Q(front__contains=MEDIA_REF) | Q(back__contains=MEDIA_REF) | Q(why__contains=MEDIA_REF)
    cards = Card.all_objects.filter(names, deck=deck)
    done = 0
    for card in cards.select_related("deck"):
        before = (card.front_html, card.back_html, card.why_html)
        card.render(media=media)
        if (card.front_html, card.back_html, card.why_html) != before:
            Card.all_objects.filter(pk=card.pk).update(
                front_html=card.front_html, back_html=card.back_html, why_html=card.why_html
            )
            done += 1
    return done


@transaction.atomic
def media_upload(*, deck: Deck, user, name: str, data: bytes) -> Media:
    """An image uploaded in the card editor: checked, counted against the owner's quota (for a
    private deck), stored, and given a name no other image of the deck has. Returns the row;
    its Markdown is `![](<media:NAME>)`."""
    try:
        name = media_name_check(name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1])
        image = _checked(name, data)
    except ImageRefused as exc:
        raise MediaRefused(str(exc), field="image") from None
    same = deck.media.filter(sha256=image.sha256).first()
    if same is not None:
        return same  # uploaded twice: the one image
    if deck.owner_id is not None:
        quota_check(user=user, size=len(image.data))
    media = _store(deck, _free_name(deck, name), image, replace=False)
    cards_rerender(deck)
    return media


def media_check_all(files: dict[str, bytes]) -> tuple[dict[str, CheckedImage], list[str]]:
    """An import's images checked: (name -> checked image) and what was refused, a sentence
    each, for the preview's notes."""
    kept, refused = {}, []
    for name, data in files.items():
        try:
            kept[media_name_check(name)] = _checked(name, data)
        except ImageRefused as exc:
            refused.append(f"image left out: {exc}")
    return kept, refused


def media_import(*, deck: Deck, files: dict[str, bytes]) -> tuple[int, list[str]]:
    """An import's images stored with the deck (a newer image of a name replaces the old one),
    inside the import's transaction: one query for what the deck has, a file written for each
    new picture, one INSERT for the rows. Returns (images stored, refusals)."""
    kept, refused = media_check_all(files)
    have = {m.name: m for m in deck.media.all()}
    new = {n: i for n, i in kept.items() if n not in have or have[n].sha256 != i.sha256}
    if deck.owner_id is not None and new:
        quota_check(user=deck.owner, size=sum(len(i.data) for i in new.values()))
    stored = {m.file.name for m in have.values()}
    replaced = [have[n] for n in new if n in have]
    if replaced:
        Media.objects.filter(pk__in=[m.pk for m in replaced]).delete()
        old = [m.file.name for m in replaced]
        transaction.on_commit(lambda: media_files_drop(old))
    rows = []
    for name, image in new.items():
        media = Media(deck=deck, name=name, content_type=image.content_type,
                      size=len(image.data), width=image.width, height=image.height,
                      sha256=image.sha256)  # fmt: skip
        key = media_key(media, name)
        media.file.name = (
            key if key in stored else default_storage.save(key, ContentFile(image.data))
        )
        stored.add(media.file.name)
        rows.append(media)
    Media.objects.bulk_create(rows, batch_size=500)
    return len(new), refused
