from django.db.models import Prefetch, prefetch_related_objects
from django.urls import path
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import generics, permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.decks.models import Card
from apps.quizzes import selectors, services
from apps.quizzes.models import Attempt, Question, Quiz
from apps.quizzes.serializers import (
    AttemptCreateSerializer,
    AttemptResultSerializer,
    QuizDetailSerializer,
    QuizListSerializer,
)

ERROR = OpenApiResponse(description='JSON with an "error" sentence naming the question and why.')


class QuizList(generics.ListAPIView):
    """Quizzes of the decks the caller can read: checkpoints and knowledge checks."""

    serializer_class = QuizListSerializer
    permission_classes = [permissions.AllowAny]
    pagination_class = None

    def get_queryset(self):
        return selectors.quiz_list(self.request.user)


def _option(key: str, text: str, html: str) -> dict:
    return {"id": key, "text": text, "text_html": html}


def evidence_document(question: Question) -> dict:
    """A debugging drill's scenario: the tool, what it printed, and where that came from."""
    evidence = question.evidence
    return {"tool": evidence["tool"], "output": evidence["output"], "source": evidence["source"]}


def quiz_document(quiz: Quiz, attempt: Attempt | None) -> dict:
    """The quiz as the API shows it before any answer: no field, id or order gives one away."""
    questions = []
    attempt_seed = attempt.seed if attempt else None
    seed = quiz.option_seed(attempt_seed)
    for question in quiz.ordered_questions(attempt_seed):
        draw = question.drawn(attempt_seed) if question.kind == Question.Kind.NUMERIC else None
        prompt, prompt_html = question.prompt_for(draw)
        shown = {
            "id": question.key,
            "kind": question.kind,
            "prompt": prompt,
            "prompt_html": prompt_html,
            "points": question.points,
        }
        if question.evidence:
            shown["evidence"] = evidence_document(question)
        if draw is not None:
            drill = question.sizing_drill()
            shown["unit"] = drill.unit
            shown["given"] = [
                {"name": r.name, "label": r.label, "value": draw.given[r.name], "unit": r.unit}
                for r in drill.given
            ]
        elif question.kind in (Question.Kind.SINGLE, Question.Kind.MULTI):
            shown["choices"] = [_option(c.key, c.text, c.text_html) for c in question.options(seed)]
        elif question.kind == Question.Kind.TRUE_FALSE:
            shown["statements"] = [
                _option(s.key, s.text, s.text_html) for s in question.shown_statements(seed)
            ]
        else:
            shown["left"] = [_option(p.left_key, p.left, p.left_html) for p in question.lefts(seed)]
            shown["right"] = [
                _option(p.right_key, p.right, p.right_html) for p in question.rights(seed)
            ]
        questions.append(shown)
    return {
        "slug": quiz.slug,
        "title": quiz.title,
        "kind": quiz.kind,
        "deck": quiz.deck.slug,
        "section": quiz.section.slug if quiz.section else None,
        "pass_mark": float(quiz.pass_mark),
        "time_limit_seconds": quiz.time_limit_seconds,
        "question_count": len(questions),
        "attempt": attempt,
        "questions": questions,
    }


class QuizDetail(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        responses={200: QuizDetailSerializer, 404: ERROR},
        description="A quiz with its questions and options, never its answers: options carry "
        "opaque ids in an order unrelated to which is right, and matching's right column is "
        "shuffled. For a timed quiz a signed-in caller's GET starts (or resumes) the attempt "
        "whose deadline the server enforces when the answers are posted; so it does for a quiz "
        "with sizing drills (kind numeric), whose numbers are drawn for that attempt: the same "
        "numbers on every GET until the attempt is submitted.",
    )
    def get(self, request: Request, slug: str) -> Response:
        quiz = selectors.quiz_detail(request.user, slug)
        attempt = None
        starts = quiz.time_limit or quiz.draws_numbers
        if starts and not quiz.is_checkpoint and request.user.is_authenticated:
            attempt = services.attempt_start(user=request.user, quiz=quiz)
        return Response(QuizDetailSerializer(quiz_document(quiz, attempt)).data)


