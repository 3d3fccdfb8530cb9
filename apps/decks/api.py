from django.db.models import Prefetch
from django.urls import path
from rest_framework import generics, permissions

from apps.decks import selectors
from apps.decks.models import Card, Section
from apps.decks.serializers import DeckDetailSerializer, DeckListSerializer


class DeckList(generics.ListAPIView):
    """Decks the caller can read, with their section and card counts."""

    serializer_class = DeckListSerializer
    permission_classes = [permissions.AllowAny]

    def get_queryset(self):
        return selectors.deck_list(self.request.user)


class DeckDetail(generics.RetrieveAPIView):
    """A deck with its sections and their cards, in order."""

    serializer_class = DeckDetailSerializer
    permission_classes = [permissions.AllowAny]
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
