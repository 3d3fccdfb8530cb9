from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The top layer: the pages that compose what the other apps provide (home, deck and section
    pages, the stats page, the guided path), the error pages and the seed command. It may import
    every app's public names; no app imports it."""

    name = "apps.site"
    label = "site"
