from django.apps import AppConfig


class DemosConfig(AppConfig):
    name = "apps.demos"
