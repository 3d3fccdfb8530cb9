from django.apps import AppConfig


class InterviewConfig(AppConfig):
    name = "apps.interview"
