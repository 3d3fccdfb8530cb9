from django.contrib import admin

from apps.demos.models import DemoCardLink, DemoRun


@admin.register(DemoRun)
class DemoRunAdmin(admin.ModelAdmin):
    list_display = ["id", "demo", "user", "status", "progress", "created_at", "worker"]
    list_filter = ["status", "demo"]
    search_fields = ["user__username", "demo"]
    readonly_fields = ["created_at", "started_at", "finished_at", "heartbeat_at", "last_seq"]


@admin.register(DemoCardLink)
class DemoCardLinkAdmin(admin.ModelAdmin):
    list_display = ["demo", "card", "order"]
    list_filter = ["demo"]
    autocomplete_fields = ["card"]
