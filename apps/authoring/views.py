"""Author pages: decks, sections, cards and quiz questions, with live preview, history, import
and export. Every view requires a log-in (anonymous -> log-in page) and authorship of the deck
(otherwise 403); the checks live in selectors so the API applies the same ones."""

import base64
import secrets
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect, HttpResponseStopPolling

from apps.authoring import selectors, services
from apps.authoring.formats import (
    CONTENT_TYPES,
    EXPORT_FORMATS,
    IMPORT_FORMATS,
    ImportUploadCut,
    export_deck,
    format_guess,
    import_document,
    limit_text,
)
from apps.authoring.forms import OPTION_FIELD, OPTION_HELP, options_parse, options_text
from apps.authoring.models import ImportJob
from apps.decks.content import MAX_FILE_BYTES, ContentError
from apps.decks.markdown import cloze_preview, render_markdown
from apps.decks.models import Card
from apps.demos.ray_demos.catalogue import DEMOS
from apps.quizzes.models import Question, Quiz

PREVIEW_FIELDS = ("front", "back", "why", "prompt", "explanation", "summary", "description")
IMPORT_SESSION_KEY = "authoring_import"


def author_required(view):
    @wraps(view)
    @login_required
    def wrapped(request, *args, **kwargs):
        if not selectors.is_author(request.user):
            raise PermissionDenied("Only staff and deck authors may open the author pages.")
        return view(request, *args, **kwargs)

    return wrapped


def _errors(exc: ValidationError) -> dict[str, str]:
    if hasattr(exc, "error_dict"):
        return {k: " ".join(v) for k, v in exc.message_dict.items()}
    return {"__all__": " ".join(exc.messages)}


def _checked(request) -> bool:
    return request.POST.get("changes_answer") in ("on", "1", "true")


# Decks -------------------------------------------------------------------------------------


@author_required
def index(request):
    decks = selectors.author_deck_list(request.user).order_by("title")
    return render(
        request, "authoring/index.html",
        {"decks": decks, "export_formats": EXPORT_FORMATS, "errors": {}},
    )  # fmt: skip


@require_POST
@author_required
def deck_create(request):
    try:
        deck = services.deck_create(
            user=request.user, slug=request.POST.get("slug", ""),
            title=request.POST.get("title", ""),
        )  # fmt: skip
    except ValidationError as exc:
        decks = selectors.author_deck_list(request.user).order_by("title")
        context = {"decks": decks, "export_formats": EXPORT_FORMATS, "errors": _errors(exc),
                   "values": request.POST}  # fmt: skip
        return render(request, "authoring/index.html", context, status=400)
    messages.success(request, f"Deck {deck.slug} created as a draft.")
    return redirect("authoring:deck", slug=deck.slug)


@require_POST
@author_required
def deck_publish(request, slug: str):
    deck = selectors.deck_for_author(request.user, slug)
    services.deck_update(deck=deck, is_published=request.POST.get("publish") == "1")
    if request.htmx:
        deck = selectors.author_deck_list(request.user).get(pk=deck.pk)
        return render(request, "authoring/index.html#deck-row", {"deck": deck,
                      "export_formats": EXPORT_FORMATS})  # fmt: skip
    state = "published" if deck.is_published else "a draft"
    messages.success(request, f"{deck.title} is now {state}.")
    back = request.POST.get("next", "")
    safe = url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return redirect(back if safe else reverse("authoring:index"))


@author_required
def deck(request, slug: str):
    deck = selectors.deck_for_author(request.user, slug)
    errors = {}
    values = {"title": deck.title, "description": deck.description,
              "objectives": "\n".join(deck.objectives)}  # fmt: skip
    if request.method == "POST":
        values = {key: request.POST.get(key, "") for key in values}
        try:
            services.deck_update(deck=deck, **values)
        except ValidationError as exc:
            errors = _errors(exc)
            deck.refresh_from_db()  # the heading shows what is saved, the form what was typed
        else:
            messages.success(request, "Deck saved.")
            return redirect("authoring:deck", slug=deck.slug)
    context = {
        "deck": deck,
        "values": values,
        "description_preview": render_markdown(values["description"]),
        "sections": selectors.deck_structure(deck),
        "quizzes": deck.quizzes.select_related("section"),
        "quiz_kinds": Quiz.Kind.choices,
        "authors": deck.authors.select_related("user").order_by("user__username"),
        "errors": errors,
        "export_formats": EXPORT_FORMATS,
    }
    return render(request, "authoring/deck.html", context, status=400 if errors else 200)


