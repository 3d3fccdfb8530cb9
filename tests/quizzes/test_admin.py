"""The admin is the fallback editor: it must not save a question learners could not answer."""

import pytest
from django.contrib import admin

from apps.quizzes.models import Question, Quiz

pytestmark = pytest.mark.django_db


def inline_data(prefix: str, rows: list[dict], initial: int = 0) -> dict:
    data = {
        f"{prefix}-TOTAL_FORMS": str(len(rows)),
        f"{prefix}-INITIAL_FORMS": str(initial),
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }
    for i, row in enumerate(rows):
        data.update({f"{prefix}-{i}-{k}": v for k, v in row.items()})
    return data


def post_question(client, question: Question, choices: list[dict]):
    data = {
        "quiz": question.quiz_id,
        "slug": question.slug,
        "order": question.order,
        "kind": question.kind,
        "prompt": question.prompt,
        "explanation": question.explanation,
        "points": question.points,
        **inline_data("choices", choices, initial=len(choices)),
        **inline_data("statements", []),
        **inline_data("pairs", []),
    }
    return client.post(f"/admin/quizzes/question/{question.pk}/change/", data)


def existing_choices(question: Question, correct: set[int]) -> list[dict]:
    return [
        {"id": c.pk, "question": question.pk, "order": i, "text": c.text,
         **({"correct": "on"} if i in correct else {})}
        for i, c in enumerate(question.choices.order_by("order"))
    ]  # fmt: skip


def single_question() -> Question:
    return Question.objects.filter(kind=Question.Kind.SINGLE).first()


def test_a_single_choice_question_without_a_right_answer_is_refused(admin_client, quizzes):
    question = single_question()
    before = sorted(question.choices.values_list("correct", flat=True))
    response = post_question(admin_client, question, existing_choices(question, correct=set()))
    assert response.status_code == 200
    assert "needs exactly 1 correct choice, has 0" in response.content.decode()
    assert sorted(question.choices.values_list("correct", flat=True)) == before


def test_a_valid_edit_in_the_admin_is_saved(admin_client, quizzes):
    question = single_question()
    response = post_question(admin_client, question, existing_choices(question, correct={1}))
    assert response.status_code == 302
    assert list(question.choices.order_by("order").values_list("correct", flat=True))[1] is True


def test_questions_cannot_be_added_empty_from_the_quiz_admin(admin_user, rf, quizzes):
    request = rf.get("/admin/")
    request.user = admin_user
    quiz_admin = admin.site._registry[Quiz]
    inline = quiz_admin.get_inline_instances(request)[0]
    assert inline.model is Question
    assert not inline.has_add_permission(request, None)
