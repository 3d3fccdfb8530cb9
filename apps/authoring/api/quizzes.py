"""Quizzes and their questions (in the quiz file format)."""

from django.db.models import Count
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.authoring import selectors, services
from apps.authoring.api.base import DELETE_REFUSED, AuthorView
from apps.authoring.serializers import AuthorQuestionSerializer, AuthorQuizSerializer
from apps.quizzes.content import SIZING_KEYS
from apps.quizzes.models import Question, Quiz

Source = services.Source


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
        services.quiz_save(
            deck=serializer.instance.deck, quiz=serializer.instance,
            **_quiz_fields(serializer.validated_data),
        )  # fmt: skip

    def perform_destroy(self, quiz):
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
                for key in ("choices", "statements", "pairs", "given", *SIZING_KEYS):
                    current.pop(key, None)
            data = {**current, **data}
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