@require_POST
@author_required
def deck_authors(request, slug: str):
    """Staff grant or revoke a user's authorship of one deck."""
    deck = selectors.deck_for_author(request.user, slug)
    try:
        if request.POST.get("revoke"):
            user_id = request.POST["revoke"]
            if not user_id.isdigit():
                problem = f"No author to remove: {user_id!r} is no user id."
                raise ValidationError({"revoke": problem})
            services.deck_author_revoke(deck=deck, by=request.user, user_id=int(user_id))
            messages.success(request, "Author removed.")
        else:
            grant = services.deck_author_grant(
                deck=deck, by=request.user, username=request.POST.get("username", "")
            )
            messages.success(request, f"{grant.user.username} may now author {deck.title}.")
    except ValidationError as exc:
        messages.error(request, " ".join(_errors(exc).values()))
    return redirect(reverse("authoring:deck", args=[deck.slug]) + "#authors")


def _structure(request, deck):
    if request.htmx:
        context = {"deck": deck, "sections": selectors.deck_structure(deck)}
        return render(request, "authoring/deck.html#structure", context)
    return redirect("authoring:deck", slug=deck.slug)


@require_POST
@author_required
def section_create(request, slug: str):
    deck = selectors.deck_for_author(request.user, slug)
    try:
        services.section_create(
            deck=deck, slug=request.POST.get("slug", ""), title=request.POST.get("title", ""),
            summary=request.POST.get("summary", ""),
        )  # fmt: skip
    except ValidationError as exc:
        messages.error(request, " ".join(_errors(exc).values()))
    return redirect("authoring:deck", slug=deck.slug)


@author_required
def section(request, pk: int):
    section = selectors.section_for_author(request.user, pk)
    errors = {}
    values = {"slug": section.slug, "title": section.title, "summary": section.summary}
    if request.method == "POST":
        if not request.POST.get("delete"):
            values = {key: request.POST.get(key, "") for key in values}
        try:
            if request.POST.get("delete"):
                services.section_delete(section=section)
                messages.success(request, f"Section {section.slug} deleted.")
                return redirect("authoring:deck", slug=section.deck.slug)
            services.section_update(section=section, **values)
        except ValidationError as exc:
            errors = _errors(exc)
            section.refresh_from_db()  # the heading shows what is saved, the form what was typed
        else:
            messages.success(request, "Section saved.")
            return redirect("authoring:deck", slug=section.deck.slug)
    return render(
        request, "authoring/section.html",
        {"section": section, "errors": errors, "values": values,
         "summary_preview": render_markdown(values["summary"])},
        status=400 if errors else 200,
    )  # fmt: skip


@require_POST
@author_required
def section_move(request, pk: int):
    section = selectors.section_for_author(request.user, pk)
    services.section_move(section=section, direction=request.POST.get("direction", ""))
    return _structure(request, section.deck)


# Cards -------------------------------------------------------------------------------------


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


def _posted_card(request) -> dict:
    # An existing card's kind is not editable, so its form sends none.
    keys = [k for k in services.CARD_FIELDS if k != "kind" or k in request.POST]
    return {key: request.POST.get(key, "") for key in keys}


@author_required
def card_new(request, slug: str):
    deck = selectors.deck_for_author(request.user, slug)
    values = {"section": request.GET.get("section", ""), "tags": ""}
    errors = {}
    if request.method == "POST":
        values = _posted_card(request)
        try:
            card = services.card_create(
                deck=deck, author=request.user, note=request.POST.get("note", ""), **values
            )
        except ValidationError as exc:
            errors = _errors(exc)
        else:
            messages.success(request, f"Card {card.slug} created.")
            return redirect("authoring:card", pk=card.pk)
    return render(
        request, "authoring/card.html", _card_context(deck, None, values, errors),
        status=400 if errors else 200,
    )  # fmt: skip


