from django.contrib import admin
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet

from apps.quizzes.models import Attempt, Choice, MatchPair, Question, Quiz, Statement


class QuestionInline(admin.TabularInline):
    """Listed only: a question added here would have no options and break its quiz, so new
    questions are written in the author editor (or the question admin, which checks them)."""

    model = Question
    fields = ("order", "slug", "kind", "points")
    extra = 0
    show_change_link = True
    ordering = ("order",)

    def has_add_permission(self, request, obj=None):
        return False


class _OptionsFormSet(BaseInlineFormSet):
    """Refuses a question its learners could not answer (the scoring core needs a key)."""

    def kept(self) -> list[dict]:
        return [
            form.cleaned_data
            for form in self.forms
            if form.cleaned_data and not form.cleaned_data.get("DELETE")
        ]


class ChoiceFormSet(_OptionsFormSet):
    def clean(self):
        super().clean()
        kind = self.instance.kind
        if kind not in (Question.Kind.SINGLE, Question.Kind.MULTI):
            return
        right = sum(1 for data in self.kept() if data.get("correct"))
        if kind == Question.Kind.SINGLE and right != 1:
            raise ValidationError(
                f"A single-choice question needs exactly 1 correct choice, has {right}."
            )
        if kind == Question.Kind.MULTI and right < 1:
            raise ValidationError("A select-all question needs at least 1 correct choice.")


class StatementFormSet(_OptionsFormSet):
    def clean(self):
        super().clean()
        if self.instance.kind == Question.Kind.TRUE_FALSE and not self.kept():
            raise ValidationError("A true/false question needs at least 1 statement.")


class MatchPairFormSet(_OptionsFormSet):
    def clean(self):
        super().clean()
        if self.instance.kind == Question.Kind.MATCH and len(self.kept()) < 2:
            raise ValidationError("A matching question needs at least 2 pairs.")


@admin.register(Quiz)
class QuizAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "kind", "deck", "section", "time_limit_seconds")
    list_filter = ("kind", "deck")
    search_fields = ("title", "slug")
    list_select_related = ("deck", "section")
    inlines = [QuestionInline]


class ChoiceInline(admin.TabularInline):
    model = Choice
    formset = ChoiceFormSet
    fields = ("order", "text", "correct", "key")
    readonly_fields = ("key",)
    extra = 0
    ordering = ("order",)


class StatementInline(admin.TabularInline):
    model = Statement
    formset = StatementFormSet
    fields = ("order", "text", "answer", "key")
    readonly_fields = ("key",)
    extra = 0
    ordering = ("order",)


class MatchPairInline(admin.TabularInline):
    model = MatchPair
    formset = MatchPairFormSet
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
