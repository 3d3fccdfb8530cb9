"""The study API (DESIGN.md): the queue, reviews, undo and a card's state. Callers only ever
read and write their own schedule."""

from django.urls import path
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.decks.selectors import visible_decks
from apps.study import scheduler, selectors, services
from apps.study.serializers import (
    CardStateSerializer,
    QueueSerializer,
    ReviewCreateSerializer,
    ReviewSerializer,
    UndoSerializer,
    queue_cards_data,
)


class StudyRefused(exceptions.APIException):
    def __init__(self, error: services.StudyError):
        super().__init__(detail=str(error))
        self.status_code = error.status


def visible_card(user, card_id) -> Card | None:
    return Card.objects.filter(pk=card_id, deck__in=visible_decks(user)).first()


QUEUE_LIMIT_MAX = 200


def queue_limit(raw: str | None) -> int | None:
    """The queue's `?limit=`: None when absent, else a whole number 1..QUEUE_LIMIT_MAX."""
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 4 and 1 <= int(raw) <= QUEUE_LIMIT_MAX):
        raise exceptions.ValidationError(
            {"limit": f"limit must be a whole number 1 to {QUEUE_LIMIT_MAX}, got {raw!r}"}
        )
    return int(raw)


class QueueView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("deck", str, description="Deck slug; all decks if absent."),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": QUEUE_LIMIT_MAX},
                description=(
                    "Return at most this many cards (the first ones, in queue order); the"
                    " counts still count the whole queue. All of them if absent."
                ),
            ),
        ],
        responses={
            200: QueueSerializer,
            400: OpenApiResponse(
                description=f"limit is not a whole number 1 to {QUEUE_LIMIT_MAX}."
            ),
            404: OpenApiResponse(description="No such deck."),
        },
        summary="Cards to study now: re-drills, due cards (most overdue first), new cards",
    )
    def get(self, request: Request) -> Response:
        limit = queue_limit(request.query_params.get("limit"))
        deck = None
        slug = request.query_params.get("deck")
        if slug:
            deck = selectors.visible_deck(request.user, slug)
            if deck is None:
                raise exceptions.NotFound(f"no deck with slug {slug!r}")
        queue = selectors.queue_cards(request.user, deck, limit=limit)
        return Response(queue_cards_data(queue, slug or None))


class ReviewCreate(APIView):
    @extend_schema(
        request=ReviewCreateSerializer,
        responses={
            201: ReviewSerializer,
            200: ReviewSerializer,
            409: OpenApiResponse(description="The card is not due, or is suspended."),
        },
        summary="Grade a due card (the same client_id again returns the first review, 200)",
    )
    def post(self, request: Request) -> Response:
        incoming = ReviewCreateSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        card = selectors.visible_card(request.user, data["card"])
        if card is None:
            raise exceptions.ValidationError({"card": f"no card with id {data['card']}"})
        try:
            log, created = services.review_record(
                user=request.user,
                card=card,
                grade=data["grade"],
                client_id=data.get("client_id"),
                duration_ms=data.get("duration_ms"),
            )
        except services.StudyError as exc:
            raise StudyRefused(exc) from None
        return Response(
            ReviewSerializer(log).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class ReviewUndo(APIView):
    @extend_schema(
        request=None,
        responses={200: UndoSerializer, 409: OpenApiResponse(description="Nothing to undo.")},
        summary="Undo your latest review (up to 30 back), restoring the card's state",
    )
    def post(self, request: Request) -> Response:
        try:
            log = services.review_undo(user=request.user)
        except services.StudyError as exc:
            raise StudyRefused(exc) from None
        return Response(UndoSerializer(log).data)


class CardStateView(APIView):
    @extend_schema(responses=CardStateSerializer, summary="Your SM-2 state for one card")
    def get(self, request: Request, card_id: int) -> Response:
        card = visible_card(request.user, card_id)
        if card is None:
            raise exceptions.NotFound(f"no card with id {card_id}")
        row = selectors.card_state(request.user, card)
        now = timezone.now()
        schedule = row.schedule if row is not None else scheduler.new_state(now)
        body = {
            **{name: getattr(schedule, name) for name in STATE_FIELDS},
            "card": card.pk,
            "new": row is None,
            "suspended": bool(row and row.suspended),
            "is_due": not (row and row.suspended)
            and scheduler.is_due(schedule, now, profile_for(request.user).zone),
        }
        return Response(CardStateSerializer(body).data)


STATE_FIELDS = [
    "repetitions",
    "ease_factor",
    "interval_days",
    "due_at",
    "needs_redrill",
    "lapses",
    "last_grade",
    "last_reviewed_at",
]

urlpatterns = [
    path("study/queue/", QueueView.as_view(), name="api-study-queue"),
    path("reviews/", ReviewCreate.as_view(), name="api-review-create"),
    path("reviews/undo/", ReviewUndo.as_view(), name="api-review-undo"),
    path("cards/<int:card_id>/state/", CardStateView.as_view(), name="api-card-state"),
]
