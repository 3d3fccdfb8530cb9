"""Decks and who may author them."""

from django.contrib.auth import get_user_model
from django.db import transaction

from apps.authoring.models import DeckAuthor
from apps.authoring.selectors import deck_progress
from apps.authoring.services.fields import slug_check, text_clean
from apps.authoring.services.media import media_files_drop
from apps.decks.models import Card, Deck
from apps.study.services import deck_learners_lock
from config.errors import Conflict, Forbidden, ServiceError


def _objectives(value) -> list[str]:
    if isinstance(value, str):
        value = value.splitlines()
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ServiceError("objectives must be a list of sentences", field="objectives")
    return [v.strip() for v in value if v.strip()]


@transaction.atomic
def deck_create(
    *, user, slug: str, title: str, description: str = "", objectives=(), is_published=False
) -> Deck:
    """A new deck, a draft unless `is_published`; only staff create decks."""
    if not user.is_staff:
        raise Forbidden("Only staff may create decks.")
    slug = slug_check("slug", slug)
    if Deck.objects.filter(slug=slug).exists():
        raise ServiceError(f"a deck {slug!r} already exists", field="slug")
    title = (title or "").strip()
    if not title:
        raise ServiceError("title must not be empty", field="title")
    return Deck.objects.create(
        slug=slug, title=title, description=text_clean(description),
        objectives=_objectives(objectives), is_published=bool(is_published),
    )  # fmt: skip


@transaction.atomic
def deck_update(*, deck: Deck, **fields) -> Deck:
    if "title" in fields:
        deck.title = (fields["title"] or "").strip()
        if not deck.title:
            raise ServiceError("title must not be empty", field="title")
    if "description" in fields:
        deck.description = text_clean(fields["description"])
    if "objectives" in fields:
        deck.objectives = _objectives(fields["objectives"])
    if "is_published" in fields:
        if fields["is_published"] and deck.owner_id is not None:
            raise ServiceError(
                "a deck of your own is private: it is never published", field="is_published"
            )
        deck.is_published = bool(fields["is_published"])
    deck.save()
    return deck


def deck_author_grant(*, deck: Deck, by, username: str) -> DeckAuthor:
    """Let `username` author `deck`; only staff hand out grants."""
    if not by.is_staff:
        raise Forbidden("Only staff may choose a deck's authors.")
    user = get_user_model().objects.filter(username=(username or "").strip()).first()
    if user is None:
        raise ServiceError(f"no user is called {username!r}", field="username")
    grant, _ = DeckAuthor.objects.get_or_create(deck=deck, user=user)
    return grant


def deck_author_revoke(*, deck: Deck, by, user_id: int) -> None:
    if not by.is_staff:
        raise Forbidden("Only staff may choose a deck's authors.")
    DeckAuthor.objects.filter(deck=deck, user_id=user_id).delete()


class DeckHasProgress(Conflict):
    """Deleting the deck would delete learners' progress, and the author did not confirm."""


@transaction.atomic
def deck_delete(*, deck: Deck, by, confirm: str = "") -> None:
    """Delete a deck with its cards, quizzes and every learner's progress on them (staff only).
    While learners have progress it is refused (409, with what would be lost) unless `confirm`
    is the deck's slug. Its learners and then its cards are locked first (in the order a grade
    takes them): a grade or undo in flight ends before, one that comes later finds its card
    gone (instead of the delete failing on a review it did not see, or a deadlock). A learner's
    own deck is deleted by its owner only; its images' files go once the delete commits."""
    if not (by.is_staff if deck.owner_id is None else deck.owner_id == by.pk):
        raise Forbidden("Only staff may delete a deck.")
    deck_learners_lock(deck)
    list(Card.all_objects.select_for_update().filter(deck=deck).values_list("pk"))
    progress = deck_progress(deck)
    if progress.learners and confirm != deck.slug:
        raise DeckHasProgress(
            f"{progress.sentence(deck)}. To delete it anyway, send the delete again with "
            f"confirm={deck.slug}."
        )
    files = list(deck.media.values_list("file", flat=True))
    deck.delete()
    transaction.on_commit(lambda: media_files_drop(files))
