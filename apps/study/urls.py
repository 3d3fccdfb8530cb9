from django.urls import path
from django.views.generic import TemplateView

app_name = "study"
urlpatterns = [
    path("", TemplateView.as_view(template_name="study/index.html"), name="index"),
]
