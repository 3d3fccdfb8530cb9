"""Review pages: the review loop (one view for the page and its htmx fragment), undo, cram."""

from __future__ import annotations

import random

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from apps.accounts.models import profile_for
from apps.decks.markdown import answer_text
from apps.decks.models import Card, Deck
from apps.decks.selectors import visible_decks
from apps.review import typed as typed_answers
from apps.review.context import review_context, session_start
from apps.review.forms import MoreNewCardsForm, ReviewForm, TypedAnswerForm
from apps.study import grading, queue, selectors, services


def _deck(user, slug: str | None) -> Deck | None:
    if not slug:
        return None
    deck = visible_decks(user).filter(slug=slug).first()
    if deck is None:
        raise Http404(f"No deck {slug!r}.")
    return deck


def _back_to_review(request, *, notice: str, after: Card):
    """Post/redirect/get for the page without htmx: the notice becomes a message, and the card
    just graded rides along as ?after=, so the next card is kept off it and off its note's
    siblings, as on the htmx page."""
    if notice:
        messages.error(request, notice)
    query = request.GET.copy()
    query["after"] = str(after.pk)
    return redirect(f"{request.path}?{query.urlencode(safe=',')}")


def _render_review(request, context):
    template = "review/review.html#review" if request.htmx else "review/review.html"
    return render(request, template, context)


@login_required
def review(request, deck_slug: str | None = None):
    """The review loop. GET shows the next card; POST grades one and shows the next (htmx swaps
    the fragment; without htmx the browser is redirected back here)."""
    notice, avoid, done, leech = "", None, None, None
    if request.method == "POST":
        since = session_start(request, fresh=False)
        posted = ReviewForm.posted(request.POST)
        card = _posted_card(request, posted["card"])
        # The card comes with its deck; look the deck up only if the URL names another one.
        deck = card.deck if card.deck.slug == deck_slug else _deck(request.user, deck_slug)
        # The card, not its id: the next card is kept off its note's siblings too.
        avoid, done = card, posted["done"]
        try:
            log, created = grading.review_submit(
                user=request.user,
                card=card,
                grade=posted["grade"],
                client_id=posted["client_id"],
                duration_ms=posted["shown_at"],
                for_interview=posted["for_interview"],
            )
        except services.StudyError as exc:
            notice = str(exc)
        else:
            if done is not None and created:
                done += 1
            # Told once: only the response to the very lapse that made the card a leech.
            if created and services.log_made_leech(log, profile_for(request.user).leech_threshold):
                leech = (card, log.state_after["lapses"])
        if not request.htmx:
            return _back_to_review(request, notice=notice, after=card)
    else:
        deck = _deck(request.user, deck_slug)
        since = session_start(request, fresh=not request.htmx)
        if "after" in request.GET:  # the card the plain form just graded (_back_to_review)
            avoid = selectors.visible_card(request.user, request.GET["after"])
        if "show" in request.GET:  # back from editing it (or suggesting an edit) in place
            return _shown_again(request, deck, since)
    context = review_context(
        request, deck, since=since, notice=notice, avoid=avoid, done=done, leech=leech
    )
    return _render_review(request, context)


EDITED = {
    "saved": "Saved. Here is the card as it now reads: grade it when you are ready.",
    "unchanged": "Nothing changed. Here is the card again.",
    "suggested": "Thanks: your suggestion went to the deck's authors. You will be told what they"
    " decide. Here is the card again.",
    "cancel": "",
}


def _shown_again(request, deck, since):
    """The card the learner just edited (or suggested an edit of) from the review page, shown
    again with a word on what happened; the queue's next card if it is no longer visible."""
    card = selectors.visible_card(request.user, request.GET["show"])
    item = queue.queue_item(request.user, card) if card is not None else None
    notice = EDITED.get(request.GET.get("edited", ""), "")
    context = review_context(request, deck, since=since, item=item, notice=notice)
    return _render_review(request, context)


