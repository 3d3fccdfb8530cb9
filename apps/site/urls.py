"""Every page the site composes, mounted at the root by config/urls.py: the home page, the deck
and section pages (they keep their names `decks:deck` and `decks:section`), and study/ (study's
own pages plus the stats page, which keeps its name `study:stats`: it shows the quizzes'
knowledge checks beside study's figures, so it is composed here, and study's urls.py cannot
import it)."""

from django.urls import include, path

from apps.site import views
from apps.study import urls as study_urls

deck_patterns = [
    path("<slug:slug>/", views.deck, name="deck"),
    path("<slug:deck_slug>/<slug:section_slug>/", views.section, name="section"),
]
study_patterns = [path("stats/", views.stats, name="stats"), *study_urls.urlpatterns]

urlpatterns = [
    path("", views.home, name="home"),
    path("decks/", include((deck_patterns, "decks"))),
    path("study/", include((study_patterns, study_urls.app_name))),
]
