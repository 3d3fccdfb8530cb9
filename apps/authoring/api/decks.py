"""Decks and their sections."""

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.authoring import selectors, services
from apps.authoring.api.base import DELETE_REFUSED, AuthorView
from apps.authoring.serializers import (
    AuthorDeckSerializer,
    AuthorSectionSerializer,
    MoveSerializer,
)
from apps.decks.models import Section


class DeckList(AuthorView, generics.ListCreateAPIView):
    """Decks the caller may author (all, for staff). POST creates a draft deck (staff only)."""

    serializer_class = AuthorDeckSerializer

    def get_queryset(self):
        return selectors.author_deck_list(self.request.user).order_by("title")

    def perform_create(self, serializer):
        serializer.instance = services.deck_create(
            user=self.request.user, **serializer.validated_data
        )


CONFIRM = OpenApiParameter(
    "confirm", str, description="the deck's slug: delete it although learners have progress"
)


@extend_schema_view(
    delete=extend_schema(
        parameters=[CONFIRM],
        responses={
            204: None,
            409: OpenApiResponse(
                description="Learners have progress on the deck: the error says how many and "
                "what they would lose; send ?confirm=<slug> to delete it anyway."
            ),
        },
    )
)
class DeckDetail(AuthorView, generics.RetrieveUpdateDestroyAPIView):
    """One deck: PATCH title, description, objectives or is_published (publish / unpublish).
    DELETE (staff only) removes the deck with its cards and every learner's progress on them;
    while learners have progress it is refused (409) unless `?confirm=<the deck's slug>`."""

    serializer_class = AuthorDeckSerializer
    lookup_field = "slug"

    def get_object(self):
        return selectors.deck_for_author(self.request.user, self.kwargs["slug"])

    def perform_update(self, serializer):
        fields = {k: v for k, v in serializer.validated_data.items() if k != "slug"}
        serializer.instance = services.deck_update(deck=serializer.instance, **fields)

    def perform_destroy(self, deck):
        confirm = self.request.query_params.get("confirm", "")
        services.deck_delete(deck=deck, by=self.request.user, confirm=confirm)


class SectionList(AuthorView, generics.ListCreateAPIView):
    """A deck's sections in order; POST adds one at the end."""

    serializer_class = AuthorSectionSerializer

    def deck(self):
        return selectors.deck_for_author(self.request.user, self.kwargs["slug"])

    def get_queryset(self):
        return self.deck().sections.order_by("order", "id")

    def perform_create(self, serializer):
        serializer.instance = services.section_create(deck=self.deck(), **serializer.validated_data)


@DELETE_REFUSED
class SectionDetail(AuthorView, generics.RetrieveUpdateDestroyAPIView):
    """One section. DELETE is refused while it still has cards."""

    serializer_class = AuthorSectionSerializer
    queryset = Section.objects.none()

    def get_object(self):
        return selectors.section_for_author(self.request.user, self.kwargs["pk"])

    def perform_update(self, serializer):
        services.section_update(section=serializer.instance, **serializer.validated_data)

    def perform_destroy(self, section):
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
