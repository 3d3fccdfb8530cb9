"""A learner's own cards, mounted at my/ (namespace "mine")."""

from django.urls import path

from apps.authoring.views import own

app_name = "mine"
urlpatterns = [
    path("", own.index, name="index"),
    path("new/", own.deck_create, name="deck-create"),
    path("decks/<slug:slug>/", own.deck, name="deck"),
    path("decks/<slug:slug>/delete/", own.deck_delete, name="deck-delete"),
    path("decks/<slug:slug>/cards/new/", own.card_new, name="card-new"),
    path("decks/<slug:slug>/import/", own.import_page, name="import"),
    path("decks/<slug:slug>/export/<str:fmt>/", own.export, name="export"),
    path("decks/<slug:slug>/media/", own.media_upload, name="media-upload"),
    path("cards/<int:pk>/", own.card, name="card"),
    path("cards/<int:pk>/delete/", own.card_retire, name="card-retire"),
    path("cards/<int:pk>/history/", own.card_history, name="card-history"),
    path("cards/bulk/", own.cards_bulk, name="cards-bulk"),
    path("revisions/<int:pk>/restore/", own.revision_restore, name="revision-restore"),
    path("review/<int:card_id>/edit/", own.review_edit, name="review-edit"),
    path("review/<int:card_id>/suggest/", own.suggest, name="suggest"),
]
