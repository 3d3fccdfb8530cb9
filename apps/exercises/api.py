"""The exercises API: list and read exercises (never their hidden tests), queue a Run or a
Submit, read its result, and the learner's exercises due today (their own kind, beside the card
queue at /api/study/queue/)."""

from django.urls import path
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.exercises import selectors, services
from apps.exercises.limits import shown_limits
from apps.exercises.models import Exercise
from apps.exercises.serializers import (
    DueExerciseSerializer,
    ExerciseDetailSerializer,
    ExerciseListSerializer,
    SubmissionCreateSerializer,
    SubmissionSerializer,
)

ERROR = OpenApiResponse(description='JSON with an "error" sentence saying why.')


def _listed(exercise: Exercise) -> dict:
    return {
        "slug": exercise.slug,
        "title": exercise.title,
        "deck": exercise.deck.slug,
        "section": exercise.section.slug if exercise.section else None,
        "revision": exercise.live_revision.number,
        "url": exercise.get_absolute_url(),
    }


class ExerciseList(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: ExerciseListSerializer(many=True)})
    def get(self, request: Request) -> Response:
        rows = [_listed(e) for e in selectors.live_exercises(request.user)]
        return Response(ExerciseListSerializer(rows, many=True).data)


class ExerciseDetail(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        responses={200: ExerciseDetailSerializer, 404: ERROR},
        description="The exercise as a learner sees it: prompt, starter code and the visible "
        "example tests. The hidden tests, the reference and the wrong solutions never leave "
        "the server.",
    )
    def get(self, request: Request, slug: str) -> Response:
        exercise = selectors.exercise_detail(request.user, slug)
        revision = exercise.live_revision
        doc = {
            **_listed(exercise),
            "prompt": revision.prompt,
            "prompt_html": revision.prompt_html,
            "starter": revision.starter,
            "examples": revision.examples,
            "source": revision.source,
            "cards": [
                {"id": c.pk, "slug": c.slug, "url": c.get_absolute_url()}
                for c in exercise.cards.all()
            ],
            "limits": shown_limits(revision.runtime),
        }
        return Response(ExerciseDetailSerializer(doc).data)


class SubmissionCreate(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=SubmissionCreateSerializer,
        responses={
            202: SubmissionSerializer,
            200: OpenApiResponse(SubmissionSerializer, description="The same client_id again: "
                                 "the submission it made, not a second one."),
            400: ERROR,
            404: ERROR,
            409: OpenApiResponse(description="Your previous run of this exercise has no result "
                                 "yet; `submission` is its id."),
        },
        description="Queue a Run (mode `run`: the example tests) or a Submit (mode `submit`, "
        "the default: every test, graded and scheduled). The result comes from "
        "GET /api/exercise-submissions/{id}/ once the sandbox worker has run it. 400 for "
        "empty code, code over the size limit or with a NUL.",
    )  # fmt: skip
    def post(self, request: Request, slug: str) -> Response:
        exercise = selectors.exercise_detail(request.user, slug)
        body = SubmissionCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            submission, created = services.submission_create(
                user=request.user, exercise=exercise, code=body.validated_data["code"],
                mode=body.validated_data["mode"], client_id=body.validated_data.get("client_id"),
            )  # fmt: skip
        except services.StillRunning as exc:
            return Response(
                {"detail": exc.message, "error": exc.message, "submission": exc.submission.pk},
                status=status.HTTP_409_CONFLICT,
            )
        submission.exercise, submission.revision = exercise, exercise.live_revision
        return Response(
            SubmissionSerializer(submission).data,
            status=status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK,
        )


class SubmissionDetail(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        responses={200: SubmissionSerializer, 404: ERROR},
        description="A submission's status and, once run, each test's name, pass or fail and "
        "message, stdout and stderr (cut to a few KB), the time used and the revision of the "
        "exercise it ran against.",
    )
    def get(self, request: Request, pk: int) -> Response:
        return Response(SubmissionSerializer(selectors.user_submission(request.user, pk)).data)


class DueExercises(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: DueExerciseSerializer(many=True)})
    def get(self, request: Request) -> Response:
        due = selectors.due_exercises(request.user)
        return Response(DueExerciseSerializer(due, many=True).data)


urlpatterns = [
    path("exercises/", ExerciseList.as_view(), name="api-exercise-list"),
    path("exercises/due/", DueExercises.as_view(), name="api-exercise-due"),
    path("exercises/<slug:slug>/", ExerciseDetail.as_view(), name="api-exercise-detail"),
    path(
        "exercises/<slug:slug>/submissions/",
        SubmissionCreate.as_view(),
        name="api-exercise-submissions",
    ),
    path(
        "exercise-submissions/<int:pk>/",
        SubmissionDetail.as_view(),
        name="api-exercise-submission",
    ),
]
