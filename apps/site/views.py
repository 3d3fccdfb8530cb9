"""The site's pages, composed from what the other apps provide: the home page with each deck's
guided path, the deck and section pages, the stats page, and the 400/403/404/500 handlers."""

import io
from datetime import timedelta
from functools import lru_cache

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import TooManyFieldsSent
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.template import loader
from PIL import Image, ImageDraw

from apps.accounts.models import profile_for
from apps.browse import selectors as browse_selectors
from apps.browse.services import BULK_MAX
from apps.charts.bars import bar_chart
from apps.charts.geometry import year_heatmap
from apps.decks import selectors as deck_selectors
from apps.demos.selectors import live_demos_by_card
from apps.exercises import selectors as exercise_selectors
from apps.interview import fitting, plan, tasks
from apps.quizzes import selectors as quiz_selectors
from apps.quizzes.forms import section_quiz_blocks
from apps.site import selectors
from apps.study import progress
from apps.study import selectors as study_selectors
from apps.study.services import section_read


def home(request: HttpRequest) -> HttpResponse:
    # The guided path is the lesson's: a learner's own decks are on the study page.
    decks = list(deck_selectors.deck_list(request.user).filter(owner=None))
    context: dict[str, object] = {"decks": decks}
    if request.user.is_authenticated:
        context |= _study_state(request.user, decks)
    context["formulas"] = progress.FORMULAS
    return render(request, "site/home.html", context)


def _study_state(user, decks: list) -> dict:
    """Each deck's counts and path, and the one next step over all of them (home and the study
    index show the same)."""
    counts = study_selectors.due_counts(
        user, card_counts={item.pk: item.card_count for item in decks}
    )
    paths = selectors.learning_path(user, decks)
    for item in decks:
        item.due = item.study = counts.get(item.pk, {"due": 0, "new": 0})
        item.path = paths[item.pk]
    date, line = plan.next_step(user), plan.today_line(user)
    actions = selectors.next_actions(
        decks, counts, paths, interview=selectors.interview_action(line),
        interview_mode=line is not None, has_plan=date is not None,
    )  # fmt: skip
    return {"next": actions, "interview": date, "line": line}


@login_required
def study_index(request: HttpRequest) -> HttpResponse:
    """Study home: the one next step, each deck with what is due today, and the ways in."""
    decks = list(deck_selectors.deck_list(request.user))
    context = _study_state(request.user, decks)
    total = {
        "due": sum(d.study["due"] for d in decks),
        "new": sum(d.study["new"] for d in decks),
    }
    context |= {
        "decks": decks,
        "total": total,
        "suspended": study_selectors.suspended_cards(request.user),
    }
    return render(request, "site/study.html", context)


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
        "section_exercises": exercise_selectors.section_exercises(request.user, section),
    }
    return render(request, "site/section.html", context)


@login_required
def stats(request: HttpRequest) -> HttpResponse:
    """Study's figures (heatmap, forecast, retention, mastery, leeches, calibration) beside each
    deck's readiness, which counts the quizzes' knowledge checks."""
    data = selectors.stats(request.user)
    # Held-out calibration (a big history's as the worker stored it), and the worker asked for
    # a refit when one is due (an old fit without held-out parameters shows the defaults until
    # then) or else for a fresh score when the stored one is stale.
    shown = fitting.stats_calibration(request.user)
    tasks.memory_fit_enqueue(request.user, due=shown.fit_due)
    if shown.refresh:
        tasks.calibration_refresh_enqueue(request.user)
    labels = [
        "today" if i == 0 else (data.today + timedelta(days=i)).strftime("%-d %b")
        for i in range(30)
    ]
    axes = {"x_label": "day", "y_label": "cards due"}
    # A laptop's chart and a phone's, each drawn at one unit to the pixel (the page shows one).
    heatmap = year_heatmap(data.per_day, data.today)
    heatmap_narrow = year_heatmap(data.per_day, data.today, weeks=25)
    forecast = bar_chart(data.forecast, labels, **axes)
    forecast_narrow = bar_chart(data.forecast, labels, width=340, **axes)
    retention = {
        name: {"passed": p, "reviewed": n, "pct": round(100 * p / n) if n else None}
        for name, (p, n) in data.retention.items()
    }
    context = {
        "stats": data,
        "heatmaps": [(heatmap, "wide"), (heatmap_narrow, "narrow")],
        "forecasts": [(forecast, "wide"), (forecast_narrow, "narrow")],
        "forecast_total": sum(data.forecast),
        "retention": retention,
        "busiest": max(data.per_day.values(), default=0),
        "calibration": shown.calibration,
        "calibration_shown": shown,
        "calibration_min": fitting.CALIBRATION_MIN_REVIEWS,
        "leeches": browse_selectors.leech_cards(request.user),
        "leech_threshold": profile_for(request.user).leech_threshold,
        "formulas": progress.FORMULAS,
        "exercises": exercise_selectors.exercise_figures(request.user),
    }
    return render(request, "site/stats.html", context)


@lru_cache(maxsize=1)
def _missing_image() -> bytes:
    """A small grey image with a cross: what a card shows where its image's file is gone."""
    image = Image.new("RGB", (160, 90), (226, 232, 240))
    draw = ImageDraw.Draw(image)
    draw.line((0, 0, 159, 89), fill=(148, 163, 184), width=3)
    draw.line((0, 89, 159, 0), fill=(148, 163, 184), width=3)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _image_headers(response: HttpResponseBase) -> HttpResponseBase:
    response["X-Content-Type-Options"] = "nosniff"
    # Opened on its own, the response is a picture and nothing else: no script, no embedding.
    response["Content-Security-Policy"] = "default-src 'none'; img-src 'self'; sandbox"
    response["Cache-Control"] = "private, max-age=3600"
    response["Cross-Origin-Resource-Policy"] = "same-origin"
    return response


def deck_media(request: HttpRequest, slug: str, name: str) -> HttpResponseBase:
    """A deck's image, to whoever may see the deck (its owner only for a private deck; 404 for
    anyone else): always as the image type it was checked to be, never larger than the cap. A
    row whose file the storage lost answers 404 with a placeholder picture, so the card shows
    where its image should be."""
    media = deck_selectors.visible_media(request.user, slug, name)
    if media is None:
        raise Http404("No such image.")
    try:
        if media.size > settings.MEDIA_MAX_BYTES:
            raise OSError("larger than the cap")
        stored = media.file.open("rb")
    except OSError:
        return _image_headers(HttpResponse(_missing_image(), content_type="image/png", status=404))
    return _image_headers(
        FileResponse(stored, content_type=media.content_type, filename=media.name)
    )


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
    message = getattr(exception, "sentence", None)
    if isinstance(exception, TooManyFieldsSent):
        message = (
            f"The form sent more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} fields, more "
            f"than any form here takes: a bulk action takes at most {BULK_MAX:,} cards."
        )
    if request.path.startswith("/api/"):
        message = message or "The request could not be read: it may be too large or malformed."
        return JsonResponse({"detail": message, "error": message}, status=400)
    return HttpResponse(loader.get_template("400.html").render({"message": message}), status=400)


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/"):
        message = "Something went wrong on our side; it has been logged. Try again shortly."
        return JsonResponse({"detail": message, "error": message}, status=500)
    # No context processors or database here: the page must render even when those fail.
    return HttpResponse(loader.get_template("500.html").render(), status=500)
