"""The author API under /api/author/: decks, sections, cards, quizzes and questions, revisions,
import and export. Session or token auth; staff, or an author of the deck in question (403
otherwise). Writes go through apps.authoring.services, like the author pages."""

from contextlib import contextmanager

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import Count, Max
from django.http import HttpResponse
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, permissions, status
from rest_framework.exceptions import APIException, NotFound, PermissionDenied, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.authoring import selectors, services
from apps.authoring.formats import (
    CONTENT_TYPES,
    EXPORT_FORMATS,
    ImportUploadCut,
    export_deck,
    import_document,
    limit_text,
)
from apps.authoring.models import ImportJob
from apps.authoring.serializers import (
    AuthorCardSerializer,
    AuthorDeckSerializer,
    AuthorQuestionSerializer,
    AuthorQuizSerializer,
    AuthorSectionSerializer,
    ImportJobSerializer,
    ImportResultSerializer,
    ImportSerializer,
    MoveSerializer,
    PreviewSerializer,
    RestoreSerializer,
    RevisionSerializer,
)
from apps.decks.content import MAX_FILE_BYTES, ContentError
from apps.decks.markdown import render_markdown
from apps.decks.models import Card, Section
from apps.quizzes.models import Question, Quiz

Source = services.Source


class IsAuthor(permissions.BasePermission):
    message = "Only staff and deck authors may use the author API."

    def has_permission(self, request, view) -> bool:
        return selectors.is_author(request.user)


@contextmanager
def service_errors():
    """Services raise django's ValidationError; the API answers 400 with the same messages."""
    try:
        yield
    except DjangoValidationError as exc:
        detail = exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        raise ValidationError(detail) from None


class AuthorView:
    permission_classes = [permissions.IsAuthenticated, IsAuthor]


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT


@contextmanager
def refused_as_conflict():
    """A delete the row's state forbids (a section with cards, a quiz with attempts) is a 409:
    the request was well formed, and becomes possible once the state changes."""
    try:
        yield
    except DjangoValidationError as exc:
        raise Conflict(" ".join(exc.messages)) from None


DELETE_REFUSED = extend_schema_view(
    delete=extend_schema(
        responses={
            204: None,
            409: OpenApiResponse(description="Refused while it still has cards or attempts."),
        }
    )
)


# Decks -------------------------------------------------------------------------------------


class DeckList(AuthorView, generics.ListCreateAPIView):
    """Decks the caller may author (all, for staff). POST creates a draft deck (staff only)."""

    serializer_class = AuthorDeckSerializer

    def get_queryset(self):
        return selectors.author_deck_list(self.request.user).order_by("title")

    def perform_create(self, serializer):
        data = serializer.validated_data
        with service_errors():
            deck = services.deck_create(
                user=self.request.user, slug=data["slug"], title=data["title"],
                description=data.get("description", ""), objectives=data.get("objectives", []),
            )  # fmt: skip
            if data.get("is_published"):
                services.deck_update(deck=deck, is_published=True)
        serializer.instance = deck


class DeckDetail(AuthorView, generics.RetrieveUpdateDestroyAPIView):
    """One deck: PATCH title, description, objectives or is_published (publish / unpublish).
    DELETE (staff only) removes the deck with its cards and every learner's progress on them."""

    serializer_class = AuthorDeckSerializer
    lookup_field = "slug"

    def get_object(self):
        return selectors.deck_for_author(self.request.user, self.kwargs["slug"])

    def perform_update(self, serializer):
        fields = {k: v for k, v in serializer.validated_data.items() if k != "slug"}
        with service_errors():
            serializer.instance = services.deck_update(deck=serializer.instance, **fields)

    def perform_destroy(self, deck):
        if not self.request.user.is_staff:
            raise PermissionDenied("Only staff may delete a deck.")
        deck.delete()


# Sections ----------------------------------------------------------------------------------


class SectionList(AuthorView, generics.ListCreateAPIView):
    """A deck's sections in order; POST adds one at the end."""

    serializer_class = AuthorSectionSerializer

    def deck(self):
        return selectors.deck_for_author(self.request.user, self.kwargs["slug"])

    def get_queryset(self):
        return self.deck().sections.order_by("order", "id")

    def perform_create(self, serializer):
        with service_errors():
            serializer.instance = services.section_create(
                deck=self.deck(), **serializer.validated_data
            )


