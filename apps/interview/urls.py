from django.urls import path

from apps.interview import views

# Mounted under study/ (namespace "study") by apps/site/urls.py.
urlpatterns = [
    path("plan/", views.plan_page, name="plan"),
]
