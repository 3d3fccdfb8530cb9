from django.apps import AppConfig


class OperationsConfig(AppConfig):
    """Reads across every app for the people who run RayDeck and its learners: the "your data"
    export and the whole-database backup. It may import every app's public names; no app
    imports it."""

    name = "apps.operations"
    label = "operations"
