"""Author pages for cards: the editor with its live preview, moves, history and restores."""

from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import filesizeformat, pluralize
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from apps.authoring import selectors, services
from apps.authoring.formats import ImportUploadCut
from apps.authoring.forms import CardForm, MediaForm, PreviewForm, RestoreForm
from apps.authoring.forms.base import direction_posted
from apps.authoring.selectors import can_author
from apps.authoring.views.base import author_required, form_write
from apps.authoring.views.decks import structure
from apps.decks.markdown import cloze_preview, render_markdown
from apps.decks.models import Card, Deck
from apps.demos.ray_demos.catalogue import DEMOS
from apps.quizzes.models import Question
from config.errors import ServiceError


def card_context(deck, card, values, errors, *, form_url: str, own: bool = False, **extra):
    """What the card editor (authoring/card.html and its `editor` partial) shows, for an
    author's deck or (`own`) a learner's own: the own deck leaves out quiz questions and demos."""
    questions, linked, demos = Question.objects.none(), set(), set()
    if not own:
        questions = Question.objects.filter(quiz__deck=deck).select_related("quiz")
        if card is not None:
            linked = set(card.quiz_questions.values_list("pk", flat=True))
            demos = set(card.demo_links.values_list("demo", flat=True))
    media = deck.media_urls()
    return {
        "deck": deck,
        "card": card,
        "own": own,
        "form_url": form_url,
        "media_url": reverse(
            "mine:media-upload" if own else "authoring:media-upload", args=[deck.slug]
        ),  # fmt: skip
        "sections": list(deck.sections.order_by("order", "id")),
        "values": values,
        "errors": errors,
        "questions": questions,
        "linked": linked,
        "demos": DEMOS,
        "linked_demos": demos,
        "previews": {
            key: preview_html(key, values.get(key, ""), values.get("kind"), media)
            for key in ("front", "back", "why")
        },  # fmt: skip
        "kinds": Card.Kind.choices,
        **extra,
    }


def preview_html(field: str, text: str, kind: str | None, media: dict | None = None) -> str:
    """A cloze card's front previews as the cards it makes; everything else as Markdown."""
    if field == "front" and kind == Card.Kind.CLOZE:
        return cloze_preview(text, media=media)
    return render_markdown(text, media=media)


def card_values(card) -> dict:
    data = services.card_data(card)
    data["tags"] = ", ".join(data["tags"])
    data["card_source"] = data.pop("source")
    return data


def saved_message(revision) -> tuple[int, str]:
    if revision is None:
        return messages.INFO, "Nothing changed."
    if revision.changes_answer:
        learners = f"{revision.requeued} learner{pluralize(revision.requeued)}"
        return messages.SUCCESS, (
            f"Saved revision {revision.number}; {learners} who studied this card review it again"
            " now."
        )
    return messages.SUCCESS, (
        f"Saved revision {revision.number}; learners' schedules are unchanged."
    )


@author_required
def card_new(request, slug: str):
    deck = selectors.deck_for_author(request.user, slug)
    values = {"section": request.GET.get("section", ""), "tags": ""}
    errors = {}
    if request.method == "POST":
        form = CardForm(request.POST)
        ok, card = form_write(
            form, lambda: services.card_create(
                deck=deck, author=request.user, note=form.cleaned_data["note"],
                **form.card_fields(),
            ),
        )  # fmt: skip
        if ok:
            messages.success(request, f"Card {card.slug} created.")
            return redirect("authoring:card", pk=card.pk)
        values, errors = form.values(), form.messages()
    context = card_context(deck, None, values, errors, form_url=request.path)
    return render(request, "authoring/card.html", context, status=400 if errors else 200)


@author_required
def card(request, pk: int):
    card = selectors.card_for_author(request.user, pk)
    values, errors = card_values(card), {}
    if request.method == "POST":
        form = CardForm(request.POST)
        ok, revision = form_write(
            form, lambda: services.card_edit(
                card=card, author=request.user, note=form.cleaned_data["note"],
                changes_answer=form.cleaned_data["changes_answer"], **form.card_fields(),
                **form.links(card.deck),
            ),
        )  # fmt: skip
        if ok:
            messages.add_message(request, *saved_message(revision))
            # A cloze edit that removed this card's deletion retired it: show the note's first.
            return redirect("authoring:card", pk=revision.card_id if revision else card.pk)
        values, errors = form.values(), form.messages()
    context = card_context(card.deck, card, values, errors, form_url=request.path)
    return render(request, "authoring/card.html", context, status=400 if errors else 200)