@author_required
def card(request, pk: int):
    card = selectors.card_for_author(request.user, pk)
    values, errors = _card_values(card), {}
    if request.method == "POST":
        values = _posted_card(request)
        picked = request.POST.getlist("questions")
        chosen = Question.objects.filter(
            quiz__deck=card.deck, pk__in=[pk for pk in picked if pk.isdigit()]
        )
        try:
            if not all(pk.isdigit() for pk in picked):
                raise ValidationError({"questions": "not a quiz question of this deck"})
            with transaction.atomic():
                revision = services.card_update(
                    card=card, author=request.user, note=request.POST.get("note", ""),
                    changes_answer=_checked(request), **values,
                )  # fmt: skip
                if "questions_shown" in request.POST:
                    services.card_questions_link(card=card, questions=chosen, author=request.user)
                if "demos_shown" in request.POST:
                    services.card_demos_link(card=card, demos=request.POST.getlist("demos"))
        except ValidationError as exc:
            errors = _errors(exc)
        else:
            if revision is None:
                messages.info(request, "Nothing changed.")
            elif revision.changes_answer:
                messages.success(
                    request,
                    f"Saved revision {revision.number}; {revision.requeued} "
                    f"learner{pluralize(revision.requeued)} who studied this card review it again"
                    " now.",
                )
            else:
                messages.success(
                    request, f"Saved revision {revision.number}; learners' schedules are unchanged."
                )
            # A cloze edit that removed this card's deletion retired it: show the note's first.
            return redirect("authoring:card", pk=revision.card_id if revision else card.pk)
    return render(
        request, "authoring/card.html", _card_context(card.deck, card, values, errors),
        status=400 if errors else 200,
    )  # fmt: skip


@require_POST
@author_required
def card_move(request, pk: int):
    card = selectors.card_for_author(request.user, pk)
    services.card_move(card=card, direction=request.POST.get("direction", ""))
    return _structure(request, card.deck)


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
    try:
        new = services.revision_restore(
            revision=revision, author=request.user, changes_answer=_checked(request)
        )
    except ValidationError as exc:
        messages.error(request, " ".join(_errors(exc).values()))
    else:
        if new is None:
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
    field = next((k for k in PREVIEW_FIELDS if k in request.POST), "")
    html = _preview_html(field, request.POST.get(field, ""), request.POST.get("kind"))
    return render(request, "authoring/_preview.html", {"html": html})


# Quizzes -----------------------------------------------------------------------------------


def _posted_quiz(request) -> dict:
    limit = request.POST.get("time_limit_minutes", "").strip()
    try:
        pass_mark = int(request.POST.get("pass_percent", "70")) / 100
        time_limit = int(limit) * 60 if limit else None
    except ValueError:
        raise ValidationError({"pass_mark": "pass mark and time limit are whole numbers"}) from None
    return {
        "slug": request.POST.get("slug", ""),
        "title": request.POST.get("title", ""),
        "kind": request.POST.get("kind", ""),
        "section": request.POST.get("section") or None,
        "pass_mark": pass_mark,
        "time_limit_seconds": time_limit,
        "shuffle": request.POST.get("shuffle") == "on",
    }


@require_POST
@author_required
def quiz_create(request, slug: str):
    deck = selectors.deck_for_author(request.user, slug)
    try:
        quiz = services.quiz_save(deck=deck, **_posted_quiz(request))
    except ValidationError as exc:
        messages.error(request, "Quiz not created: " + " ".join(_errors(exc).values()))
        return redirect(reverse("authoring:deck", args=[deck.slug]) + "#quizzes")
    messages.success(request, f"Quiz {quiz.slug} created; add its questions.")
    return redirect("authoring:quiz", slug=quiz.slug)


@author_required
def quiz(request, slug: str):
    quiz = selectors.quiz_for_author(request.user, slug)
    errors = {}
    if request.method == "POST":
        try:
            quiz = services.quiz_save(deck=quiz.deck, quiz=quiz, **_posted_quiz(request))
        except ValidationError as exc:
            errors = _errors(exc)
        else:
            messages.success(request, "Quiz saved.")
            return redirect("authoring:quiz", slug=quiz.slug)
    context = {
        "quiz": quiz,
        "questions": quiz.questions.prefetch_related("cards"),
        "sections": quiz.deck.sections.order_by("order", "id"),
        "kinds": Quiz.Kind.choices,
        "errors": errors,
    }
    return render(request, "authoring/quiz.html", context, status=400 if errors else 200)


def _question_context(quiz, question, values, errors):
    kind = values.get("kind") or "single"
    return {
        "quiz": quiz,
        "question": question,
        "values": values,
        "errors": errors,
        "kinds": Question.Kind.choices,
        "cards": quiz.deck.cards.order_by("section__order", "order"),
        "option_help": OPTION_HELP,
        "option_field": OPTION_FIELD.get(kind, "choices"),
        "previews": {k: render_markdown(values.get(k, "")) for k in ("prompt", "explanation")},
    }