@login_required
@require_POST
def undo(request):
    """Undo the latest review and show that card again (Z on the review page)."""
    posted = ReviewForm.posted(request.POST)
    deck = _deck(request.user, posted["deck"])
    since = session_start(request, fresh=False)
    done = posted["done"]
    try:
        log = services.review_undo(user=request.user)
    except services.StudyError as exc:
        context = review_context(request, deck, since=since, notice=str(exc), done=done)
    else:
        done = max(0, done - 1) if done is not None else None
        # Card.objects leaves out retired cards: an author may have retired it since the review.
        card = Card.objects.select_related("section").filter(pk=log.card_id).first()
        if card is None:
            notice = (
                f"Undid grade {log.grade}; that card has since left the deck, so it is not shown."
            )
            context = review_context(request, deck, since=since, notice=notice, done=done)
        else:
            item = queue.queue_item(request.user, card)
            notice = f"Undid grade {log.grade} on this card; grade it again."
            context = review_context(
                request, deck, since=since, item=item, notice=notice, done=done
            )
    if not request.htmx:
        return redirect(context["grade_url"])
    return _render_review(request, context)


@login_required
@require_POST
def learn_more(request):
    """ "Learn N more new cards today": raise today's new-card limit, then back to the review."""
    form = MoreNewCardsForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest(form.errors.as_text(), content_type="text/plain")
    deck = _deck(request.user, form.cleaned_data["deck"])
    count = form.cleaned_data["count"]
    services.new_cards_add(user=request.user, count=count)
    messages.success(request, f"{count} more new card{pluralize(count)} today.")
    return redirect(
        reverse("study:review-deck", args=[deck.slug]) if deck else reverse("study:review")
    )


@login_required
@require_POST
def suspend(request, card_id: int):
    card = _posted_card(request, card_id)
    suspended = request.POST.get("suspended", "1") == "1"
    services.card_suspend(user=request.user, card=card, suspended=suspended)
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("study:index")
    if request.htmx:
        return HttpResponseClientRedirect(back) if not suspended else _suspended_next(request, card)
    return redirect(back)


def _suspended_next(request, card: Card):
    """The next card, under a notice that says where suspended cards are and offers to undo."""
    posted = ReviewForm.posted(request.POST)
    deck = _deck(request.user, posted["deck"])
    since = session_start(request, fresh=False)
    notice = "Card suspended: it stays out of your queue until you unsuspend it."
    done = posted["done"]
    context = review_context(request, deck, since=since, notice=notice, done=done)
    context["suspended_card"] = card
    return _render_review(request, context)


@login_required
def cram(request, deck_slug: str):
    """Cram: go through any cards of a deck, in order or shuffled. Reads only; no schedule
    changes, no review logs."""
    deck = _deck(request.user, deck_slug)
    assert deck is not None  # the URL names one
    cards = list(
        Card.objects.filter(deck=deck)
        .select_related("section")
        .order_by("section__order", "order", "id")
    )
    section = request.GET.get("section")
    if section:
        cards = [c for c in cards if c.section.slug == section]
    seed = request.GET.get("seed", "")
    if seed.isdigit():
        random.Random(int(seed)).shuffle(cards)
    try:
        position = max(0, min(int(request.GET.get("n", 0)), len(cards) - 1))
    except ValueError:
        position = 0
    sections = {c.section.slug: c.section.title for c in deck.cards.select_related("section")}
    context = {
        "deck": deck,
        "card": cards[position] if cards else None,
        "position": position,
        "count": len(cards),
        "seed": seed,
        "section": section or "",
        "sections": sections,
        "shuffle_seed": random.randrange(1, 10**6),
    }
    template = "review/cram.html#cram" if request.htmx else "review/cram.html"
    return render(request, template, context)


@login_required
@require_POST
def typed_compare(request, card_id: int):
    """A typed answer against the card's (a card with the "type the answer" option): the
    comparison fragment the review page shows in the answer. Changes nothing: the learner
    grades."""
    card = _posted_card(request, card_id)
    form = TypedAnswerForm(request.POST)
    typed = form.cleaned_data["typed"] if form.is_valid() else ""
    expected = answer_text(card.kind, card.ordinal, card.front, card.back)
    context = {"comparison": typed_answers.typed_compare(typed, expected), "card": card}
    return render(request, "review/_typed.html", context)


def _posted_card(request, card_id=None) -> Card:
    card = selectors.visible_card(request.user, card_id or request.POST.get("card"))
    if card is None:
        raise Http404("No such card.")
    return card
