"""Every page the site composes, mounted at the root by config/urls.py: the home page, the deck
and section pages (they keep their names `decks:deck` and `decks:section`), and study/ (the
review, card browser and interview plan pages, with the study index and the stats page, all
named `study:...`: the index and the stats page show the quizzes' checkpoints and knowledge
checks beside study's figures, so they are composed here), and /sw.js, the review page's
service worker, served from the root so that its scope is the whole site."""

from django.urls import include, path

from apps.browse import urls as browse_urls
from apps.interview import urls as interview_urls
from apps.review import urls as review_urls
from apps.review.device_api import service_worker
from apps.site import views

deck_patterns = [
    path("<slug:slug>/", views.deck, name="deck"),
    path("<slug:slug>/media/<str:name>", views.deck_media, name="media"),
    path("<slug:deck_slug>/<slug:section_slug>/", views.section, name="section"),
]
study_patterns = [
    path("", views.study_index, name="index"),
    path("stats/", views.stats, name="stats"),
    *review_urls.urlpatterns,
    *browse_urls.urlpatterns,
    *interview_urls.urlpatterns,
]

urlpatterns = [
    path("", views.home, name="home"),
    path("sw.js", service_worker, name="service-worker"),
    path("decks/", include((deck_patterns, "decks"))),
    path("study/", include((study_patterns, "study"))),
]
