"""Settings for the study load benchmark's gunicorn: production settings (DEBUG off) plus a bare
view to compare against, and plain static storage (no collectstatic manifest needed)."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.study_urls"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
LOGGING = {"version": 1, "disable_existing_loggers": False, "root": {"level": "WARNING"}}
