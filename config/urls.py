from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from apps.decks import views as deck_views
from config import health
from config.docs import ApiDocsView

api_patterns = [
    path("", include("apps.decks.api")),
    path("", include("apps.study.api")),
    path("", include("apps.study.plan_api")),
    path("", include("apps.quizzes.api")),
    path("", include("apps.demos.api")),
    path("", include("apps.teams.api")),
    path("", include("apps.authoring.api")),
    path("", include("apps.accounts.api")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", ApiDocsView.as_view(url_name="api-schema"), name="api-docs"),
]

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("", deck_views.home, name="home"),
    path("accounts/", include("apps.accounts.urls")),
    path("study/", include("apps.study.urls")),
    path("quizzes/", include("apps.quizzes.urls")),
    path("demos/", include("apps.demos.urls")),
    path("teams/", include("apps.teams.urls")),
    path("author/", include("apps.authoring.urls")),
    path("api/", include(api_patterns)),
    path("admin/", admin.site.urls),
    path("decks/", include("apps.decks.urls")),
]

handler400 = "apps.decks.views.bad_request"
handler403 = "apps.decks.views.forbidden"
handler404 = "apps.decks.views.not_found"
handler500 = "apps.decks.views.server_error"
