"""Author pages for cards: the editor with its live preview, moves, history and restores."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_POST

from apps.authoring import selectors, services
from apps.authoring.forms import CardForm, PreviewForm, RestoreForm, direction_posted
from apps.authoring.views.base import author_required, form_write
from apps.authoring.views.decks import structure
from apps.decks.markdown import cloze_preview, render_markdown
from apps.decks.models import Card
from apps.demos.ray_demos.catalogue import DEMOS
from apps.quizzes.models import Question


def _card_context(deck, card, values, errors):
    questions = Question.objects.filter(quiz__deck=deck).select_related("quiz")
    linked, demos = set(), set()
    if card is not None:
        linked = set(card.quiz_questions.values_list("pk", flat=True))
        demos = set(card.demo_links.values_list("demo", flat=True))
    return {
        "deck": deck,
        "card": card,
        "sections": deck.sections.order_by("order", "id"),
        "values": values,
        "errors": errors,
        "questions": questions,
        "linked": linked,
        "demos": DEMOS,
        "linked_demos": demos,
        "previews": {
            key: _preview_html(key, values.get(key, ""), values.get("kind"))
            for key in ("front", "back", "why")
        },  # fmt: skip
        "kinds": Card.Kind.choices,
    }


def _preview_html(field: str, text: str, kind: str | None) -> str:
    """A cloze card's front previews as the cards it makes; everything else as Markdown."""
    if field == "front" and kind == Card.Kind.CLOZE:
        return cloze_preview(text)
    return render_markdown(text)


def _card_values(card) -> dict:
    data = services.card_data(card)
    data["tags"] = ", ".join(data["tags"])
    data["card_source"] = data.pop("source")
    return data


def _saved_message(revision) -> tuple[int, str]:
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
    return render(
        request, "authoring/card.html", _card_context(deck, None, values, errors),
        status=400 if errors else 200,
    )  # fmt: skip


@author_required
def card(request, pk: int):
    card = selectors.card_for_author(request.user, pk)
    values, errors = _card_values(card), {}
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
            messages.add_message(request, *_saved_message(revision))
            # A cloze edit that removed this card's deletion retired it: show the note's first.
            return redirect("authoring:card", pk=revision.card_id if revision else card.pk)
        values, errors = form.values(), form.messages()
    return render(
        request, "authoring/card.html", _card_context(card.deck, card, values, errors),
        status=400 if errors else 200,
    )  # fmt: skip


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


@require_POST
@author_required
def revision_restore(request, pk: int):
    revision = selectors.revision_for_author(request.user, pk)
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
    if revision.card_id:
        return redirect("authoring:card-history", pk=revision.card_id)
    return redirect("authoring:question-history", pk=revision.question_id)


@require_POST
@author_required
def preview(request) -> HttpResponse:
    """Rendered Markdown for the live preview, by the same renderer the study pages use."""
    form = PreviewForm(request.POST)
    form.is_valid()  # any text previews
    field = form.field()
    html = _preview_html(field, form.cleaned_data.get(field, ""), form.cleaned_data["kind"])
    return render(request, "authoring/_preview.html", {"html": html})
