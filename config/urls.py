from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView

from config import health
from config.docs import ApiDocsView

api_patterns: list[URLPattern | URLResolver] = [
    path("", include("apps.decks.api")),
    path("", include("apps.review.api")),
    path("", include("apps.review.device_api")),
    path("", include("apps.browse.api")),
    path("", include("apps.interview.api")),
    path("", include("apps.quizzes.api")),
    path("", include("apps.demos.api")),
    path("", include("apps.exercises.api")),
    path("", include("apps.teams.api")),
    path("", include("apps.authoring.api")),
    path("", include("apps.accounts.api")),
    path("", include("apps.operations.api")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", ApiDocsView.as_view(url_name="api-schema"), name="api-docs"),
]

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    # The site's pages: home, decks/ (deck and section pages), study/ (study's pages and the
    # stats page the site composes). Then accounts/ with the operations app's export downloads.
    path("", include("apps.site.urls")),
    path("", include("apps.operations.urls")),
    path("quizzes/", include("apps.quizzes.urls")),
    path("demos/", include("apps.demos.urls")),
    path("exercises/", include("apps.exercises.urls")),
    path("teams/", include("apps.teams.urls")),
    path("author/", include("apps.authoring.urls")),
    path("my/", include("apps.authoring.urls_own")),
    path("api/", include(api_patterns)),
    path("admin/", admin.site.urls),
]

handler400 = "apps.site.views.bad_request"
handler403 = "apps.site.views.forbidden"
handler404 = "apps.site.views.not_found"
handler500 = "apps.site.views.server_error"
