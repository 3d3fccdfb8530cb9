"""Author pages for quizzes and their questions."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.authoring import selectors, services
from apps.authoring.forms.base import direction_posted
from apps.authoring.forms.questions import (
    OPTION_FIELD,
    OPTION_HELP,
    QuestionForm,
    QuizForm,
    evidence_text,
    options_text,
)
from apps.authoring.views.base import author_required, form_write
from apps.decks.markdown import render_markdown
from apps.quizzes.models import Question, Quiz


@require_POST
@author_required
def quiz_create(request, slug: str):
    deck = selectors.deck_for_author(request.user, slug)
    form = QuizForm(request.POST)
    ok, quiz = form_write(form, lambda: services.quiz_save(deck=deck, **form.quiz_fields()))
    if not ok:
        messages.error(request, "Quiz not created: " + " ".join(form.messages().values()))
        return redirect(reverse("authoring:deck", args=[deck.slug]) + "#quizzes")
    messages.success(request, f"Quiz {quiz.slug} created; add its questions.")
    return redirect("authoring:quiz", slug=quiz.slug)


@author_required
def quiz(request, slug: str):
    quiz = selectors.quiz_for_author(request.user, slug)
    errors = {}
    if request.method == "POST":
        form = QuizForm(request.POST)
        ok, saved = form_write(
            form, lambda: services.quiz_save(deck=quiz.deck, quiz=quiz, **form.quiz_fields())
        )
        if ok:
            messages.success(request, "Quiz saved.")
            return redirect("authoring:quiz", slug=saved.slug)
        errors = form.messages()
    context = {
        "quiz": quiz,
        "questions": quiz.questions.prefetch_related("cards"),
        "sections": quiz.deck.sections.order_by("order", "id"),
        "kinds": Quiz.Kind.choices,
        "errors": errors,
    }
    return render(request, "authoring/quiz.html", context, status=400 if errors else 200)


def _question_context(quiz, question, values, errors):
    kind = values.get("kind") or "single"
    return {
        "quiz": quiz,
        "question": question,
        "values": values,
        "errors": errors,
        "kinds": Question.Kind.choices,
        "cards": quiz.deck.cards.order_by("section__order", "order"),
        "option_help": OPTION_HELP,
        "option_field": OPTION_FIELD.get(kind, "choices"),
        "previews": {k: render_markdown(values.get(k, "")) for k in ("prompt", "explanation")},
    }


def _question_values(question) -> dict:
    data = services.question_data(question)
    return {**data, "options": options_text(data), "evidence": evidence_text(data)}


@author_required
def question(request, pk: int | None = None, slug: str | None = None):
    if pk is not None:
        question = selectors.question_for_author(request.user, pk)
        quiz = question.quiz
        values = _question_values(question)
    else:
        assert slug is not None, "the URL names the question, or the quiz of a new one"
        quiz, question = selectors.quiz_for_author(request.user, slug), None
        values = {"kind": "single", "points": 1, "cards": [], "options": "[x] \n[ ] "}
    errors = {}
    if request.method == "POST":
        form = QuestionForm(request.POST)
        ok, saved = form_write(
            form, lambda: services.question_save(
                quiz=quiz, question=question, data=form.document(), author=request.user,
                note=form.cleaned_data["note"],
            ),
        )  # fmt: skip
        if ok:
            saved, revision = saved
            messages.success(
                request,
                f"Saved revision {revision.number}." if revision else "Nothing changed.",
            )
            return redirect("authoring:question", pk=saved.pk)
        values, errors = form.values(), form.messages()
    return render(
        request, "authoring/question.html", _question_context(quiz, question, values, errors),
        status=400 if errors else 200,
    )  # fmt: skip


@require_POST
@author_required
def question_move(request, pk: int):
    question = selectors.question_for_author(request.user, pk)
    services.question_move(question=question, direction=direction_posted(request.POST))
    if request.htmx:
        quiz = question.quiz
        context = {"quiz": quiz, "questions": quiz.questions.prefetch_related("cards")}
        return render(request, "authoring/quiz.html#questions", context)
    return redirect("authoring:quiz", slug=question.quiz.slug)


@author_required
def question_history(request, pk: int):
    question = selectors.question_for_author(request.user, pk)
    context = {"target": question, "kind": "question", "deck": question.quiz.deck,
               "revisions": selectors.revisions_of(question=question)}  # fmt: skip
    return render(request, "authoring/history.html", context)


@require_POST
@author_required
def question_delete(request, pk: int):
    question = selectors.question_for_author(request.user, pk)
    quiz = question.quiz
    services.question_delete(question=question)
    messages.success(request, f"Question {question.slug} deleted.")
    return redirect("authoring:quiz", slug=quiz.slug)
