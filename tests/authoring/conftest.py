"""Authoring's world: dave authors ray-basics (not staff), alice studies it, staff edits all."""

import pytest

from apps.authoring.models import DeckAuthor
from apps.decks.models import Card
from apps.quizzes.models import Choice, Question, Quiz
from apps.study.models import CardState
from apps.study.services import review_record


@pytest.fixture
def small_deck(small_deck):
    """The shared deck, with card order counted per section as the deck loader writes it, so an
    import of its own export reports nothing changed."""
    for section in small_deck.sections.all():
        for order, card in enumerate(section.cards.order_by("order")):
            Card.objects.filter(pk=card.pk).update(order=order)
    return small_deck


@pytest.fixture
def dave(django_user_model, small_deck):
    user = django_user_model.objects.create_user(username="dave", password="pw-dave-123")
    DeckAuthor.objects.create(deck=small_deck, user=user)
    return user


@pytest.fixture
def ray_task(small_deck) -> Card:
    return small_deck.cards.get(slug="ray-task")


@pytest.fixture
def alice_studied(alice, ray_task) -> CardState:
    """alice graded ray-task 5 once: due again tomorrow, with one review in her history."""
    review_record(user=alice, card=ray_task, grade=5)
    return CardState.objects.get(user=alice, card=ray_task)


@pytest.fixture
def quiz(small_deck):
    """A knowledge check with one single-choice question taught by ray-task."""
    quiz = Quiz.objects.create(
        deck=small_deck, slug="ray-basics-check", title="Ray basics check", kind="knowledge_check"
    )
    question = Question.objects.create(
        quiz=quiz, slug="task-or-actor", kind="single", prompt="Which one keeps state?",
        explanation="An actor is a process with state.",
    )  # fmt: skip
    Choice.objects.create(question=question, text="An actor", correct=True, order=0)
    Choice.objects.create(question=question, text="A task", correct=False, order=1)
    question.cards.set([small_deck.cards.get(slug="ray-actor")])
    return quiz


@pytest.fixture
def question(quiz) -> Question:
    return quiz.questions.get()
