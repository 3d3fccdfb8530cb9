from django.contrib import admin

from apps.authoring.models import DeckAuthor, Revision


@admin.register(DeckAuthor)
class DeckAuthorAdmin(admin.ModelAdmin):
    list_display = ["deck", "user", "granted_at"]
    list_filter = ["deck"]
    search_fields = ["user__username", "deck__slug"]
    autocomplete_fields = ["user"]


@admin.register(Revision)
class RevisionAdmin(admin.ModelAdmin):
    """History is append-only: shown here, never edited."""

    list_display = ["__str__", "number", "author", "created_at", "source", "changes_answer"]
    list_filter = ["source", "changes_answer"]
    search_fields = ["card__slug", "question__slug", "note"]

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_add_permission(self, request) -> bool:
        return False
