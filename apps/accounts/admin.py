from django.contrib import admin

from apps.accounts.models import Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "time_zone", "new_cards_per_day", "reviews_per_day")
    search_fields = ("user__username",)
    list_select_related = ("user",)
