"""Learners' suggested edits of shipped cards: filed from the review page, decided by the deck's
authors. Accepting one is an author's edit of the card (card_update, the same revision rules:
a text edit keeps every learner's schedule unless the author says it changes the answer);
rejecting closes it. The learner is told either way on their next page (the news flag below
tells apps.authoring.middleware to look, so no page pays a query to find there is nothing)."""

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.authoring.models import EditSuggestion, Revision
from apps.authoring.selectors import can_author
from apps.authoring.services.cards import card_update, note_siblings
from apps.authoring.services.fields import text_clean
from apps.authoring.services.revisions import Source
from apps.decks.models import Card
from config.errors import Conflict, Forbidden, ServiceError

NEWS_SECONDS = 90 * 24 * 3600


class SuggestionClosed(Conflict):
    """Another author decided the suggestion first."""


def news_key(user_id: int) -> str:
    return f"suggestion-news:{user_id}"


def _note_card(card: Card) -> Card:
    """The card that speaks for the note (a suggestion is about the note's text)."""
    return note_siblings(card)[0]


@transaction.atomic
def suggestion_file(*, user, card: Card, front: str, back: str = "", why: str = "",
                    note: str = "") -> EditSuggestion:  # fmt: skip
    """File (or, when the learner has one open for this card, update) a suggested edit of a
    shipped card's note. Refused for a card of one's own deck (edit it instead) and for a
    suggestion that changes nothing and says nothing."""
    if card.deck.owner_id is not None:
        raise ServiceError("this card is yours: edit it instead", field="front")
    card = _note_card(card)
    fields = {"front": text_clean(front), "back": text_clean(back), "why": text_clean(why)}
    note = text_clean(note)[:300]
    if not fields["front"]:
        raise ServiceError("front must not be empty", field="front")
    same = fields == {"front": card.front, "back": card.back, "why": card.why}
    if same and not note:
        raise ServiceError(
            "change the card's text, or say what is wrong with it, before sending", field="note"
        )
    open_ = EditSuggestion.objects.select_for_update().filter(
        user=user, card=card, status=EditSuggestion.Status.OPEN
    )
    suggestion = open_.first()
    if suggestion is None:
        try:
            with transaction.atomic():
                return EditSuggestion.objects.create(user=user, card=card, note=note, **fields)
        except IntegrityError:  # a second tab filed one meanwhile: update that one
            suggestion = open_.get()
    for name, value in {**fields, "note": note}.items():
        setattr(suggestion, name, value)
    suggestion.save()
    return suggestion


def _decide(suggestion: EditSuggestion, by, status: str, reply: str) -> None:
    if not can_author(by, suggestion.card.deck):
        raise Forbidden(f"You are not an author of deck {suggestion.card.deck.slug!r}.")
    claimed = EditSuggestion.objects.filter(
        pk=suggestion.pk, status=EditSuggestion.Status.OPEN
    ).update(status=status, decided_at=timezone.now(), decided_by=by, reply=text_clean(reply)[:300])
    if claimed != 1:
        raise SuggestionClosed(
            "This suggestion was already decided (by another author, or in another tab)."
        )
    user_id = suggestion.user_id
    transaction.on_commit(lambda: cache.set(news_key(user_id), 1, NEWS_SECONDS))


@transaction.atomic
def suggestion_accept(*, suggestion: EditSuggestion, by, changes_answer: bool = False,
                      reply: str = "") -> Revision | None:  # fmt: skip
    """Accept: the note takes the suggested text as a revision by `by` (None when the card
    already says exactly that). Everything or nothing: a suggestion the card rules refuse (a
    broken cloze) stays open and the ServiceError says why."""
    card = Card.all_objects.select_related("deck", "section").get(pk=suggestion.card_id)
    if card.retired_at is not None:
        raise Conflict("That card has left its deck since; there is nothing to edit: reject it.")
    _decide(suggestion, by, EditSuggestion.Status.ACCEPTED, reply)
    who = suggestion.user.username
    revision = card_update(
        card=card, author=by, note=f"suggested by {who}: {suggestion.note}".strip(": ")[:200],
        changes_answer=changes_answer, source=Source.SUGGESTION,
        front=suggestion.front, back=suggestion.back, why=suggestion.why,
    )  # fmt: skip
    if revision is not None:
        EditSuggestion.objects.filter(pk=suggestion.pk).update(revision=revision)
    return revision


@transaction.atomic
def suggestion_reject(*, suggestion: EditSuggestion, by, reply: str = "") -> None:
    _decide(suggestion, by, EditSuggestion.Status.REJECTED, reply)


def suggestions_tell(*, user) -> list[EditSuggestion]:
    """The learner's decided suggestions they were not told of yet, now marked told (the news
    flag cleared). Two queries; none for a learner without news."""
    cache.delete(news_key(user.pk))
    untold = list(
        EditSuggestion.objects.filter(user=user, told_at=None)
        .exclude(status=EditSuggestion.Status.OPEN)
        .select_related("card")
        .order_by("decided_at", "id")[:20]
    )
    EditSuggestion.objects.filter(pk__in=[s.pk for s in untold]).update(told_at=timezone.now())
    return untold
