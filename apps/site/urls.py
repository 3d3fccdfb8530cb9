"""Every page the site composes, mounted at the root by config/urls.py: the home page, the deck
and section pages (they keep their names `decks:deck` and `decks:section`), and study/ (study's
own pages plus its index and the stats page, which keep their names `study:index` and
`study:stats`: they show the quizzes' checkpoints and knowledge checks beside study's figures,
so they are composed here, and study's urls.py cannot import them), and /sw.js, the review
page's service worker, served from the root so that its scope is the whole site."""

from django.urls import include, path

from apps.site import views
from apps.study import urls as study_urls
from apps.study.device_api import service_worker

deck_patterns = [
    path("<slug:slug>/", views.deck, name="deck"),
    path("<slug:slug>/media/<str:name>", views.deck_media, name="media"),
    path("<slug:deck_slug>/<slug:section_slug>/", views.section, name="section"),
]
study_patterns = [
    path("", views.study_index, name="index"),
    path("stats/", views.stats, name="stats"),
    *study_urls.urlpatterns,
]

urlpatterns = [
    path("", views.home, name="home"),
    path("sw.js", service_worker, name="service-worker"),
    path("decks/", include((deck_patterns, "decks"))),
    path("study/", include((study_patterns, study_urls.app_name))),
]
