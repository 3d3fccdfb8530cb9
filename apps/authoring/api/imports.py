"""Import (inline, or as a worker's job), export, and the Markdown preview."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.authoring import selectors, services
from apps.authoring.api.base import AuthorView
from apps.authoring.formats import (
    CONTENT_TYPES,
    EXPORT_FORMATS,
    ImportUploadCut,
    export_download,
    limit_text,
)
from apps.authoring.models import ImportJob
from apps.authoring.serializers import (
    ImportJobSerializer,
    ImportResultSerializer,
    ImportSerializer,
    PreviewSerializer,
)
from apps.decks.content import MAX_FILE_BYTES, ContentError
from apps.decks.markdown import render_markdown

DRY_RUN = OpenApiParameter("dry_run", bool, description="1: count changes, write nothing")


def upload_read(request) -> tuple[dict, bool, str, bytes]:
    """The import form's options, ?dry_run, and the file's name and bytes: one byte past the
    limit at most, enough to refuse, never the whole of a huge file."""
    body = ImportSerializer(data=request.data)
    body.is_valid(raise_exception=True)
    upload = body.validated_data["file"]
    data = upload.read(MAX_FILE_BYTES + 1)
    return body.validated_data, dry_run_param(request), upload.name, data


class DeckImport(AuthorView, APIView):
    parser_classes = [MultiPartParser, FormParser]
    throttle_scope = "write"  # config.security.WriteThrottle: an import is costly work

    def initialize_request(self, request, *args, **kwargs):
        # Cut the upload at the limit as it streams in, before anything parses the body.
        request.upload_handlers.insert(0, ImportUploadCut(request))
        return super().initialize_request(request, *args, **kwargs)

    @extend_schema(
        request={"multipart/form-data": ImportSerializer},
        parameters=[DRY_RUN],
        responses={
            200: ImportResultSerializer,
            201: ImportResultSerializer,
            202: ImportJobSerializer,
            409: OpenApiResponse(description="Another import of this deck is queued or running."),
        },
    )
    def post(self, request):
        """Import a deck file (yaml/json, csv, anki text or an .apkg package; at most 2 MiB) in
        one transaction. With ?dry_run=1 nothing is written and the counts preview the import.
        A file over 64 KiB is imported by the worker instead: 202 with the job to poll (GET its
        url)."""
        options, dry_run, filename, data = upload_read(request)
        if INLINE_IMPORT_MAX_BYTES < len(data) <= MAX_FILE_BYTES:
            # Too large to parse and write within a request: the worker does it (202).
            return import_job_response(request, data, filename, options, dry_run)
        try:
            doc, result = services.file_import(
                data=data, filename=filename, options=job_options(options), user=request.user,
                dry_run=dry_run,
            )  # fmt: skip
        except ContentError as exc:
            raise ValidationError({"file": f"Nothing was imported. {exc}"}) from None
        out = ImportResultSerializer(
            services.import_result_data(result, dry_run=dry_run, notes=doc.notes)
        )
        return Response(out.data, status=status.HTTP_200_OK if dry_run else 201)


INLINE_IMPORT_MAX_BYTES = services.INLINE_IMPORT_MAX_BYTES


def dry_run_param(request) -> bool:
    """?dry_run, the one query parameter an import takes; any other is refused, as the schema
    says, and so is dry_run given twice."""
    for name in request.query_params:
        if name != "dry_run":
            raise ValidationError(
                {name[:40]: f"unknown query parameter {name[:40]!r} (allowed: dry_run)"}
            )
    if len(request.query_params.getlist("dry_run")) > 1:
        raise ValidationError({"dry_run": "give dry_run once, not several times"})
    value = request.query_params.get("dry_run", "").strip().lower()
    if value in ("1", "true", "yes"):
        return True
    if value in ("", "0", "false", "no"):
        return False
    raise ValidationError({"dry_run": f"dry_run must be true or false (1 or 0), got {value!r}"})


def import_job_data(job) -> dict:
    return {
        "id": job.pk, "status": job.status, "progress": services.import_job_progress(job),
        "deck_slug": job.deck_slug, "filename": job.filename, "dry_run": job.dry_run,
        "rows_total": job.rows_total, "result": job.result, "error": job.error,
        "created_at": job.created_at, "finished_at": job.finished_at,
        "url": f"/api/author/imports/{job.pk}/",
    }  # fmt: skip


def import_precheck(data: bytes, filename: str, options: dict) -> None:
    try:
        services.import_precheck(
            data=data, filename=filename, fmt=options.get("format"), deck_slug=options.get("deck")
        )
    except ContentError as exc:
        raise ValidationError({"file": f"Nothing was imported. {exc}"}) from None


def job_options(options: dict) -> dict:
    """The upload's fields under the names the import services (and a job) keep."""
    return {
        "fmt": options.get("format"), "deck_slug": options.get("deck", ""),
        "deck_title": options.get("title", ""), "section": options.get("section", ""),
        "publish": options["publish"],
    }  # fmt: skip


