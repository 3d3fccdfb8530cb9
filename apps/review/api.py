"""The review API: the queue, reviews, undo and a card's state. Callers only ever read and
write their own schedule."""

from django.urls import path
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.models import profile_for
from apps.interview import plan
from apps.review.serializers import (
    CardStatePatchSerializer,
    CardStateSerializer,
    QueueSerializer,
    ReviewCreateSerializer,
    ReviewSerializer,
    UndoSerializer,
    queue_data,
)
from apps.study import grading, scheduler, selectors, services, sync

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
        whole = plan.study_queue(request.user, deck, first=limit)
        return Response(queue_data(whole, slug or None, limit=limit))


class ReviewCreate(APIView):
    @extend_schema(
        request=ReviewCreateSerializer,
        responses={
            201: ReviewSerializer,
            200: ReviewSerializer,
            400: OpenApiResponse(
                description="A bad grade or card, or reviewed_at out of bounds:"
                ' {"reviewed_at": ["<the moment and the bound>"], "error": "..."}; nothing is'
                " recorded.",
            ),
            409: OpenApiResponse(
                description="The card is not due (at reviewed_at, when given), or is suspended;"
                " for_interview without an interview date; a client_id already used for another"
                " card or grade.",
            ),
        },
        summary="Grade a due card (the same client_id again returns the first review, 200)",
        description="A review made offline carries reviewed_at (and based_on): SM-2 is applied"
        " at that moment. When the card was reviewed on another device that this one did not"
        " know of, both reviews are kept, the card's state is the replay of its reviews in time"
        ' order, and "conflict" names the card (null otherwise).',
    )
    def post(self, request: Request) -> Response:
        incoming = ReviewCreateSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        moment = None
        if data.get("reviewed_at") is not None:
            moment = sync.Moment(
                at=data["reviewed_at"],
                based_on=data.get("based_on"),
                based_on_sent="based_on" in data,
            )
        # The card's id: the service looks it up among the cards the learner may see, with the
        # lock on its state (one query for a card already studied).
        log, created = grading.review_submit(
            user=request.user,
            card=data["card"],
            grade=data["grade"],
            client_id=data.get("client_id"),
            duration_ms=data.get("duration_ms"),
            for_interview=data["for_interview"],
            moment=moment,
        )
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
        log = services.review_undo(user=request.user)
        return Response(UndoSerializer(log).data)


class CardStateView(APIView):
    @extend_schema(responses=CardStateSerializer, summary="Your SM-2 state for one card")
    def get(self, request: Request, card_id: int) -> Response:
        card = selectors.visible_card(request.user, card_id)
        if card is None:
            raise exceptions.NotFound(f"no card with id {card_id}")
        return Response(self.body(request.user, card, selectors.card_state(request.user, card)))

    @extend_schema(
        request=CardStatePatchSerializer,
        responses={200: CardStateSerializer, 404: OpenApiResponse(description="No such card.")},
        summary="Suspend or unsuspend one of your cards (its schedule is kept)",
    )
    def patch(self, request: Request, card_id: int) -> Response:
        card = selectors.visible_card(request.user, card_id)
        if card is None:
            raise exceptions.NotFound(f"no card with id {card_id}")
        incoming = CardStatePatchSerializer(data=request.data, partial=True)
        incoming.is_valid(raise_exception=True)
        if "suspended" not in incoming.validated_data:  # PATCH: nothing named, nothing changed
            row = selectors.card_state(request.user, card)
        else:
            row = services.card_suspend(
                user=request.user, card=card, suspended=incoming.validated_data["suspended"]
            )
        return Response(self.body(request.user, card, row))

    @staticmethod
    def body(user, card, row) -> dict:
        now = timezone.now()
        schedule = row.schedule if row is not None else scheduler.new_state(now)
        body = {
            **{name: getattr(schedule, name) for name in STATE_FIELDS},
            "card": card.pk,
            "new": row is None,
            "suspended": bool(row and row.suspended),
            "leech": bool(row and row.leech),
            "is_due": not (row and row.suspended)
            and scheduler.is_due(schedule, now, profile_for(user).zone),
        }
        return CardStateSerializer(body).data


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
