from django.urls import path

from apps.browse import views

# Mounted under study/ (namespace "study") by apps/site/urls.py.
urlpatterns = [
    path("browse/", views.browse_page, name="browse"),
    path("browse/bulk/", views.browse_bulk, name="browse-bulk"),
    path("browse/<int:card_id>/", views.browse_card, name="browse-card"),
]
