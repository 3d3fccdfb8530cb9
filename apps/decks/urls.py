from django.urls import path

from apps.decks import views

app_name = "decks"
urlpatterns = [
    path("<slug:slug>/", views.deck, name="deck"),
    path("<slug:deck_slug>/<slug:section_slug>/", views.section, name="section"),
]