@require_POST
@author_required
def card_move(request, pk: int):
    card = selectors.card_for_author(request.user, pk)
    services.card_move(card=card, direction=direction_posted(request.POST))
    return structure(request, card.deck, selectors.structure_page_of(card=card))


@require_POST
@author_required
def card_delete(request, pk: int):
    card = selectors.card_for_author(request.user, pk)
    deck = card.deck
    services.card_delete(card=card)
    messages.success(request, f"Card {card.slug} deleted.")
    return redirect("authoring:deck", slug=deck.slug)


@author_required
def card_history(request, pk: int):
    card = selectors.card_for_author(request.user, pk)
    context = {"target": card, "kind": "card", "deck": card.deck,
               "revisions": selectors.revisions_of(card=card)}  # fmt: skip
    return render(request, "authoring/history.html", context)


def restore_posted(request, revision) -> None:
    """Restore `revision` as the posted form says (an author's or a learner's own card), and
    say what happened: restored as a new revision, already what is there, or refused."""
    form = RestoreForm(request.POST)
    ok, new = form_write(
        form, lambda: services.revision_restore(
            revision=revision, author=request.user,
            changes_answer=form.cleaned_data["changes_answer"],
        ),
    )  # fmt: skip
    if not ok:
        messages.error(request, " ".join(form.messages().values()))
    elif new is None:
        messages.info(request, f"Revision {revision.number} is what is there already.")
    else:
        messages.success(request, f"Restored revision {revision.number} as {new.number}.")


@require_POST
@author_required
def revision_restore(request, pk: int):
    revision = selectors.revision_for_author(request.user, pk)
    restore_posted(request, revision)
    if revision.card_id:
        return redirect("authoring:card-history", pk=revision.card_id)
    return redirect("authoring:question-history", pk=revision.question_id)


@require_POST
@login_required
def preview(request) -> HttpResponse:
    """Rendered Markdown for the live preview, by the same renderer the study pages use (for
    authors and for learners writing their own cards), with the images of the deck named when
    the caller may edit it."""
    form = PreviewForm(request.POST)
    form.is_valid()  # any text previews
    field = form.field()
    deck = Deck.objects.filter(slug=form.cleaned_data["preview_deck"]).first()
    media = deck.media_urls() if deck is not None and can_author(request.user, deck) else None
    text = form.cleaned_data.get(field, "")
    html = preview_html(field, text, form.cleaned_data["kind"], media)
    return render(request, "authoring/_preview.html", {"html": html})


def media_upload_answer(request, deck) -> HttpResponse:
    """An image from the card editor stored with `deck` (its check's refusal shown in place):
    the fragment gives the Markdown to show it, which the editor puts where the author writes."""
    form = MediaForm(request.POST, request.FILES)
    upload = form.cleaned_data["image"] if form.is_valid() else None
    if upload is None:
        error = "Choose an image file to add."
        return render(request, "authoring/_media.html", {"error": error}, status=400)
    if upload.size > settings.MEDIA_MAX_BYTES:
        error = (
            f"{upload.name} is larger than {filesizeformat(settings.MEDIA_MAX_BYTES)}, the limit."
        )
        return render(request, "authoring/_media.html", {"error": error}, status=400)
    try:
        media = services.media_upload(deck=deck, user=request.user, name=upload.name,
                                      data=upload.read())  # fmt: skip
    except ServiceError as exc:
        return render(request, "authoring/_media.html", {"error": exc.message},
                      status=exc.status)  # fmt: skip
    return render(request, "authoring/_media.html", {"media": media})


def media_upload_cut(view):
    """The upload is cut one byte past MEDIA_MAX_BYTES as it streams in; that handler must be in
    place before anything reads request.POST, so the CSRF check comes after it."""

    protected = csrf_protect(view)

    @csrf_exempt
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        request.upload_handlers.insert(0, ImportUploadCut(request, limit=settings.MEDIA_MAX_BYTES))
        return protected(request, *args, **kwargs)

    return wrapped


@media_upload_cut
@require_POST
@author_required
def media_upload(request, slug: str) -> HttpResponse:
    return media_upload_answer(request, selectors.deck_for_author(request.user, slug))