@DELETE_REFUSED
class SectionDetail(AuthorView, generics.RetrieveUpdateDestroyAPIView):
    """One section. DELETE is refused while it still has cards."""

    serializer_class = AuthorSectionSerializer
    queryset = Section.objects.none()

    def get_object(self):
        return selectors.section_for_author(self.request.user, self.kwargs["pk"])

    def perform_update(self, serializer):
        with service_errors():
            services.section_update(section=serializer.instance, **serializer.validated_data)

    def perform_destroy(self, section):
        with refused_as_conflict():
            services.section_delete(section=section)


class SectionMove(AuthorView, APIView):
    @extend_schema(request=MoveSerializer, responses=AuthorSectionSerializer(many=True))
    def post(self, request, pk: int):
        """Move a section one place up or down; returns the deck's sections in order."""
        section = selectors.section_for_author(request.user, pk)
        move = MoveSerializer(data=request.data)
        move.is_valid(raise_exception=True)
        services.section_move(section=section, direction=move.validated_data["direction"])
        rows = section.deck.sections.order_by("order", "id")
        return Response(AuthorSectionSerializer(rows, many=True).data)


# Cards -------------------------------------------------------------------------------------


def _card_fields(validated: dict) -> tuple[dict, str, bool]:
    fields = dict(validated)
    fields.pop("demos", None)  # linked separately, see _demos_link
    note = fields.pop("note", "")
    changes_answer = fields.pop("changes_answer", False)
    if "section" in fields:
        fields["section"] = fields["section"]["slug"]
    if "source" in fields:
        fields["card_source"] = fields.pop("source")
    return fields, note, changes_answer


def _demos_link(card, validated: dict) -> None:
    if "demos" in validated:
        with service_errors():
            services.card_demos_link(card=card, demos=validated["demos"])


class CardList(AuthorView, generics.ListCreateAPIView):
    """A deck's cards in section order. POST creates one at the end of its section."""

    serializer_class = AuthorCardSerializer

    def deck(self):
        return selectors.deck_for_author(self.request.user, self.kwargs["slug"])

    def get_queryset(self):
        return (
            self.deck()
            .cards.select_related("deck", "section")
            .annotate(latest_revision=Max("revisions__number"))
            .prefetch_related("demo_links")
            .order_by("section__order", "order", "id")
        )

    def perform_create(self, serializer):
        fields, note, _ = _card_fields(serializer.validated_data)
        with service_errors(), transaction.atomic():
            serializer.instance = services.card_create(
                deck=self.deck(), author=self.request.user, note=note, source=Source.API,
                **fields,
            )  # fmt: skip
            _demos_link(serializer.instance, serializer.validated_data)


class CardDetail(AuthorView, generics.RetrieveUpdateDestroyAPIView):
    """One card. PUT/PATCH edit it in place and record a revision; learners keep their
    schedules unless `changes_answer` is true, which makes it due now for each of them."""

    serializer_class = AuthorCardSerializer
    queryset = Card.objects.none()

    def get_object(self):
        return selectors.card_for_author(self.request.user, self.kwargs["pk"])

    def perform_update(self, serializer):
        fields, note, changes_answer = _card_fields(serializer.validated_data)
        with service_errors(), transaction.atomic():
            services.card_update(
                card=serializer.instance, author=self.request.user, note=note,
                changes_answer=changes_answer, source=Source.API, **fields,
            )  # fmt: skip
            _demos_link(serializer.instance, serializer.validated_data)

    def perform_destroy(self, card):
        services.card_delete(card=card)


class CardMove(AuthorView, APIView):
    @extend_schema(request=MoveSerializer, responses=AuthorCardSerializer(many=True))
    def post(self, request, pk: int):
        """Move a card one place up or down in its section; returns the section's cards."""
        card = selectors.card_for_author(request.user, pk)
        move = MoveSerializer(data=request.data)
        move.is_valid(raise_exception=True)
        services.card_move(card=card, direction=move.validated_data["direction"])
        rows = card.section.cards.select_related("deck", "section").order_by("order", "id")
        return Response(AuthorCardSerializer(rows, many=True).data)


