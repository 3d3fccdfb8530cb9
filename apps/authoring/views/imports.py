"""Author pages for import (upload, preview, commit; a large file as a worker's job) and export."""

import base64
import secrets
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect, HttpResponseStopPolling

from apps.authoring import selectors, services
from apps.authoring.formats import (
    IMPORT_FORMATS,
    ImportUploadCut,
    export_download,
    format_guess,
    limit_text,
)
from apps.authoring.forms import ImportForm
from apps.authoring.models import ImportJob
from apps.authoring.views.base import author_required
from apps.decks.content import MAX_FILE_BYTES, ContentError
from apps.decks.models import Deck
from config.errors import Forbidden

IMPORT_SESSION_KEY = "authoring_import"


@author_required
def export(request, slug: str, fmt: str):
    return export_download(selectors.deck_for_author(request.user, slug), fmt)


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
    return import_flow(request)


def import_flow(request, *, into: Deck | None = None):
    """The import page's flow for an author (any deck they author, or a new one) or, with
    `into`, for a learner importing into their own deck (the file's cards go there, whatever
    deck it names)."""
    form = ImportForm(request.POST or request.GET, request.FILES)
    form.is_valid()  # every field is optional text; what the file holds is checked below
    context: dict[str, Any] = {
        "formats": IMPORT_FORMATS,
        "limit": limit_text(),
        "decks": [] if into else selectors.authored_decks(request.user).order_by("title"),
        "values": form.values(),
        "own_deck": into,
        "page_url": reverse("mine:import", args=[into.slug])
        if into
        else reverse("authoring:import"),  # fmt: skip
    }
    if request.method != "POST":
        return render(request, "authoring/import.html", context)
    pending = request.session.get(IMPORT_SESSION_KEY)
    committing = form.cleaned_data["commit"] == "1"
    try:
        if committing:
            if not pending:
                raise ContentError("upload", "", "the preview expired; upload the file again")
            # The form names the preview it confirms: with two tabs, the session holds only the
            # last file previewed, which is not the one this button was shown for.
            confirmed = form.confirmed()
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
            if (pending.get("into") or None) != (into.slug if into else None):
                raise ContentError(
                    "upload", "", "the file previewed was for another deck; upload it again"
                )
        else:
            upload = form.cleaned_data["file"]
            if upload is None:
                raise ContentError("upload", "", "choose a file to import")
            # Read one byte past the limit at most: enough to refuse, never all of a huge file.
            data, filename = upload.read(MAX_FILE_BYTES + 1), upload.name
            options = form.options()
            if into is not None:
                options |= {"deck_slug": into.slug, "into": into.slug, "deck_title": ""}
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
        doc, result = services.file_import(
            data=data, filename=filename, options=options, user=request.user,
            dry_run=not committing,
        )  # fmt: skip
    except ContentError as exc:
        context["error"] = f"Nothing was imported. {exc}"
        return render(request, "authoring/import.html", context, status=400)
    except Forbidden as exc:
        context["error"] = f"Nothing was imported. {exc.message}"
        return render(request, "authoring/import.html", context, status=exc.status)
    except services.QuotaExceeded as exc:  # past the quota of one's own cards
        context["error"] = f"Nothing was imported. {exc.message}"
        return render(request, "authoring/import.html", context, status=exc.status)
    if committing:
        request.session.pop(IMPORT_SESSION_KEY, None)
        messages.success(request, f"Imported {result}.")
        url = deck_page(doc.slug, own=into is not None)
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


def deck_page(slug: str, *, own: bool) -> str:
    return reverse("mine:deck" if own else "authoring:deck", args=[slug])


def _own_import_job(request, pk: int) -> ImportJob:
    job = ImportJob.objects.filter(pk=pk, user=request.user).first()
    if job is None:
        raise Http404(f"You have no import job {pk}.")
    return job


@login_required
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
@login_required
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
    except services.ImportBusy as exc:  # shown on the job page, where the preview stays
        messages.error(request, exc.message)
        return redirect("authoring:import-job", pk=pk)
    return redirect("authoring:import-job", pk=job.pk)
