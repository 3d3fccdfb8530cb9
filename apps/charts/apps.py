from django.apps import AppConfig


class ChartsConfig(AppConfig):
    """The site's charts: pure geometry (geometry.py, bars.py) and the partials that draw it
    (templates/charts/charts.html). Ground floor: it imports no other app."""

    name = "apps.charts"
