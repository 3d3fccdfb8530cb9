from django.urls import path

from apps.review import views

# Mounted under study/ (namespace "study") by apps/site/urls.py.
urlpatterns = [
    path("review/", views.review, name="review"),
    path("review/undo/", views.undo, name="undo"),
    path("review/more-new-cards/", views.learn_more, name="learn-more"),
    path("review/<slug:deck_slug>/", views.review, name="review-deck"),
    path("cram/<slug:deck_slug>/", views.cram, name="cram"),
    path("cards/<int:card_id>/suspend/", views.suspend, name="suspend"),
    path("typed/<int:card_id>/", views.typed_compare, name="typed"),
]
