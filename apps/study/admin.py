from django.contrib import admin

from apps.study.models import CardState, NewCardCursor, ReviewLog


@admin.register(CardState)
class CardStateAdmin(admin.ModelAdmin):
    list_display = ["user", "card", "repetitions", "ease_factor", "interval_days", "due_at",
                    "needs_redrill", "lapses", "suspended"]  # fmt: skip
    list_filter = ["suspended", "needs_redrill", "deck"]
    search_fields = ["user__username", "card__slug"]
    raw_id_fields = ["user", "card", "deck"]


@admin.register(ReviewLog)
class ReviewLogAdmin(admin.ModelAdmin):
    """Read-only: the log is the learner's history; undo is the only way to take a review back."""

    list_display = ["user", "card", "grade", "kind", "reviewed_at", "duration_ms", "undone_at"]
    list_filter = ["kind", "grade"]
    search_fields = ["user__username", "card__slug"]
    date_hierarchy = "reviewed_at"
    raw_id_fields = ["user", "card"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False


@admin.register(NewCardCursor)
class NewCardCursorAdmin(admin.ModelAdmin):
    list_display = ["user", "deck", "after_card_id"]
    raw_id_fields = ["user", "deck"]
