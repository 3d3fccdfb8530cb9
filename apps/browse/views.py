"""The card browser's pages: search, filter and sort your cards, one card with its history, and
the bulk actions on your own schedule."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.accounts.models import profile_for
from apps.browse import selectors as browse
from apps.browse import services as bulk
from apps.browse.forms import BrowseForm, BulkForm
from apps.decks.models import Section
from apps.decks.selectors import visible_decks
from apps.study import scheduler, services
from apps.study.scheduler import GRADE_NAMES


@login_required
def browse_page(request):
    """The card browser: search, filter and sort your cards; htmx swaps just the results."""
    form = BrowseForm(request.GET)
    page, error = None, ""
    if form.is_valid():
        page = browse.cards_search(request.user, **form.query())
    else:
        error = form.error_text()
    decks = list(visible_decks(request.user).order_by("title").only("slug", "title", "owner_id"))
    deck_slug = form.cleaned_data.get("deck") if form.is_valid() else None
    sections = (
        Section.objects.filter(deck__in=decks)
        .select_related("deck")
        .only("slug", "title", "order", "deck__slug", "deck__title")
    )
    if deck_slug:  # the chosen deck's sections only
        sections = sections.filter(deck__slug=deck_slug)
    query = request.GET.copy()
    query.pop("page", None)
    unsorted = query.copy()
    current = unsorted.pop("sort", [""])[-1]
    context = {
        "form": form,
        "page": page,
        "error": error,
        "decks": decks,
        "own_decks": [d for d in decks if d.owner_id == request.user.pk],
        "sections": list(sections.order_by("deck__title", "order")),
        "query": query.urlencode(),
        "columns": _sort_columns(unsorted.urlencode(), current),
        "current_sort": current,  # the results say it, so the form's "Sort by" follows a header
        "bulk_max_days": bulk.RESCHEDULE_MAX_DAYS,
    }
    template = "browse/browse.html#results" if request.htmx else "browse/browse.html"
    return render(request, template, context, status=400 if error else 200)


COLUMN_LABELS = {"due": "Due", "interval": "Interval", "ease": "Ease", "lapses": "Lapses",
                 "reviewed": "Last review", "deck": "Deck", "tags": "Tags"}  # fmt: skip


def _sort_columns(query: str, current: str) -> list[dict]:
    """Each sortable column's header: its label, the link that sorts by it (ascending first,
    then the other way), and its aria-sort while it is the sort."""
    columns = []
    for name in browse.SORT_COLUMNS:
        sort = f"-{name}" if current == name else name
        glue = "&" if query else ""
        aria = {name: "ascending", f"-{name}": "descending"}.get(current, "none")
        columns.append({"name": name, "label": COLUMN_LABELS[name], "aria": aria,
                        "url": f"?{query}{glue}sort={sort}"})  # fmt: skip
    return columns


@login_required
def browse_card(request, card_id: int):
    """One card as the browser opens it: its text, your schedule, your reviews of it."""
    detail = browse.card_detail(request.user, card_id)
    if detail is None:
        raise Http404("No such card.")
    zone = profile_for(request.user).zone
    state = detail.state
    due = None
    if state is not None and state.last_reviewed_at is not None:
        due = scheduler.local_date(state.due_at, zone)
    context = {
        "card": detail.card,
        "state": state,
        "history": detail.history,
        "due": due,
        "grade_names": GRADE_NAMES,
        "back": _browse_back(request.GET.get("back", "")),
    }
    return render(request, "browse/browse_card.html", context)


@login_required
@require_POST
def browse_bulk(request):
    """The card browser's bulk actions on your own schedule: suspend, unsuspend, reschedule
    (due in N days) or forget the chosen cards; then the browser again, as it was."""
    form = BulkForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Nothing was done: {form.error_text()}.")
        return redirect(_browse_back(request.POST.get("next", "")))
    data = form.cleaned_data
    ids, action = data["cards"], data["action"]
    try:
        if action in ("suspend", "unsuspend"):
            n = bulk.cards_suspend(user=request.user, card_ids=ids, suspended=action == "suspend")
            text = f"{n} card{pluralize(n)} {action}ed."
        elif action == "reschedule":
            days = data["days"]
            n = bulk.cards_reschedule(user=request.user, card_ids=ids, days=days)
            when = "today" if days == 0 else f"in {days} day{pluralize(days)}"
            text = f"{n} card{pluralize(n)} due {when}."
        else:
            n = bulk.cards_forget(user=request.user, card_ids=ids)
            text = f"{n} card{pluralize(n)} forgotten: new again (their past reviews are kept)."
    except services.StudyError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, text)
    return redirect(_browse_back(data["next"]))


def _browse_back(back: str) -> str:
    """The browser page (with its search) a card was opened from; only ever a browser URL."""
    home = reverse("study:browse")
    return back if back.startswith(home + "?") or back == home else home