class CardRevisions(AuthorView, generics.ListAPIView):
    """The card's revisions, newest first."""

    serializer_class = RevisionSerializer
    pagination_class = None

    def get_queryset(self):
        card = selectors.card_for_author(self.request.user, self.kwargs["pk"])
        return card.revisions.select_related("author", "restored_from")


class QuestionRevisions(CardRevisions):
    """The question's revisions, newest first."""

    def get_queryset(self):
        question = selectors.question_for_author(self.request.user, self.kwargs["pk"])
        return question.revisions.select_related("author", "restored_from")


class RevisionRestore(AuthorView, APIView):
    @extend_schema(
        request=RestoreSerializer,
        responses={201: RevisionSerializer, 200: OpenApiResponse(description="already current")},
    )
    def post(self, request, pk: int):
        """Restore a revision: its fields become current, recorded as a new revision."""
        revision = selectors.revision_for_author(request.user, pk)
        body = RestoreSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with service_errors():
            new = services.revision_restore(
                revision=revision, author=request.user,
                changes_answer=body.validated_data["changes_answer"],
            )  # fmt: skip
        if new is None:
            return Response({"detail": f"revision {revision.number} is already current"})
        return Response(RevisionSerializer(new).data, status=status.HTTP_201_CREATED)


# Quizzes and questions ---------------------------------------------------------------------


def _quiz_fields(validated: dict) -> dict:
    fields = dict(validated)
    if "section" in fields:
        fields["section"] = (fields["section"] or {}).get("slug") if fields["section"] else None
    return fields


class QuizList(AuthorView, generics.ListCreateAPIView):
    """A deck's quizzes. POST creates one (its questions are added one by one)."""

    serializer_class = AuthorQuizSerializer

    def deck(self):
        return selectors.deck_for_author(self.request.user, self.kwargs["slug"])

    def get_queryset(self):
        return (
            self.deck()
            .quizzes.select_related("deck", "section")
            .annotate(question_count=Count("questions"))
        )

    def perform_create(self, serializer):
        with service_errors():
            serializer.instance = services.quiz_save(
                deck=self.deck(), **_quiz_fields(serializer.validated_data)
            )


@DELETE_REFUSED
class QuizDetail(AuthorView, generics.RetrieveUpdateDestroyAPIView):
    """One quiz's own fields. DELETE is refused once learners have attempts."""

    serializer_class = AuthorQuizSerializer
    lookup_field = "slug"
    queryset = Quiz.objects.none()

    def get_object(self):
        return selectors.quiz_for_author(self.request.user, self.kwargs["slug"])

    def perform_update(self, serializer):
        with service_errors():
            services.quiz_save(
                deck=serializer.instance.deck, quiz=serializer.instance,
                **_quiz_fields(serializer.validated_data),
            )  # fmt: skip

    def perform_destroy(self, quiz):
        with refused_as_conflict():
            services.quiz_delete(quiz=quiz)


def _question_out(question: Question) -> dict:
    return {"id": question.pk, "quiz": question.quiz.slug, **services.question_data(question)}


def _question_doc(validated: dict) -> tuple[dict, str]:
    data = dict(validated)
    note = data.pop("note", "")
    return data, note


class QuestionList(AuthorView, APIView):
    def quiz(self):
        return selectors.quiz_for_author(self.request.user, self.kwargs["slug"])

    @extend_schema(responses=AuthorQuestionSerializer(many=True))
    def get(self, request, slug: str):
        """The quiz's questions in the quiz file format, answers included (authors only)."""
        questions = (
            self.quiz()
            .questions.select_related("quiz")
            .prefetch_related("cards", "choices", "statements", "pairs")
        )
        return Response([_question_out(q) for q in questions])

    @extend_schema(request=AuthorQuestionSerializer, responses={201: AuthorQuestionSerializer})
    def post(self, request, slug: str):
        """Add a question; it is validated like a quiz file entry."""
        quiz = self.quiz()
        body = AuthorQuestionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data, note = _question_doc(body.validated_data)
        with service_errors():
            question, _ = services.question_save(
                quiz=quiz, data=data, author=request.user, note=note, source=Source.API
            )
        return Response(_question_out(question), status=status.HTTP_201_CREATED)


