from django.contrib import admin

from apps.decks.models import Card, Concept, Deck, Section


class SectionInline(admin.TabularInline):
    model = Section
    fields = ("order", "slug", "title")
    extra = 0
    ordering = ("order",)


class CardInline(admin.StackedInline):
    model = Card
    fields = (("order", "slug", "kind"), "front", "back", "why", "source", "tags")
    readonly_fields = ("kind",)
    extra = 0
    ordering = ("order",)


class ConceptInline(admin.StackedInline):
    model = Concept
    fields = ("order", "question", "explanation")
    extra = 0


@admin.register(Deck)
class DeckAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "is_published", "updated_at")
    list_filter = ("is_published",)
    search_fields = ("title", "slug", "description")
    prepopulated_fields = {"slug": ("title",)}
    inlines = [SectionInline]


@admin.register(Section)
class SectionAdmin(admin.ModelAdmin):
    list_display = ("title", "deck", "order", "slug")
    list_filter = ("deck",)
    list_editable = ("order",)
    search_fields = ("title", "slug", "summary")
    ordering = ("deck", "order")
    list_select_related = ("deck",)
    inlines = [ConceptInline, CardInline]


@admin.register(Card)
class CardAdmin(admin.ModelAdmin):
    list_display = ("slug", "kind", "section", "deck", "order", "updated_at")
    list_filter = ("deck", "section", "kind")
    list_editable = ("order",)
    search_fields = ("slug", "front", "back", "why", "source")
    ordering = ("deck", "section__order", "order")
    list_select_related = ("deck", "section")
    # A note's kind and siblings change through the author pages, which keep them in step.
    readonly_fields = ("kind", "note_slug", "ordinal", "front_html", "back_html", "why_html",
                       "updated_at")  # fmt: skip
