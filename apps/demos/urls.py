from django.urls import path
from django.views.generic import TemplateView

app_name = "demos"
urlpatterns = [
    path("", TemplateView.as_view(template_name="demos/index.html"), name="index"),
]
