"""A small quiz world on the `small_deck`: one question of each kind, a checkpoint, a section
check and a timed final, loaded through the real loader."""

from pathlib import Path

import pytest

from apps.quizzes.content import quiz_file_load
from apps.quizzes.models import Question, Quiz

QUIZ_FILE = """
deck: ray-basics
quizzes:
  - slug: checkpoint-core
    title: Match the Ray primitives
    kind: checkpoint
    section: ray-core
    questions:
      - slug: core-match
        kind: match
        prompt: Match each primitive to what it is.
        explanation: Tasks are stateless; actors keep state.
        cards: [ray-task, ray-actor]
        pairs:
          - {left: Task, right: Stateless remote call}
          - {left: Actor, right: Stateful worker}
          - {left: Object store, right: Shared immutable objects}
  - slug: core-check
    title: Ray core knowledge check
    kind: knowledge_check
    section: ray-core
    pass_mark: 0.7
    questions:
      - slug: actor-single
        kind: single
        prompt: What keeps state between calls?
        explanation: An **actor** is a process with state.
        cards: [ray-actor]
        choices:
          - {text: A task, correct: false}
          - {text: An actor, correct: true}
          - {text: An ObjectRef}
      - slug: store-multi
        kind: multi
        prompt: Select all that are true of the object store.
        explanation: It is shared memory per node holding immutable objects.
        points: 3
        cards: [object-store]
        choices:
          - {text: It is per node, correct: true}
          - {text: Objects in it are immutable, correct: true}
          - {text: Objects pass through the GCS}
          - {text: It is shared memory, correct: true}
      - slug: task-tf
        kind: true_false
        prompt: Mark each statement.
        explanation: Tasks are stateless and can run anywhere.
        points: 2
        cards: [ray-task]
        statements:
          - {text: A task keeps state between calls, answer: false}
          - {text: A task returns an ObjectRef at once, answer: true}
      - slug: core-match-scored
        kind: match
        prompt: Match them.
        explanation: As in the checkpoint.
        cards: [ray-task, ray-actor, object-store]
        pairs:
          - {left: Task, right: Stateless remote call}
          - {left: Actor, right: Stateful worker}
  - slug: final-check
    title: Final check
    kind: knowledge_check
    time_limit_seconds: 60
    questions:
      - slug: algo-single
        kind: single
        prompt: What coordinates training in RLlib?
        explanation: The Algorithm.
        cards: [rllib-algorithm]
        choices:
          - {text: The Algorithm, correct: true}
          - {text: An EnvRunner}
      - slug: runner-tf
        kind: true_false
        prompt: Is this true?
        explanation: EnvRunners step environments.
        cards: [env-runner]
        statements:
          - {text: EnvRunners step environments, answer: true}
"""


@pytest.fixture
def quiz_path(tmp_path) -> Path:
    path = tmp_path / "ray-basics.yaml"
    path.write_text(QUIZ_FILE)
    return path


@pytest.fixture
def quizzes(small_deck, quiz_path):
    quiz_file_load(quiz_path)
    return {q.slug: q for q in Quiz.objects.all()}


@pytest.fixture
def core_check(quizzes) -> Quiz:
    return quizzes["core-check"]


@pytest.fixture
def final_check(quizzes) -> Quiz:
    return quizzes["final-check"]


def q(slug: str) -> Question:
    return Question.objects.get(slug=slug)


def right_answers(quiz: Quiz) -> dict:
    """Full marks, built from the answer key (what a perfect learner would post)."""
    return {spec.id: spec.key for spec in quiz.scoring_questions()}


def wrong_single(question: Question) -> str:
    return next(c.key for c in question.choices.all() if not c.correct)