class QuestionDetail(AuthorView, APIView):
    def question(self):
        return selectors.question_for_author(self.request.user, self.kwargs["pk"])

    @extend_schema(responses=AuthorQuestionSerializer)
    def get(self, request, pk: int):
        return Response(_question_out(self.question()))

    def _save(self, request, partial: bool):
        question = self.question()
        current = services.question_data(question)
        body = AuthorQuestionSerializer(data=request.data, partial=partial)
        body.is_valid(raise_exception=True)
        data, note = _question_doc(body.validated_data)
        if partial:
            kind = data.get("kind", current["kind"])
            if kind != current["kind"]:
                for key in ("choices", "statements", "pairs"):
                    current.pop(key, None)
            data = {**current, **data}
        with service_errors():
            question, _ = services.question_save(
                quiz=question.quiz, question=question, data=data, author=request.user,
                note=note, source=Source.API,
            )  # fmt: skip
        return Response(_question_out(question))

    @extend_schema(request=AuthorQuestionSerializer, responses=AuthorQuestionSerializer)
    def put(self, request, pk: int):
        """Replace the question; choices whose text is unchanged keep their public keys."""
        return self._save(request, partial=False)

    @extend_schema(request=AuthorQuestionSerializer, responses=AuthorQuestionSerializer)
    def patch(self, request, pk: int):
        """Change some fields of the question."""
        return self._save(request, partial=True)

    @extend_schema(responses={204: None})
    def delete(self, request, pk: int):
        services.question_delete(question=self.question())
        return Response(status=status.HTTP_204_NO_CONTENT)


# Import, export, preview -------------------------------------------------------------------


