from django.urls import path

from apps.demos import views

app_name = "demos"
urlpatterns = [
    path("", views.index, name="index"),
    path("runs/", views.runs, name="runs"),
    path("runs/compare/", views.compare, name="compare"),
    path("runs/<int:pk>/", views.run, name="run"),
    path("runs/<int:pk>/cancel/", views.cancel, name="cancel"),
    path("<slug:slug>/", views.demo, name="demo"),
]
