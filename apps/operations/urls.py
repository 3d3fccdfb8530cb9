"""accounts/, mounted at the root by config/urls.py: accounts' own pages plus the "your data"
downloads linked from the profile page, which keep their names `accounts:export_json` and
`accounts:export_csv` (accounts' urls.py cannot import this app's view)."""

from django.urls import include, path

from apps.accounts import urls as accounts_urls
from apps.operations import views

accounts_patterns = [
    *accounts_urls.urlpatterns,
    path("profile/export.json", views.export, {"fmt": "json"}, name="export_json"),
    path("profile/export.zip", views.export, {"fmt": "csv"}, name="export_csv"),
]

urlpatterns = [
    path("accounts/", include((accounts_patterns, accounts_urls.app_name))),
]