def import_job_response(request, data: bytes, filename: str, options: dict, dry_run: bool):
    import_precheck(data, filename, options)
    job = services.import_job_create(
        user=request.user,
        data=data,
        filename=filename,
        options=job_options(options),
        dry_run=dry_run,
    )  # ImportBusy, a Conflict, answers 409
    body = ImportJobSerializer(import_job_data(job)).data
    code = status.HTTP_503_SERVICE_UNAVAILABLE if job.status == "failed" else 202
    return Response(body, status=code, headers={"Location": body["url"]})


class ImportJobCreate(DeckImport):
    @extend_schema(
        request={"multipart/form-data": ImportSerializer},
        parameters=[DRY_RUN],
        responses={
            202: ImportJobSerializer,
            409: OpenApiResponse(description="Another import of this deck is queued or running."),
            503: ImportJobSerializer,
        },
    )
    def post(self, request):
        """Hand a deck file (at most 2 MiB) to the worker, which imports it in one transaction:
        202 with the job; GET its url for the status, progress and counts. 503 with the failed
        job when the task broker is out of reach."""
        options, dry_run, filename, data = upload_read(request)
        if len(data) > MAX_FILE_BYTES:
            raise ValidationError(
                {"file": f"Nothing was imported. The file is over {limit_text()}."}
            )
        return import_job_response(request, data, filename, options, dry_run)


class ImportJobDetail(AuthorView, APIView):
    @extend_schema(responses={200: ImportJobSerializer})
    def get(self, request, pk: int):
        """An import job of yours: queued, running (with progress), succeeded (with the counts)
        or failed (with the reason nothing was imported)."""
        job = ImportJob.objects.filter(pk=pk, user=request.user).first()
        if job is None:
            raise NotFound(f"You have no import job {pk}.")
        return Response(ImportJobSerializer(import_job_data(job)).data)


class DeckExport(AuthorView, APIView):
    @extend_schema(
        parameters=[OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=EXPORT_FORMATS)],
        # Each format's own content type, as the response says (charset aside); json is the
        # deck file as a JSON object, yaml and csv are text, apkg (a zip) is binary.
        responses={
            (200, CONTENT_TYPES[fmt].split(";")[0]): (
                OpenApiTypes.OBJECT
                if fmt == "json"
                else OpenApiTypes.BINARY
                if fmt == "apkg"
                else OpenApiTypes.STR
            )
            for fmt in EXPORT_FORMATS
        },
        description="fmt: yaml or json (RayDeck's format), csv, or apkg (Anki package).",
    )
    def get(self, request, slug: str, fmt: str):
        """Download the deck as yaml, json, csv or apkg."""
        return export_download(selectors.deck_for_author(request.user, slug), fmt)


class MarkdownPreview(AuthorView, APIView):
    @extend_schema(request=PreviewSerializer, responses=PreviewSerializer)
    def post(self, request):
        """Markdown rendered and sanitised exactly as learners will see it."""
        body = PreviewSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        text = body.validated_data["text"]
        return Response({"text": text, "html": render_markdown(text)})
