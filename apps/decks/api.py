from django.db.models import Prefetch
from django.urls import path
from drf_spectacular.openapi import AutoSchema
from rest_framework import generics, permissions

from apps.decks import selectors
from apps.decks.models import Card, Section
from apps.decks.serializers import DeckDetailSerializer, DeckListSerializer, ErrorSerializer


class DocumentedErrors(AutoSchema):
    """The OpenAPI description of every API view (each sets `schema = DocumentedErrors()`):
    besides its successes, the JSON errors it can answer with (400 for a refused body, 403 for
    no or a wrong token or no permission, 404 for an id or slug that names nothing the caller
    may see, 429 once a throttle's rate is spent, 503 while the database is out of reach; a
    view lists any others itself), each with the Error body. Request bodies are
    documented as JSON, the API's format; an upload view keeps its multipart form."""

    def map_parsers(self):
        media_types = super().map_parsers()
        return ["application/json"] if "application/json" in media_types else media_types

    def error_codes(self) -> dict[str, str]:
        codes = {}
        if self.method in ("POST", "PUT", "PATCH"):
            codes["400"] = "The request was refused: the error names the field and why."
        codes["403"] = "Not signed in, a token that is not valid, or not allowed to do this."
        if "{" in self.path:
            codes["404"] = "No such thing, or not one the caller may see."
        codes["429"] = "Too many requests (config.security throttles): retry after Retry-After."
        codes["503"] = "The database is out of reach for a moment: retry in a few seconds."
        return codes

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code, description in self.error_codes().items():
            responses.setdefault(code, {"description": description})
        for code, response in responses.items():
            if int(code) >= 400 and not response.get("content"):
                body = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                response["content"] = body["content"]
        return responses


class DeckList(generics.ListAPIView):
    """Decks the caller can read, with their section and card counts."""

    serializer_class = DeckListSerializer
    permission_classes = [permissions.AllowAny]
    schema = DocumentedErrors()

    def get_queryset(self):
        return selectors.deck_list(self.request.user)


class DeckDetail(generics.RetrieveAPIView):
    """A deck with its sections and their cards, in order."""

    serializer_class = DeckDetailSerializer
    permission_classes = [permissions.AllowAny]
    schema = DocumentedErrors()
    lookup_field = "slug"

    def get_queryset(self):
        cards = Card.objects.select_related("section").order_by("order")
        sections = Section.objects.order_by("order").prefetch_related(
            Prefetch("cards", queryset=cards)
        )
        return selectors.visible_decks(self.request.user).prefetch_related(
            Prefetch("sections", queryset=sections)
        )


urlpatterns = [
    path("decks/", DeckList.as_view(), name="api-deck-list"),
    path("decks/<slug:slug>/", DeckDetail.as_view(), name="api-deck-detail"),
]
