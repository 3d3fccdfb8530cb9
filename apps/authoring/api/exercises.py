"""The author API for code exercises: a deck's exercises, one exercise's document and revisions,
import (each exercise then checked in the sandbox by the worker) and export. The same services
as the author pages; a document is an exercise entry of the file format (fixtures/exercises)."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.authoring import selectors
from apps.authoring.api.base import AuthorView
from apps.authoring.views.exercises import (
    MAX_UPLOAD,
    exercise_for_author,
    exercises_document,
    export_response,
)
from apps.decks.content import ContentError
from apps.exercises import selectors as exercise_selectors
from apps.exercises import services as exercise_services
from apps.exercises.content import exercise_file_parse, exercise_parse
from apps.exercises.models import ExerciseRevision
from config import limits


class WrongSolutionSerializer(serializers.Serializer):
    mistake = serializers.CharField()
    code = serializers.CharField(trim_whitespace=False)


class ExerciseDocumentSerializer(serializers.Serializer):
    """An exercise as the file format holds it: authors only (it has the hidden tests)."""

    slug = serializers.CharField()
    title = serializers.CharField()
    section = serializers.CharField(required=False, allow_blank=True)
    cards = serializers.ListField(child=serializers.CharField())
    # The stubs see Field.source (str | None) redefined; DRF's metaclass takes it as a field.
    source = serializers.CharField()  # type: ignore[assignment]
    prompt = serializers.CharField()
    starter = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    examples = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    tests = serializers.CharField(trim_whitespace=False)
    reference = serializers.CharField(trim_whitespace=False)
    wrong = WrongSolutionSerializer(many=True)


class ExerciseFileSerializer(serializers.Serializer):
    """An exercise file (the format of fixtures/exercises and of the export)."""

    deck = serializers.CharField()
    exercises = ExerciseDocumentSerializer(many=True)


class ExerciseRevisionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=ExerciseRevision.Status.choices)
    problems = serializers.ListField(child=serializers.CharField(), source="check_report.problems",
                                     default=list)  # fmt: skip
    made_by = serializers.CharField()
    note = serializers.CharField()
    created_at = serializers.DateTimeField()
    checked_at = serializers.DateTimeField(allow_null=True)


class ExerciseRowSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    live_revision = serializers.IntegerField(source="current.number", allow_null=True,
                                             default=None)  # fmt: skip
    latest = ExerciseRevisionSerializer(allow_null=True)


class ExerciseAuthorSerializer(serializers.Serializer):
    document = ExerciseDocumentSerializer()
    live_revision = serializers.IntegerField(allow_null=True)
    revisions = ExerciseRevisionSerializer(many=True)


class ImportBatchSerializer(serializers.Serializer):
    batch = serializers.UUIDField()
    unchanged = serializers.ListField(child=serializers.CharField(), required=False)
    revisions = serializers.ListField(child=serializers.DictField())


def _parse(deck, raw: dict):
    cards, sections = exercise_services.exercise_names(deck)
    where = limits.nul_path(raw)
    if where:
        raise ValidationError({where: ["a NUL character (\\u0000) is not allowed"]})
    try:
        return exercise_parse("request", "exercise", raw, card_names=cards, sections=sections)
    except ContentError as exc:
        raise ValidationError({"error": exc.problem, "detail": exc.problem}) from None


def _revision_body(revision: ExerciseRevision) -> dict:
    return {**ExerciseRevisionSerializer(revision).data, "exercise": revision.exercise.slug}


DOC_RESPONSES = {
    202: OpenApiResponse(ExerciseRevisionSerializer, description="Saved as a revision the "
                         "worker now checks in the sandbox; `status` turns accepted or refused."),
    200: OpenApiResponse(ExerciseRevisionSerializer, description="The same as the latest "
                         "revision: nothing written."),
    400: OpenApiResponse(description="The document, with the entry and problem named."),
}  # fmt: skip


class DeckExercises(AuthorView, APIView):
    @extend_schema(responses={200: ExerciseRowSerializer(many=True)})
    def get(self, request, slug: str):
        deck = selectors.deck_for_author(request.user, slug)
        return Response(ExerciseRowSerializer(exercise_selectors.deck_exercises(deck),
                                              many=True).data)  # fmt: skip

    @extend_schema(request=ExerciseDocumentSerializer, responses=DOC_RESPONSES)
    def post(self, request, slug: str):
        deck = selectors.deck_for_author(request.user, slug)
        if not isinstance(request.data, dict):
            raise ValidationError({"error": "send an exercise document (a JSON object)"})
        doc = _parse(deck, dict(request.data))
        revision, created = exercise_services.exercise_save(
            deck=deck, doc=doc, author=request.user, made_by=ExerciseRevision.Source.API
        )
        code = status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK
        return Response(_revision_body(revision), status=code)


class ExerciseAuthorDetail(AuthorView, APIView):
    @extend_schema(responses={200: ExerciseAuthorSerializer})
    def get(self, request, slug: str):
        exercise = exercise_for_author(request.user, slug)
        revisions = list(exercise.revisions.order_by("-number"))
        body = {
            "document": vars(exercise_selectors.revision_document(revisions[0])),
            "live_revision": exercise.current.number if exercise.current else None,
            "revisions": revisions,
        }
        return Response(ExerciseAuthorSerializer(body).data)

    @extend_schema(request=ExerciseDocumentSerializer, responses=DOC_RESPONSES)
    def put(self, request, slug: str):
        exercise = exercise_for_author(request.user, slug)
        if not isinstance(request.data, dict):
            raise ValidationError({"error": "send an exercise document (a JSON object)"})
        raw = {**dict(request.data), "slug": exercise.slug}
        doc = _parse(exercise.deck, raw)
        revision, created = exercise_services.exercise_save(
            deck=exercise.deck, doc=doc, author=request.user, made_by=ExerciseRevision.Source.API
        )
        code = status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK
        return Response(_revision_body(revision), status=code)


class ExerciseRevisionRestore(AuthorView, APIView):
    @extend_schema(request=None, responses=DOC_RESPONSES)
    def post(self, request, pk: int):
        revision = ExerciseRevision.objects.select_related("exercise").filter(pk=pk).first()
        if revision is None:
            raise NotFound("No such exercise revision.")
        exercise_for_author(request.user, revision.exercise.slug)
        restored, created = exercise_services.revision_restore(
            revision=revision, author=request.user
        )
        code = status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK
        return Response(_revision_body(restored), status=code)


class ExerciseImport(AuthorView, APIView):
    parser_classes = [MultiPartParser, JSONParser]
    throttle_scope = "write"

    @extend_schema(
        request={"multipart/form-data": {"type": "object", "properties": {
            "file": {"type": "string", "format": "binary"}}},
            "application/json": ExerciseFileSerializer},
        responses={202: ImportBatchSerializer, 400: OpenApiResponse(
            description="The file, with the entry and problem named: nothing written.")},
        description="An exercise file (YAML or JSON upload, or the document as a JSON body) "
        "for this deck. Each exercise becomes a revision the worker checks in the sandbox: one "
        "whose reference fails a test, or one of whose wrong solutions passes them all, is "
        "refused (see GET /api/author/exercise-imports/{batch}/).",
    )  # fmt: skip
    def post(self, request, slug: str):
        deck = selectors.deck_for_author(request.user, slug)
        upload = request.FILES.get("file") if hasattr(request, "FILES") else None
        try:
            if upload is not None:
                if upload.size > MAX_UPLOAD:
                    raise ContentError(upload.name, "", f"larger than {MAX_UPLOAD // 1024} KiB")
                doc = exercises_document(upload.read(), upload.name, deck)
            elif isinstance(request.data, dict) and "exercises" in request.data:
                names = lambda s: exercise_services.exercise_names(deck) if s == deck.slug else None  # noqa: E731
                doc = exercise_file_parse(dict(request.data), "request", names_of=names)
            else:
                raise ContentError("request", "", "send a file, or the document as JSON")
        except ContentError as exc:
            raise ValidationError({"error": f"Nothing was imported. {exc}"}) from None
        batch, unchanged = exercise_services.exercises_import(
            deck=deck, docs=doc.exercises, author=request.user,
            made_by=ExerciseRevision.Source.IMPORT,
        )  # fmt: skip
        revisions = [_revision_body(r) for r in exercise_selectors.import_batch(batch)]
        return Response({"batch": batch, "unchanged": unchanged, "revisions": revisions},
                        status=status.HTTP_202_ACCEPTED)  # fmt: skip


class ExerciseImportBatch(AuthorView, APIView):
    @extend_schema(responses={200: ImportBatchSerializer})
    def get(self, request, batch):
        revisions = exercise_selectors.import_batch(batch)
        if not revisions:
            raise NotFound("No such exercise import.")
        for revision in revisions:
            if not selectors.can_author(request.user, revision.exercise.deck):
                raise NotFound("No such exercise import.")
        return Response({"batch": batch, "revisions": [_revision_body(r) for r in revisions]})


class ExerciseExport(AuthorView, APIView):
    # The file as YAML text, or as the JSON document it is (what an import takes back).
    @extend_schema(
        responses={
            (200, "application/yaml"): str,
            (200, "application/json"): ExerciseFileSerializer,
        }
    )
    def get(self, request, slug: str, fmt: str):
        deck = selectors.deck_for_author(request.user, slug)
        return export_response(deck, fmt, NotFound)
