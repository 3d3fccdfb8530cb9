from django.urls import path

from apps.exercises import views

app_name = "exercises"
urlpatterns = [
    path("", views.index, name="index"),
    path("submissions/<int:pk>/", views.submission, name="submission"),
    path("<slug:slug>/", views.exercise, name="exercise"),
]