def _posted_question_values(request) -> dict:
    """What the author typed, as the form shows it again when something is wrong."""
    return {
        "slug": request.POST.get("slug", "").strip(),
        "kind": request.POST.get("kind", ""),
        "prompt": request.POST.get("prompt", ""),
        "explanation": request.POST.get("explanation", ""),
        "points": request.POST.get("points", "1"),
        "options": request.POST.get("options", ""),
        "cards": request.POST.getlist("cards"),
    }


def _posted_question(values: dict) -> dict:
    """The question document from the typed values, or a ValidationError naming the field."""
    try:
        points = int(values["points"])
    except ValueError:
        raise ValidationError({"points": "points must be a whole number from 1 to 100"}) from None
    data = {k: values[k] for k in ("slug", "kind", "prompt", "explanation", "cards")}
    data["points"] = points
    data.update(options_parse(values["kind"], values["options"]))
    return data


def _question_values(question) -> dict:
    data = services.question_data(question)
    return {**data, "options": options_text(data)}


@author_required
def question(request, pk: int | None = None, slug: str | None = None):
    if pk is not None:
        question = selectors.question_for_author(request.user, pk)
        quiz = question.quiz
        values = _question_values(question)
    else:
        quiz, question = selectors.quiz_for_author(request.user, slug), None
        values = {"kind": "single", "points": 1, "cards": [], "options": "[x] \n[ ] "}
    errors = {}
    if request.method == "POST":
        values = _posted_question_values(request)
        try:
            data = _posted_question(values)
            saved, revision = services.question_save(
                quiz=quiz, question=question, data=data, author=request.user,
                note=request.POST.get("note", ""),
            )  # fmt: skip
        except ValidationError as exc:
            errors = _errors(exc)
        else:
            messages.success(
                request,
                f"Saved revision {revision.number}." if revision else "Nothing changed.",
            )
            return redirect("authoring:question", pk=saved.pk)
    return render(
        request, "authoring/question.html", _question_context(quiz, question, values, errors),
        status=400 if errors else 200,
    )  # fmt: skip


@require_POST
@author_required
def question_move(request, pk: int):
    question = selectors.question_for_author(request.user, pk)
    services.question_move(question=question, direction=request.POST.get("direction", ""))
    if request.htmx:
        quiz = question.quiz
        context = {"quiz": quiz, "questions": quiz.questions.prefetch_related("cards")}
        return render(request, "authoring/quiz.html#questions", context)
    return redirect("authoring:quiz", slug=question.quiz.slug)


@author_required
def question_history(request, pk: int):
    question = selectors.question_for_author(request.user, pk)
    context = {"target": question, "kind": "question", "deck": question.quiz.deck,
               "revisions": selectors.revisions_of(question=question)}  # fmt: skip
    return render(request, "authoring/history.html", context)


@require_POST
@author_required
def question_delete(request, pk: int):
    question = selectors.question_for_author(request.user, pk)
    quiz = question.quiz
    services.question_delete(question=question)
    messages.success(request, f"Question {question.slug} deleted.")
    return redirect("authoring:quiz", slug=quiz.slug)


# Import and export -------------------------------------------------------------------------