class DeckImport(AuthorView, APIView):
    parser_classes = [MultiPartParser, FormParser]

    def initialize_request(self, request, *args, **kwargs):
        # Cut the upload at the limit as it streams in, before anything parses the body.
        request.upload_handlers.insert(0, ImportUploadCut(request))
        return super().initialize_request(request, *args, **kwargs)

    @extend_schema(
        request={"multipart/form-data": ImportSerializer},
        parameters=[
            OpenApiParameter("dry_run", bool, description="1: count changes, write nothing")
        ],
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
        body = ImportSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        options = body.validated_data
        dry_run = dry_run_param(request)
        upload = options["file"]
        # Read one byte past the limit at most: enough to refuse, never the whole of a huge file.
        data = upload.read(MAX_FILE_BYTES + 1)
        if INLINE_IMPORT_MAX_BYTES < len(data) <= MAX_FILE_BYTES:
            # Too large to parse and write within a request: the worker does it (202).
            return import_job_response(request, data, upload.name, options, dry_run)
        try:
            doc = import_document(
                data, filename=upload.name, fmt=options.get("format"),
                deck_slug=options.get("deck", ""), deck_title=options.get("title", ""),
                section=options.get("section", ""),
            )  # fmt: skip
            result = services.deck_import(
                doc=doc, user=request.user, dry_run=dry_run, publish=options["publish"]
            )
        except ContentError as exc:
            raise ValidationError({"file": f"Nothing was imported. {exc}"}) from None
        except DjangoValidationError as exc:
            raise ValidationError({"file": " ".join(exc.messages)}) from None
        out = ImportResultSerializer(
            {"deck": result.deck, "dry_run": dry_run, "created": result.created,
             "changed": result.changed, "unchanged": result.unchanged,
             "changed_slugs": result.changed_slugs, "created_slugs": result.created_slugs,
             "retired": result.retired, "warnings": result.warnings,
             "notes": doc.notes}
        )  # fmt: skip
        return Response(out.data, status=status.HTTP_200_OK if dry_run else 201)


INLINE_IMPORT_MAX_BYTES = services.INLINE_IMPORT_MAX_BYTES


def dry_run_param(request) -> bool:
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


def import_job_response(request, data: bytes, filename: str, options: dict, dry_run: bool):
    import_precheck(data, filename, options)
    job_options = {
        "fmt": options.get("format"), "deck_slug": options.get("deck", ""),
        "deck_title": options.get("title", ""), "section": options.get("section", ""),
        "publish": options["publish"],
    }  # fmt: skip
    try:
        job = services.import_job_create(
            user=request.user, data=data, filename=filename, options=job_options,
            dry_run=dry_run,
        )  # fmt: skip
    except services.ImportBusy as exc:
        raise Conflict(str(exc)) from None
    body = ImportJobSerializer(import_job_data(job)).data
    code = status.HTTP_503_SERVICE_UNAVAILABLE if job.status == "failed" else 202
    return Response(body, status=code, headers={"Location": body["url"]})


class ImportJobCreate(DeckImport):
    @extend_schema(
        request={"multipart/form-data": ImportSerializer},
        parameters=[
            OpenApiParameter("dry_run", bool, description="1: count changes, write nothing")
        ],
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
        body = ImportSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        options = body.validated_data
        dry_run = dry_run_param(request)
        upload = options["file"]
        data = upload.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise ValidationError(
                {"file": f"Nothing was imported. The file is over {limit_text()}."}
            )
        return import_job_response(request, data, upload.name, options, dry_run)


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
        deck = selectors.deck_for_author(request.user, slug)
        if fmt not in EXPORT_FORMATS:
            raise NotFound(f"No export format {fmt!r}; use one of {', '.join(EXPORT_FORMATS)}.")
        response = HttpResponse(export_deck(deck, fmt), content_type=CONTENT_TYPES[fmt])
        response["Content-Disposition"] = f'attachment; filename="{deck.slug}.{fmt}"'
        return response


class MarkdownPreview(AuthorView, APIView):
    @extend_schema(request=PreviewSerializer, responses=PreviewSerializer)
    def post(self, request):
        """Markdown rendered and sanitised exactly as learners will see it."""
        body = PreviewSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        text = body.validated_data["text"]
        return Response({"text": text, "html": render_markdown(text)})


urlpatterns = [
    path("author/decks/", DeckList.as_view(), name="api-author-decks"),
    path("author/decks/<slug:slug>/", DeckDetail.as_view(), name="api-author-deck"),
    path("author/decks/<slug:slug>/sections/", SectionList.as_view(), name="api-author-sections"),
    path("author/decks/<slug:slug>/cards/", CardList.as_view(), name="api-author-cards"),
    path("author/decks/<slug:slug>/quizzes/", QuizList.as_view(), name="api-author-quizzes"),
    path(
        "author/decks/<slug:slug>/export/<str:fmt>/",
        DeckExport.as_view(),
        name="api-author-export",
    ),
    path("author/sections/<int:pk>/", SectionDetail.as_view(), name="api-author-section"),
    path("author/sections/<int:pk>/move/", SectionMove.as_view(), name="api-author-section-move"),
    path("author/cards/<int:pk>/", CardDetail.as_view(), name="api-author-card"),
    path("author/cards/<int:pk>/move/", CardMove.as_view(), name="api-author-card-move"),
    path(
        "author/cards/<int:pk>/revisions/",
        CardRevisions.as_view(),
        name="api-author-card-revisions",
    ),
    path(
        "author/revisions/<int:pk>/restore/",
        RevisionRestore.as_view(),
        name="api-author-revision-restore",
    ),
    path("author/quizzes/<slug:slug>/", QuizDetail.as_view(), name="api-author-quiz"),
    path(
        "author/quizzes/<slug:slug>/questions/",
        QuestionList.as_view(),
        name="api-author-questions",
    ),
    path("author/questions/<int:pk>/", QuestionDetail.as_view(), name="api-author-question"),
    path(
        "author/questions/<int:pk>/revisions/",
        QuestionRevisions.as_view(),
        name="api-author-question-revisions",
    ),
    path("author/import/", DeckImport.as_view(), name="api-author-import"),
    path("author/imports/", ImportJobCreate.as_view(), name="api-author-import-jobs"),
    path("author/imports/<int:pk>/", ImportJobDetail.as_view(), name="api-author-import-job"),
    path("author/preview/", MarkdownPreview.as_view(), name="api-author-preview"),
]
