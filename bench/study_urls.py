"""The app's URLs plus /bench/bare/<id>/: one primary-key read and a tiny JSON answer, the
floor the study endpoints are compared with in the same server and run."""

from django.http import JsonResponse
from django.urls import include, path

from apps.decks.models import Card


def bare(request, card_id: int):
    row = Card.objects.filter(pk=card_id).values_list("id", "slug").first()
    return JsonResponse({"id": row[0], "slug": row[1]} if row else {})


urlpatterns = [
    path("bench/bare/<int:card_id>/", bare),
    path("", include("config.urls")),
]
