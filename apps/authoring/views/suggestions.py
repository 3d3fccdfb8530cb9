"""Author pages for learners' suggested edits: the open ones on the decks you author, each with
the card as it is and as suggested, accepted (a revision) or rejected with an optional reply."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from apps.authoring import selectors, services
from apps.authoring.forms import SuggestionDecisionForm
from apps.authoring.models import EditSuggestion, text_diff_html
from apps.authoring.views.base import author_required, form_write
from apps.authoring.views.cards import saved_message
from config.errors import Forbidden

SHOWN = 50


@author_required
def suggestions(request):
    rows = [
        (row, [
            (name, text_diff_html(getattr(row.card, name), getattr(row, name)))
            for name in ("front", "back", "why")
            if getattr(row.card, name) != getattr(row, name)
        ])
        for row in selectors.open_suggestions(request.user)[:SHOWN]
    ]  # fmt: skip
    return render(request, "authoring/suggestions.html", {"suggestions": rows})


@require_POST
@author_required
def suggestion_decide(request, pk: int):
    suggestion = get_object_or_404(
        EditSuggestion.objects.select_related("card__deck", "card__section", "user"), pk=pk
    )
    if not selectors.can_author(request.user, suggestion.card.deck):
        raise Forbidden(f"You are not an author of deck {suggestion.card.deck.slug!r}.")
    form = SuggestionDecisionForm(request.POST)

    def decide():
        data = form.cleaned_data
        if data["decision"] == "accept":
            revision = services.suggestion_accept(
                suggestion=suggestion, by=request.user, changes_answer=data["changes_answer"],
                reply=data["reply"],
            )  # fmt: skip
            return saved_message(revision)[1] + f" {suggestion.user.username} will be told."
        services.suggestion_reject(suggestion=suggestion, by=request.user, reply=data["reply"])
        return f"Suggestion closed; {suggestion.user.username} will be told."

    ok, done = form_write(form, decide)
    if ok:
        messages.success(request, done)
    else:
        messages.error(request, "Not decided: " + " ".join(form.messages().values()))
    return redirect("authoring:suggestions")
