from django.urls import path

from apps.teams import views

app_name = "teams"
urlpatterns = [
    path("", views.index, name="index"),
    path("join/<str:token>/", views.join, name="join"),
    path("<slug:slug>/", views.dashboard, name="dashboard"),
    path("<slug:slug>/progress.csv", views.export_csv, name="export"),
    path("<slug:slug>/manage/", views.manage, name="manage"),
    path("<slug:slug>/invites/<int:invite_id>/revoke/", views.invite_revoke, name="invite-revoke"),
    path("<slug:slug>/members/<int:user_id>/remove/", views.member_remove, name="member-remove"),
    path(
        "<slug:slug>/members/<int:user_id>/make-owner/",
        views.ownership_transfer,
        name="ownership-transfer",
    ),
    path("<slug:slug>/leave/", views.leave, name="leave"),
    path("<slug:slug>/privacy/", views.privacy, name="privacy"),
    path("<slug:slug>/delete/", views.team_delete, name="delete"),
]
