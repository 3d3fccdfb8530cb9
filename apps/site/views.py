"""The site's pages, composed from what the other apps provide: the home page with each deck's
guided path, the deck and section pages, the stats page, and the 400/403/404/500 handlers."""

from datetime import timedelta

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader

from apps.accounts.models import profile_for
from apps.decks import selectors as deck_selectors
from apps.demos.selectors import live_demos_by_card
from apps.quizzes import selectors as quiz_selectors
from apps.quizzes.forms import section_quiz_blocks
from apps.site import selectors
from apps.study import browse, charts, fitting, interview, progress, tasks
from apps.study import selectors as study_selectors
from apps.study.services import section_read


def home(request: HttpRequest) -> HttpResponse:
    decks = list(deck_selectors.deck_list(request.user))
    context = {"decks": decks}
    if request.user.is_authenticated:
        counts = study_selectors.due_counts(
            request.user, card_counts={item.pk: item.card_count for item in decks}
        )
        for item in decks:
            item.study = counts.get(item.pk, {"due": 0, "new": 0})
        context["interview"] = interview.next_step(request.user)
        context["interview_line"] = interview.today_line(request.user)
        paths = selectors.learning_path(request.user, decks, counts)
        for item in decks:
            item.path = paths[item.pk]
    context["formulas"] = progress.FORMULAS
    return render(request, "site/home.html", context)


def deck(request: HttpRequest, slug: str) -> HttpResponse:
    deck = deck_selectors.deck_detail(request.user, slug)
    checks = quiz_selectors.deck_knowledge_checks(deck)
    return render(request, "site/deck.html", {"deck": deck, "knowledge_checks": checks})


def section(request: HttpRequest, deck_slug: str, section_slug: str) -> HttpResponse:
    section = deck_selectors.section_detail(request.user, deck_slug, section_slug)
    if request.user.is_authenticated:
        section_read(user=request.user, section=section)
    previous, following = deck_selectors.section_neighbours(section)
    cards = list(section.cards.all())
    live = live_demos_by_card(section)
    for card in cards:
        card.live_demos = live.get(card.pk, [])
    context = {
        "deck": section.deck,
        "section": section,
        "cards": cards,
        "previous": previous,
        "following": following,
        **section_quiz_blocks(quiz_selectors.section_quizzes(section)),
    }
    return render(request, "site/section.html", context)


@login_required
def stats(request: HttpRequest) -> HttpResponse:
    """Study's figures (heatmap, forecast, retention, mastery, leeches, calibration) beside each
    deck's readiness, which counts the quizzes' knowledge checks."""
    data = selectors.stats(request.user)
    # Held-out calibration, and a refit asked for when one is due (an old fit without held-out
    # parameters shows the defaults until then), from the same two queries.
    calibration, fit_due = fitting.calibration_and_fit_due(request.user)
    tasks.memory_fit_enqueue(request.user, due=fit_due)
    heatmap = charts.year_heatmap(data.per_day, data.today)
    labels = [
        "today" if i == 0 else (data.today + timedelta(days=i)).strftime("%-d %b")
        for i in range(30)
    ]
    forecast = charts.bar_chart(data.forecast, labels)
    retention = {
        name: {"passed": p, "reviewed": n, "pct": round(100 * p / n) if n else None}
        for name, (p, n) in data.retention.items()
    }
    context = {
        "stats": data,
        "heatmap": heatmap,
        "forecast": forecast,
        "forecast_total": sum(data.forecast),
        "retention": retention,
        "busiest": max(data.per_day.values(), default=0),
        "calibration": calibration,
        "calibration_min": fitting.CALIBRATION_MIN_REVIEWS,
        "leeches": browse.leech_cards(request.user),
        "leech_threshold": profile_for(request.user).leech_threshold,
        "formulas": progress.FORMULAS,
    }
    return render(request, "site/stats.html", context)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found.", "error": "No such resource."}, status=404)
    return render(request, "404.html", status=404)


def forbidden(request: HttpRequest, exception: Exception) -> HttpResponse:
    """403: the reason the code gave (e.g. "You are not an author of deck 'x'."), in the app's
    page, or as JSON under /api/."""
    message = str(exception) or "You are not allowed to do this."
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message, "error": message}, status=403)
    context = {"title": "Not allowed", "message": message}
    return render(request, "error.html", context, status=403)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """400 for a request Django itself refused (too large a form, a host not allowed). Like the
    500 page, rendered without context processors or static tags: the request is suspect."""
    message = "The request could not be read: it may be too large or malformed."
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message, "error": message}, status=400)
    return HttpResponse(loader.get_template("400.html").render(), status=400)


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/"):
        message = "Something went wrong on our side; it has been logged. Try again shortly."
        return JsonResponse({"detail": message, "error": message}, status=500)
    # No context processors or database here: the page must render even when those fail.
    return HttpResponse(loader.get_template("500.html").render(), status=500)
