"""Author pages for code exercises: a deck's exercises, the editor with each revision's check,
import (each exercise checked in the sandbox by the worker: a failing reference or a passing wrong
solution refuses it) and export. Exercises own their content and revisions (apps.exercises);
these pages check authorship and call its services."""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.authoring import selectors
from apps.authoring.forms import WRONG_SLOTS, ExerciseForm
from apps.authoring.views.base import author_required
from apps.decks.content import ContentError
from apps.exercises import selectors as exercise_selectors
from apps.exercises import services as exercise_services
from apps.exercises.content import exercise_file_dump, exercise_file_read, exercise_parse
from apps.exercises.models import Exercise, ExerciseRevision
from config.errors import Forbidden

EXPORT_TYPES = {"yaml": "application/yaml", "json": "application/json"}
MAX_UPLOAD = 2 * 1024 * 1024


def exercise_for_author(user, slug: str) -> Exercise:
    exercise = get_object_or_404(Exercise.objects.select_related("deck"), slug=slug)
    if not selectors.can_author(user, exercise.deck):
        raise Forbidden(f"You are not an author of deck {exercise.deck.slug!r}.")
    return exercise


@author_required
def exercises(request, slug: str):
    deck = selectors.deck_for_author(request.user, slug)
    context = {"deck": deck, "exercises": exercise_selectors.deck_exercises(deck)}
    return render(request, "authoring/exercises.html", context)


def _editor(request, deck, exercise=None):
    revisions = list(exercise.revisions.order_by("-number")) if exercise else []
    form = ExerciseForm(request.POST or None)
    error, status = None, 200
    if request.method == "POST" and form.is_valid():
        raw = form.document()
        if exercise is not None:
            raw["slug"] = exercise.slug  # the slug is the exercise's identity
        if revisions:
            raw.setdefault("runtime", revisions[0].runtime)  # the form does not edit it
        cards, sections = exercise_services.exercise_names(deck)
        try:
            doc = exercise_parse("editor", "exercise", raw, card_names=cards, sections=sections)
            revision, created = exercise_services.exercise_save(
                deck=deck, doc=doc, author=request.user, note=form.cleaned_data["note"]
            )
        except ContentError as exc:
            error, status = exc.problem, 400
        else:
            if created:
                messages.success(
                    request,
                    f"Saved as revision {revision.number}: the worker checks it in the sandbox "
                    "(the reference must pass, each wrong solution fail) before learners see it.",
                )
            else:
                messages.info(request, "Nothing changed: no new revision.")
            return redirect("authoring:exercise", slug=revision.exercise.slug)
        values = form.values()
    elif request.method == "POST":
        error, status, values = " ".join(form.messages().values()), 400, form.values()
    elif exercise is not None and revisions:
        values = ExerciseForm.initial_from(exercise_selectors.revision_document(revisions[0]))
    else:
        values = {"section": request.GET.get("section", "")}
    context = {
        "deck": deck,
        "exercise": exercise,
        "revisions": revisions,
        "values": values,
        "error": error,
        "wrongs": [
            (i, values.get(f"wrong_{i}_mistake", ""), values.get(f"wrong_{i}_code", ""))
            for i in range(1, WRONG_SLOTS + 1)
        ],
        "sections": deck.sections.order_by("order", "id"),
    }
    return render(request, "authoring/exercise.html", context, status=status)


@author_required
def exercise_new(request, slug: str):
    return _editor(request, selectors.deck_for_author(request.user, slug))


@author_required
def exercise(request, slug: str):
    exercise = exercise_for_author(request.user, slug)
    return _editor(request, exercise.deck, exercise)


@require_POST
@author_required
def exercise_recheck(request, pk: int):
    revision = get_object_or_404(ExerciseRevision.objects.select_related("exercise"), pk=pk)
    exercise_for_author(request.user, revision.exercise.slug)
    exercise_services.revision_recheck(revision=revision)
    messages.info(request, f"Revision {revision.number} goes to the worker to be checked again.")
    return redirect("authoring:exercise", slug=revision.exercise.slug)


@require_POST
@author_required
def exercise_restore(request, pk: int):
    """An old revision's content saved as the next revision, checked like any other."""
    revision = get_object_or_404(ExerciseRevision.objects.select_related("exercise"), pk=pk)
    exercise = exercise_for_author(request.user, revision.exercise.slug)
    restored, created = exercise_services.revision_restore(revision=revision, author=request.user)
    if created:
        messages.success(request, f"Revision {revision.number} restored as revision "
                         f"{restored.number}; the worker checks it.")  # fmt: skip
    else:
        messages.info(request, f"Revision {revision.number} is already the latest.")
    return redirect("authoring:exercise", slug=exercise.slug)


@require_POST
@author_required
def exercise_import(request, slug: str):
    """A YAML or JSON exercise file for this deck: every exercise in it is written as a
    revision to be checked (the file must name this deck)."""
    deck = selectors.deck_for_author(request.user, slug)
    upload = request.FILES.get("file")
    back = reverse("authoring:exercises", args=[deck.slug])
    if upload is None:
        messages.error(request, "Choose an exercise file (YAML or JSON) to import.")
        return redirect(back)
    if upload.size > MAX_UPLOAD:
        messages.error(request, f"The file is larger than {MAX_UPLOAD // 1024} KiB.")
        return redirect(back)
    try:
        doc = exercises_document(upload.read(), upload.name, deck)
    except ContentError as exc:
        messages.error(request, f"Nothing was imported. {exc}")
        return redirect(back)
    batch, unchanged = exercise_services.exercises_import(
        deck=deck, docs=doc.exercises, author=request.user,
        made_by=ExerciseRevision.Source.IMPORT,
    )  # fmt: skip
    if unchanged:
        messages.info(request, f"Unchanged, not checked again: {', '.join(unchanged)}.")
    return redirect("authoring:exercise-import-batch", batch=batch)


def exercises_document(data: bytes, filename: str, deck):
    """An upload as a validated exercise file of `deck` (ContentError otherwise)."""

    def names_of(slug):
        return exercise_services.exercise_names(deck) if slug == deck.slug else None

    return exercise_file_read(data, filename or "upload", names_of=names_of)


@author_required
def exercise_import_batch(request, batch):
    revisions = exercise_selectors.import_batch(batch)
    if not revisions:
        raise Http404("No such exercise import.")
    for revision in revisions:
        if not selectors.can_author(request.user, revision.exercise.deck):
            raise Forbidden("You are not an author of this import's deck.")
    checking = any(r.status == ExerciseRevision.Status.CHECKING for r in revisions)
    context = {"revisions": revisions, "checking": checking, "deck": revisions[0].exercise.deck}
    return render(request, "authoring/exercise_import.html", context)


@author_required
def exercise_export(request, slug: str, fmt: str):
    deck = selectors.deck_for_author(request.user, slug)
    return export_response(deck, fmt, Http404)


def export_response(deck, fmt: str, missing) -> HttpResponse:
    """The deck's exercise file as a download; `missing` is the 404 of the caller's kind."""
    if fmt not in EXPORT_TYPES:
        raise missing(f"Export formats: {', '.join(EXPORT_TYPES)}.")
    text = exercise_file_dump(exercise_selectors.deck_exercise_file(deck), fmt)
    response = HttpResponse(text, content_type=f"{EXPORT_TYPES[fmt]}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{deck.slug}-exercises.{fmt}"'
    return response
