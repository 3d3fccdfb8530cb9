from django.urls import path

from apps.study import plan_views, views

app_name = "study"
urlpatterns = [
    path("review/", views.review, name="review"),
    path("review/undo/", views.undo, name="undo"),
    path("review/more-new-cards/", views.learn_more, name="learn-more"),
    path("review/<slug:deck_slug>/", views.review, name="review-deck"),
    path("cram/<slug:deck_slug>/", views.cram, name="cram"),
    path("plan/", plan_views.plan_page, name="plan"),
    path("cards/<int:card_id>/suspend/", views.suspend, name="suspend"),
    path("typed/<int:card_id>/", views.typed_compare, name="typed"),
    path("browse/", views.browse_page, name="browse"),
    path("browse/bulk/", views.browse_bulk, name="browse-bulk"),
    path("browse/<int:card_id>/", views.browse_card, name="browse-card"),
]
