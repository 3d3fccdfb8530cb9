from django.urls import path

from apps.quizzes import views

app_name = "quizzes"
urlpatterns = [
    path("", views.index, name="index"),
    path("attempts/<int:pk>/", views.attempt, name="attempt"),
    path("attempts/<int:pk>/save/", views.attempt_save, name="attempt-save"),
    path("attempts/<int:pk>/review/", views.review, name="review"),
    path("checkpoints/<slug:slug>/<str:key>/", views.checkpoint_check, name="checkpoint-check"),
    path("<slug:slug>/", views.quiz, name="quiz"),
    path("<slug:slug>/start/", views.start, name="start"),
]
