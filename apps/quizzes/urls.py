from django.urls import path
from django.views.generic import TemplateView

app_name = "quizzes"
urlpatterns = [
    path("", TemplateView.as_view(template_name="quizzes/index.html"), name="index"),
]
