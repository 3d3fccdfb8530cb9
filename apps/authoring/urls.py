from django.urls import path
from django.views.generic import TemplateView

app_name = "authoring"
urlpatterns = [
    path("", TemplateView.as_view(template_name="authoring/index.html"), name="index"),
]
