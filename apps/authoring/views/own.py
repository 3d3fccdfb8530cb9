"""A learner's own cards ("my cards", /my/): their private decks, the card editor with its live
preview, history and images, import and export, edits from the review page, suggested edits of
shipped cards, and the card browser's bulk edits of their own cards.

Every page needs a log-in; a private deck, card or revision of anyone else is 404 (nobody learns
it exists), through apps.authoring.selectors, whose can_author is the one permission check.
The writes are the author pages' services (cards, revisions, imports, media)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from apps.authoring import selectors, services
from apps.authoring.formats import EXPORT_FORMATS, ImportUploadCut, export_download
from apps.authoring.forms import (
    CardForm,
    OwnBulkForm,
    OwnDeckDeleteForm,
    OwnDeckForm,
    SuggestionForm,
)
from apps.authoring.models import EditSuggestion
from apps.authoring.views.base import form_write
from apps.authoring.views.cards import (
    card_context,
    card_values,
    media_upload_answer,
    media_upload_cut,
    restore_posted,
    saved_message,
)
from apps.authoring.views.imports import import_flow
from apps.decks.models import Card
from apps.decks.selectors import visible_decks
from config.errors import ServiceError

SUGGESTIONS_SHOWN = 20


@login_required
def index(request):
    """Your decks with their cards, your quota, a new deck, and your suggested edits."""
    return _index(request, values={}, errors={})


def _index(request, *, values, errors, status=200):
    context = {
        "decks": selectors.own_deck_list(request.user).order_by("title"),
        "usage": selectors.own_usage(request.user),
        "suggestions": EditSuggestion.objects.filter(user=request.user)
        .select_related("card", "card__deck")
        .order_by("-created_at", "-id")[:SUGGESTIONS_SHOWN],
        "values": values,
        "errors": errors,
    }
    return render(request, "authoring/own_index.html", context, status=status)


@require_POST
@login_required
def deck_create(request):
    form = OwnDeckForm(request.POST)
    ok, deck = form_write(
        form, lambda: services.own_deck_create(user=request.user, **form.cleaned_data)
    )
    if not ok:
        return _index(request, values=form.values(), errors=form.messages(), status=400)
    messages.success(request, f"Deck “{deck.title}” made: add its first card.")
    return redirect("mine:card-new", slug=deck.slug)


@login_required
def deck(request, slug: str):
    """One of your decks: its cards (a page at a time), its name, import, export, delete."""
    deck = selectors.deck_for_owner(request.user, slug)
    form = OwnDeckForm(request.POST if request.method == "POST" else None)
    values = {"title": deck.title, "description": deck.description}
    if form.is_bound:
        ok, _ = form_write(form, lambda: services.deck_update(deck=deck, **form.cleaned_data))
        if ok:
            messages.success(request, "Deck saved.")
            return redirect("mine:deck", slug=deck.slug)
        values = form.values()
        deck.refresh_from_db()
    errors = form.messages() if form.is_bound else {}
    context = {
        "deck": deck,
        "values": values,
        "errors": errors,
        "sections": selectors.deck_structure(deck, request.GET.get("page", 1)),
        "export_formats": EXPORT_FORMATS,
    }
    return render(request, "authoring/own_deck.html", context, status=400 if errors else 200)


@require_POST
@login_required
def deck_delete(request, slug: str):
    deck = selectors.deck_for_owner(request.user, slug)
    form = OwnDeckDeleteForm(request.POST)
    form.is_valid()
    if not form.cleaned_data["confirm"]:
        messages.error(request, "Tick the box to say you mean it: the deck goes with its history.")
        return redirect("mine:deck", slug=deck.slug)
    services.deck_delete(deck=deck, by=request.user, confirm=deck.slug)
    messages.success(request, f"Deck “{deck.title}” deleted.")
    return redirect("mine:index")


def _within_quota(user, write):
    """`write` and the quota check in one transaction: past the quota, nothing is written and
    the form shows why (in place, with what was typed: as a refusal of the post, a 400)."""

    def run():
        try:
            with transaction.atomic():
                result = write()
                services.quota_enforce(user)
                return result
        except services.QuotaExceeded as exc:
            raise ServiceError(exc.message) from None

    return run


def _back_url(request, value: str) -> str:
    """A review page to return to after an edit made from it (only ever one of ours)."""
    review = reverse("study:review")
    safe = url_has_allowed_host_and_scheme(
        value, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return value if safe and value.startswith(review) else ""


def _to_card(back: str, card_id: int, edited: str) -> str:
    """The review page at `back`, showing the card again (study's ?show=)."""
    glue = "&" if "?" in back else "?"
    return f"{back}{glue}show={card_id}&edited={edited}"


@login_required
def card_new(request, slug: str):
    deck = selectors.deck_for_owner(request.user, slug)
    values = {"section": request.GET.get("section", ""), "tags": ""}
    errors = {}
    if request.method == "POST":
        form = CardForm(request.POST)

        def create():
            fields = form.card_fields()
            fields["slug"] = fields["slug"] or services.own_card_slug(deck, fields["front"])
            fields["section"] = fields["section"] or deck.sections.order_by("order").first()
            return services.card_create(deck=deck, author=request.user,
                                        note=form.cleaned_data["note"], **fields)  # fmt: skip

        ok, card = form_write(form, _within_quota(request.user, create))
        if ok:
            messages.success(request, "Card saved: it is in your review queue as a new card.")
            if "another" in request.POST:
                return redirect("mine:card-new", slug=deck.slug)
            return redirect("mine:deck", slug=deck.slug)
        values, errors = form.values(), form.messages()
    context = card_context(deck, None, values, errors, form_url=request.path, own=True)
    return render(request, "authoring/card.html", context, status=400 if errors else 200)


@login_required
def card(request, pk: int):
    """Edit one of your cards: the full page, or (from the review page, with `back_url`) the
    editor in place of the card, which returns to the same card when saved."""
    card = selectors.card_for_owner(request.user, pk)
    source = request.POST if request.method == "POST" else request.GET
    back = _back_url(request, source.get("back_url", ""))
    values, errors = card_values(card), {}
    if request.method == "POST":
        form = CardForm(request.POST)
        ok, revision = form_write(
            form, _within_quota(request.user, lambda: services.card_edit(
                card=card, author=request.user, note=form.cleaned_data["note"],
                changes_answer=form.cleaned_data["changes_answer"], **form.card_fields(),
            )),
        )  # fmt: skip
        if ok:
            shown = revision.card_id if revision else card.pk
            if back:
                return redirect(_to_card(back, shown, "saved" if revision else "unchanged"))
            messages.add_message(request, *saved_message(revision))
            return redirect("mine:card", pk=shown)
        values, errors = form.values(), form.messages()
    context = card_context(
        card.deck, card, values, errors, form_url=reverse("mine:card", args=[card.pk]),
        own=True, back_url=back, in_review=bool(back),
        back_to_card=_to_card(back, card.pk, "cancel") if back else "",
    )  # fmt: skip
    status = 400 if errors else 200
    if back and request.htmx:
        return render(request, "authoring/card.html#editor", context, status=status)
    return render(request, "authoring/card.html", context, status=status)


@require_POST
@login_required
def card_retire(request, pk: int):
    card = selectors.card_for_owner(request.user, pk)
    deck = card.deck
    retired = services.card_retire(card=card, by=request.user)
    messages.success(
        request,
        f"Deleted {retired} card{pluralize(retired)}: out of your deck and your queue (the"
        " history stays).",
    )
    return redirect("mine:deck", slug=deck.slug)


@login_required
def card_history(request, pk: int):
    card = selectors.card_for_owner(request.user, pk)
    context = {"target": card, "kind": "card", "deck": card.deck, "own": True,
               "revisions": selectors.revisions_of(card=card)}  # fmt: skip
    return render(request, "authoring/history.html", context)


@require_POST
@login_required
def revision_restore(request, pk: int):
    revision = selectors.revision_for_owner(request.user, pk)
    restore_posted(request, revision)
    return redirect("mine:card-history", pk=revision.card_id)


@login_required
def export(request, slug: str, fmt: str):
    return export_download(selectors.deck_for_owner(request.user, slug), fmt)


@csrf_exempt
def import_page(request, slug: str):
    # The upload is cut at the limit as it streams in, before anything reads request.POST.
    request.upload_handlers.insert(0, ImportUploadCut(request))
    return _import_page(request, slug)


@csrf_protect
@login_required
def _import_page(request, slug: str):
    return import_flow(request, into=selectors.deck_for_owner(request.user, slug))


@media_upload_cut
@require_POST
@login_required
def media_upload(request, slug: str):
    return media_upload_answer(request, selectors.deck_for_owner(request.user, slug))


# From the review page ---------------------------------------------------------------------------


@login_required
def review_edit(request, card_id: int):
    """E on the review page: your own card opens in the editor in place of the card; a shipped
    card opens "Suggest an edit", which its authors decide. Either returns to the same card."""
    card = (
        Card.objects.select_related("deck", "section")
        .filter(pk=card_id, deck__in=visible_decks(request.user))
        .first()
    )
    if card is None:
        raise Http404("No such card.")
    back = _back_url(request, request.GET.get("back_url", "")) or reverse("study:review")
    if card.deck.owner_id == request.user.pk:
        query = request.GET.copy()
        query["back_url"] = back
        return redirect(f"{reverse('mine:card', args=[card.pk])}?{query.urlencode()}")
    return _suggest_form(request, card, back, values=_note_values(card), errors={})


def _note_values(card: Card) -> dict:
    note = services.note_siblings(card)[0]
    return {"front": note.front, "back": note.back, "why": note.why, "note": ""}


def _suggest_form(request, card, back, *, values, errors, status=200):
    context = {"card": card, "back_url": back, "values": values, "errors": errors,
               "back_to_card": _to_card(back, card.pk, "cancel"),
               "open": EditSuggestion.objects.filter(
                   user=request.user, card__note_slug=card.note_slug, card__deck=card.deck,
                   status=EditSuggestion.Status.OPEN).first()}  # fmt: skip
    template = "authoring/suggest.html#suggest" if request.htmx else "authoring/suggest.html"
    return render(request, template, context, status=status)


@require_POST
@login_required
def suggest(request, card_id: int):
    """File (or update) a suggested edit of a shipped card you may see."""
    card = (
        Card.objects.select_related("deck", "section")
        .filter(pk=card_id, deck__in=visible_decks(request.user), deck__owner=None)
        .first()
    )
    if card is None:
        raise Http404("No such card to suggest an edit of.")
    form = SuggestionForm(request.POST)
    back = _back_url(request, request.POST.get("back_url", "")) or reverse("study:review")
    ok, _ = form_write(
        form, lambda: services.suggestion_file(user=request.user, card=card, **form.cleaned_data)
    )
    if not ok:
        return _suggest_form(request, card, back, values=form.values(), errors=form.messages(),
                             status=400)  # fmt: skip
    return redirect(_to_card(back, card.pk, "suggested"))


# The card browser's bulk edits of your own cards ----------------------------------------------


@require_POST
@login_required
def cards_bulk(request):
    """Tag (add, remove) or move to another of your decks the chosen cards of your own; cards
    of the shipped decks among them are left as they are, and the message says so."""
    form = OwnBulkForm(request.POST)
    back = reverse("study:browse")
    nxt = request.POST.get("next", "")
    if nxt.startswith(back + "?") or nxt == back:
        back = nxt
    if not form.is_valid():
        messages.error(request, "Nothing was done: " + " ".join(form.messages().values()))
        return redirect(back)
    data = form.cleaned_data
    ids = data["cards"]
    try:
        if data["action"] == "tag":
            done = services.own_cards_tag(user=request.user, card_ids=ids, add=data["tag"],
                                          remove=data["untag"])  # fmt: skip
            verb = "retagged"
        else:
            target = selectors.own_decks(request.user).filter(slug=data["deck"]).first()
            if target is None:
                raise ServiceError("Choose one of your own decks to move the cards to.")
            done = services.own_cards_move(user=request.user, card_ids=ids, deck=target)
            verb = f"moved to {target.title}"
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect(back)
    mine = Card.objects.filter(pk__in=ids, deck__owner=request.user).count()
    text = f"{done} card{pluralize(done)} {verb}."
    if mine < len(ids):
        left = len(ids) - mine
        text += (
            f" {left} chosen card{pluralize(left)} of the shipped decks"
            f" {pluralize(left, 'was,were')} left as they are: only your own cards are tagged"
            " or moved."
        )
    messages.success(request, text)
    return redirect(back)