@author_required
def export(request, slug: str, fmt: str):
    deck = selectors.deck_for_author(request.user, slug)
    if fmt not in EXPORT_FORMATS:
        raise Http404(f"No export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}.")
    response = HttpResponse(export_deck(deck, fmt), content_type=CONTENT_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{deck.slug}.{fmt}"'
    return response


def _import_options(source) -> dict:
    return {
        "fmt": source.get("format") or None,
        "deck_slug": (source.get("deck") or "").strip(),
        "deck_title": (source.get("title") or "").strip(),
        "section": (source.get("section") or "").strip(),
    }


def _is_apkg(options: dict, filename: str) -> bool:
    return (options.get("fmt") or format_guess(filename)) == "apkg"


@csrf_exempt
def import_page(request):
    """Upload -> preview (counts, nothing written) -> commit (one transaction). The uploaded
    text waits in the session between the two steps."""
    # The upload is cut at the limit as it streams in; that handler must be in place before
    # anything reads request.POST, so the CSRF check comes after it (csrf_protect below).
    request.upload_handlers.insert(0, ImportUploadCut(request))
    return _import_page(request)


@csrf_protect
@author_required
def _import_page(request):
    context = {
        "formats": IMPORT_FORMATS,
        "limit": limit_text(),
        "decks": selectors.authored_decks(request.user).order_by("title"),
        "values": request.POST or request.GET,
    }
    if request.method != "POST":
        return render(request, "authoring/import.html", context)
    pending = request.session.get(IMPORT_SESSION_KEY)
    committing = request.POST.get("commit") == "1"
    try:
        if committing:
            if not pending:
                raise ContentError("upload", "", "the preview expired; upload the file again")
            # The form names the preview it confirms: with two tabs, the session holds only the
            # last file previewed, which is not the one this button was shown for.
            confirmed = request.POST.get("preview")
            if confirmed is not None and confirmed != pending.get("preview"):
                raise ContentError(
                    "upload", "",
                    f"another file was previewed since this one ({pending['filename']});"
                    " upload the file you meant again",
                )  # fmt: skip
            data = (
                base64.b64decode(pending["b64"]) if "b64" in pending else pending["text"].encode()
            )
            filename, options = pending["filename"], pending
        else:
            upload = request.FILES.get("file")
            if upload is None:
                raise ContentError("upload", "", "choose a file to import")
            # Read one byte past the limit at most: enough to refuse, never all of a huge file.
            data, filename = upload.read(MAX_FILE_BYTES + 1), upload.name
            options = _import_options(request.POST)
            if services.INLINE_IMPORT_MAX_BYTES < len(data) <= MAX_FILE_BYTES:
                # Too large to read within a request: the worker previews it (a dry run).
                services.import_precheck(
                    data=data, filename=filename, fmt=options["fmt"],
                    deck_slug=options["deck_slug"],
                )  # fmt: skip
                job = services.import_job_create(
                    user=request.user, data=data, filename=filename, options=options,
                    dry_run=True,
                )  # fmt: skip
                url = reverse("authoring:import-job", args=[job.pk])
                return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
        doc = import_document(
            data, filename=filename, fmt=options["fmt"], deck_slug=options["deck_slug"],
            deck_title=options["deck_title"], section=options["section"],
        )  # fmt: skip
        result = services.deck_import(doc=doc, user=request.user, dry_run=not committing)
    except ContentError as exc:
        context["error"] = f"Nothing was imported. {exc}"
        return render(request, "authoring/import.html", context, status=400)
    except PermissionDenied as exc:
        context["error"] = f"Nothing was imported. {exc}"
        return render(request, "authoring/import.html", context, status=403)
    if committing:
        request.session.pop(IMPORT_SESSION_KEY, None)
        messages.success(request, f"Imported {result}.")
        url = reverse("authoring:deck", args=[doc.slug])
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    token = secrets.token_urlsafe(12)
    # A package is bytes (kept as base64); the text formats were checked to be UTF-8 text.
    kept = {"b64": base64.b64encode(data).decode()} if _is_apkg(options, filename) else {
        "text": data.decode("utf-8-sig")
    }  # fmt: skip
    request.session[IMPORT_SESSION_KEY] = {
        **kept, "filename": filename, "preview": token, **options,
    }  # fmt: skip
    context.update({"result": result, "filename": filename, "deck_slug": doc.slug,
                    "preview": token, "notes": doc.notes})  # fmt: skip
    return render(request, "authoring/import.html", context)


def _own_import_job(request, pk: int) -> ImportJob:
    job = ImportJob.objects.filter(pk=pk, user=request.user).first()
    if job is None:
        raise Http404(f"You have no import job {pk}.")
    return job


@author_required
def import_job(request, pk: int):
    """A large import's progress: the worker previews the file (a dry run), then, once
    confirmed, writes it; the page polls its status fragment until the job ends (286)."""
    job = _own_import_job(request, pk)
    context = {"job": job, "percent": round(100 * services.import_job_progress(job))}
    if request.htmx:
        response = render(request, "authoring/import_job.html#status", context)
        if job.finished:
            response.status_code = HttpResponseStopPolling.status_code
        return response
    return render(request, "authoring/import_job.html", context)


@require_POST
@author_required
def import_job_commit(request, pk: int):
    """Import the file a finished preview job read, as a new job (one per deck at a time)."""
    preview = _own_import_job(request, pk)
    if not (preview.dry_run and preview.status == ImportJob.Status.SUCCEEDED):
        messages.error(request, "Only a finished preview can be imported; upload the file again.")
        return redirect("authoring:import-job", pk=pk)
    try:
        job = services.import_job_create(
            user=request.user, data=bytes(preview.data), filename=preview.filename,
            options={**preview.options, "deck_slug": preview.deck_slug}, dry_run=False,
        )  # fmt: skip
    except services.ImportBusy as exc:
        messages.error(request, str(exc))
        return redirect("authoring:import-job", pk=pk)
    return redirect("authoring:import-job", pk=job.pk)
