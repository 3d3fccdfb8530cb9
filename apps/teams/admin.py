from django.contrib import admin

from apps.teams.models import Invite, InviteUse, Membership, Team


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "deck", "created_by", "created_at"]
    search_fields = ["name", "slug"]
    inlines = [MembershipInline]


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    list_display = ["team", "created_by", "expires_at", "max_uses", "uses", "revoked_at"]
    list_filter = ["revoked_at"]
    readonly_fields = ["token", "uses"]


admin.site.register(InviteUse)