def result_document(quiz: Quiz, scored: dict, attempt: Attempt | None) -> dict:
    """The scored answers with each question's explanation and cards: the quiz's questions as
    already loaded (`selectors.quiz_detail`), plus one query for their cards."""
    cards = Card.objects.select_related("deck", "section").order_by("order")
    loaded = list(quiz.questions.all())
    prefetch_related_objects(loaded, Prefetch("cards", queryset=cards))
    questions = {q.key: q for q in loaded}
    results = []
    for result in scored["results"]:
        question = questions[result["id"]]
        shown = {
            "id": result["id"],
            "points": result["points"],
            "max_points": result["max_points"],
            "correct_answer": result["correct_answer"],
            "explanation": question.explanation,
            "explanation_html": question.explanation_html,
            "cards": [
                {"id": c.pk, "slug": c.slug, "url": c.get_absolute_url()}
                for c in question.cards.all()
            ],
        }
        if question.kind == Question.Kind.NUMERIC and result.get("numbers"):
            shown["solution"], shown["solution_html"] = question.solution_for(result["numbers"])
            shown["tolerance"] = question.sizing_drill().tolerance
        results.append(shown)
    return {
        "id": attempt.pk if attempt else None,
        "score": float(scored["score"]),
        "max_score": scored["max_score"],
        "passed": scored["passed"],
        "timed_out": attempt.timed_out if attempt else False,
        "questions": results,
    }


class AttemptCreate(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        request=AttemptCreateSerializer,
        responses={
            201: AttemptResultSerializer,
            200: OpenApiResponse(
                AttemptResultSerializer,
                description="A checkpoint: checked, not recorded; or the same client_id again: "
                "the attempt it recorded, not a second one.",
            ),
            400: ERROR,
            404: ERROR,
        },
        description="Score answers and record the attempt. 400, recording nothing, for an "
        "answer to a question not in the quiz, an id of another question, a malformed answer "
        "or matching map, or answers arriving after a timed quiz's deadline (a timed quiz is "
        "started by GET /api/quizzes/{slug}/).",
        examples=[
            OpenApiExample(
                "Answers",
                request_only=True,
                value={
                    "answers": {
                        "Qk3xZ9aB": "c8Yt2LmQ",
                        "Pq7Rw1sD": ["a1B2c3D4", "e5F6g7H8"],
                        "Tf0aXy2Z": {"s1A2b3C4": True, "s5D6e7F8": False},
                        "Mx9Ld3Kw": {"l1A2b3C4": "r9Z8y7X6"},
                        "Nm4Kp8Qs": 12800,
                    }
                },
            )
        ],
    )
    def post(self, request: Request, slug: str) -> Response:
        quiz = selectors.quiz_detail(request.user, slug)
        body = AttemptCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        answers = body.validated_data["answers"]
        if quiz.is_checkpoint:
            scored = services.checkpoint_score(quiz=quiz, answers=answers)
            return Response(
                AttemptResultSerializer(result_document(quiz, scored, None)).data,
                status=status.HTTP_200_OK,
            )
        attempt, created = services.attempt_record(
            user=request.user,
            quiz=quiz,
            answers=answers,
            client_id=body.validated_data.get("client_id"),
        )
        scored = {
            "score": attempt.score,
            "max_score": attempt.max_score,
            "results": attempt.results,
            "passed": attempt.passed,
        }
        return Response(
            AttemptResultSerializer(result_document(quiz, scored, attempt)).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


urlpatterns = [
    path("quizzes/", QuizList.as_view(), name="api-quiz-list"),
    path("quizzes/<slug:slug>/", QuizDetail.as_view(), name="api-quiz-detail"),
    path("quizzes/<slug:slug>/attempts/", AttemptCreate.as_view(), name="api-quiz-attempts"),
]
