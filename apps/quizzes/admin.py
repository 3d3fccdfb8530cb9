from django.contrib import admin

from apps.quizzes.models import Attempt, Choice, MatchPair, Question, Quiz, Statement


class QuestionInline(admin.TabularInline):
    model = Question
    fields = ("order", "slug", "kind", "points")
    extra = 0
    show_change_link = True
    ordering = ("order",)


@admin.register(Quiz)
class QuizAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "kind", "deck", "section", "time_limit_seconds")
    list_filter = ("kind", "deck")
    search_fields = ("title", "slug")
    list_select_related = ("deck", "section")
    inlines = [QuestionInline]


class ChoiceInline(admin.TabularInline):
    model = Choice
    fields = ("order", "text", "correct", "key")
    readonly_fields = ("key",)
    extra = 0
    ordering = ("order",)


class StatementInline(admin.TabularInline):
    model = Statement
    fields = ("order", "text", "answer", "key")
    readonly_fields = ("key",)
    extra = 0
    ordering = ("order",)


class MatchPairInline(admin.TabularInline):
    model = MatchPair
    fields = ("order", "left", "right", "left_key", "right_key")
    readonly_fields = ("left_key", "right_key")
    extra = 0
    ordering = ("order",)


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ("slug", "quiz", "kind", "points", "order")
    list_filter = ("kind", "quiz")
    search_fields = ("slug", "prompt")
    list_select_related = ("quiz",)
    readonly_fields = ("key",)
    filter_horizontal = ("cards",)
    inlines = [ChoiceInline, StatementInline, MatchPairInline]


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ("user", "quiz", "started_at", "submitted_at", "score", "max_score", "timed_out")
    list_filter = ("quiz", "timed_out")
    list_select_related = ("user", "quiz")
    search_fields = ("user__username", "quiz__slug")
    readonly_fields = [f.name for f in Attempt._meta.fields]
