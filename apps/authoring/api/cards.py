"""Cards, and the revisions of cards and questions."""

from django.db.models import OuterRef, Subquery
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.authoring import selectors, services
from apps.authoring.api.base import AuthorView
from apps.authoring.models import Revision
from apps.authoring.serializers import (
    AuthorCardSerializer,
    MoveSerializer,
    RestoreSerializer,
    RevisionSerializer,
)
from apps.decks.models import Card
from config.api import PagedResults


def _card_fields(validated: dict) -> dict:
    """The serializer's fields under the names the card services take."""
    fields = dict(validated)
    if "section" in fields:
        fields["section"] = fields["section"]["slug"]
    if "source" in fields:
        fields["card_source"] = fields.pop("source")
    return fields


class CardList(AuthorView, generics.ListCreateAPIView):
    """A deck's cards in section order, 100 a page (`?page=`). POST creates one at the end of
    its section."""

    serializer_class = AuthorCardSerializer
    pagination_class = PagedResults

    def deck(self):
        return selectors.deck_for_author(self.request.user, self.kwargs["slug"])

    def get_queryset(self):
        # The latest revision of the page's cards only (an aggregate over the deck's revisions
        # grew with the deck).
        latest = Revision.objects.filter(card=OuterRef("pk")).order_by("-number")
        return (
            self.deck()
            .cards.select_related("deck", "section")
            .annotate(latest_revision=Subquery(latest.values("number")[:1]))
            .prefetch_related("demo_links")
            .order_by("section__order", "section_id", "order", "id")
        )

    def perform_create(self, serializer):
        fields = _card_fields(serializer.validated_data)
        fields.pop("changes_answer", None)  # a new card has no learners yet
        serializer.instance = services.card_create(
            deck=self.deck(), author=self.request.user, source=services.Source.API, **fields
        )


class CardDetail(AuthorView, generics.RetrieveUpdateDestroyAPIView):
    """One card. PUT/PATCH edit it in place and record a revision; learners keep their
    schedules unless `changes_answer` is true, which makes it due now for each of them."""

    serializer_class = AuthorCardSerializer
    queryset = Card.objects.none()

    def get_object(self):
        return selectors.card_for_author(self.request.user, self.kwargs["pk"])

    def perform_update(self, serializer):
        services.card_edit(
            card=serializer.instance, author=self.request.user, source=services.Source.API,
            **_card_fields(serializer.validated_data),
        )  # fmt: skip

    def perform_destroy(self, card):
        services.card_delete(card=card)


class CardMove(AuthorView, APIView):
    @extend_schema(request=MoveSerializer, responses=AuthorCardSerializer(many=True))
    def post(self, request, pk: int):
        """Move a card one place up or down in its section; returns the cards whose place
        changed, in their new order: the card and the neighbour it swapped with (none at either
        end of the section). The whole section is `GET .../cards/`, page by page."""
        card = selectors.card_for_author(request.user, pk)
        move = MoveSerializer(data=request.data)
        move.is_valid(raise_exception=True)
        before = card.order
        if not services.card_move(card=card, direction=move.validated_data["direction"]):
            return Response([])
        rows = card.section.cards.filter(order__in=[before, card.order]).select_related(
            "deck", "section"
        )
        return Response(AuthorCardSerializer(rows.order_by("order", "id"), many=True).data)


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
        new = services.revision_restore(
            revision=revision, author=request.user,
            changes_answer=body.validated_data["changes_answer"],
        )  # fmt: skip
        if new is None:
            return Response({"detail": f"revision {revision.number} is already current"})
        return Response(RevisionSerializer(new).data, status=status.HTTP_201_CREATED)
