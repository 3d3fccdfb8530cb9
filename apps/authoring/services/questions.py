"""Quiz questions, written from their quiz-file document (fixtures/quizzes) by the code that
loads the shipped quizzes: a question is valid in the editor exactly when it is in a file."""

from typing import Any

from django.db import transaction
from django.db.models import Max

from apps.authoring.models import Revision
from apps.authoring.services.fields import order_swap, text_clean
from apps.authoring.services.revisions import (
    Source,
    original_keep,
    question_data,
    revision_add,
)
from apps.decks.content import ContentError
from apps.decks.selectors import card_names
from apps.quizzes.content import DrillRefused, question_apply, question_parse
from apps.quizzes.models import Question, Quiz
from config.errors import ServiceError


def _question_doc(quiz: Quiz, data: dict[str, Any], index: int = 0):
    card_slugs = set(card_names(quiz.deck))
    try:
        return question_parse("question", f"quiz {quiz.slug!r}", index, data, card_slugs, quiz.kind)
    except DrillRefused as exc:
        raise ServiceError(exc.problem, field=exc.field) from None
    except ContentError as exc:
        raise ServiceError(exc.problem, field="question") from None


def question_reload(pk: int) -> Question:
    return Question.objects.prefetch_related("cards", "choices", "statements", "pairs").get(pk=pk)


@transaction.atomic
def question_save(
    *,
    quiz: Quiz,
    data: dict[str, Any],
    author,
    question: Question | None = None,
    note: str = "",
    source: str = Source.EDITOR,
    restored_from: Revision | None = None,
) -> tuple[Question, Revision | None]:
    """Create (question=None) or edit a question from its quiz-file document. Choices keep
    their public keys when their text is unchanged, as a re-seed does."""
    texts = {
        k: text_clean(data[k]) for k in ("prompt", "explanation") if isinstance(data.get(k), str)
    }
    doc = _question_doc(quiz, {**data, **texts})
    clash = quiz.questions.filter(slug=doc.slug)
    if question is not None:
        clash = clash.exclude(pk=question.pk)
    if clash.exists():
        raise ServiceError(f"quiz {quiz.slug!r} already has a question {doc.slug!r}", field="slug")
    cards = card_names(quiz.deck)
    if question is None:
        top = quiz.questions.aggregate(n=Max("order"))["n"]
        order = 0 if top is None else top + 1
        question_apply(quiz, doc, order, {}, cards)
        question = question_reload(quiz.questions.get(slug=doc.slug).pk)
        revision = revision_add(
            question=question, data=question_data(question), author=author,
            note=note or "created", source=source,
        )  # fmt: skip
        return question, revision
    question = question_reload(question.pk)
    before = question_data(question)
    if doc.slug != question.slug:
        question.slug = doc.slug
        question.save(update_fields=["slug"])
    question_apply(quiz, doc, question.order, {doc.slug: question}, cards)
    question = question_reload(question.pk)
    after = question_data(question)
    if after == before:
        return question, None
    original_keep(question=question, data=before)
    revision = revision_add(
        question=question, data=after, author=author, note=note, source=source,
        restored_from=restored_from,
    )  # fmt: skip
    return question, revision


@transaction.atomic
def question_move(*, question: Question, direction: str) -> bool:
    """Move a question one place up or down in its quiz (the author's order)."""
    return order_swap(question.quiz.questions.all(), question, direction, parent=question.quiz)


@transaction.atomic
def question_delete(*, question: Question) -> None:
    question.delete()
