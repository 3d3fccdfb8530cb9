from django.apps import AppConfig


class QuizzesConfig(AppConfig):
    name = "apps.quizzes"
