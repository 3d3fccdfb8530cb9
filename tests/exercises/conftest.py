"""A small world for exercises: the small deck with one checked exercise, learners, and small
sandbox limits (1 s of CPU, 2 s in all, 256 MB), so every real sandbox run here takes at most a
couple of seconds."""

import os

import pytest

from apps.exercises import services, worker
from apps.exercises.content import ExerciseDoc
from apps.exercises.models import Submission

BWRAP = "/usr/bin/bwrap"
needs_bwrap = pytest.mark.skipif(
    not os.access(BWRAP, os.X_OK),
    reason="bubblewrap is not installed here (apt-get install bubblewrap; .ci/run installs it)",
)

EXAMPLES = """\
from solution import add


def test_small_numbers():
    assert add(1, 2) == 3, f"add(1, 2) is {add(1, 2)}, expected 3"
"""
HIDDEN = """\
from solution import add


def test_hidden_negative_zz9():
    assert add(-2, -3) == -5, f"add(-2, -3) is {add(-2, -3)}, expected -5"


def test_hidden_large():
    assert add(10**12, 1) == 10**12 + 1, "add fails on large numbers"
"""
REFERENCE = "def add(a, b):\n    return a + b  # reference_marker_q1\n"
GOOD = "def add(a, b):\n    return b + a\n"
WRONG = "def add(a, b):\n    return abs(a) + abs(b)\n"


def adder_doc(**changes) -> ExerciseDoc:
    fields = {
        "slug": "add-two",
        "title": "Add two numbers",
        "prompt": "Write `add(a, b)`.",
        "cards": ["ray-task"],
        "source": "Arithmetic, §1",
        "section": "ray-core",
        "starter": "def add(a, b):\n    pass\n",
        "examples": EXAMPLES,
        "tests": HIDDEN,
        "reference": REFERENCE,
        "wrong": [{"mistake": "drops the signs", "code": WRONG}],
    }
    return ExerciseDoc(**{**fields, **changes})


@pytest.fixture
def small_limits(settings):
    settings.EXERCISES_CPU_S = 1
    settings.EXERCISES_WALL_S = 2
    settings.EXERCISES_MEMORY_MB = 256
    settings.EXERCISES_PROCESSES = 16
    settings.EXERCISES_OUTPUT_KB = 256


@pytest.fixture
def adder(small_deck, small_limits):
    """A checked, live exercise of the small deck (section ray-core, card ray-task)."""
    revision, _ = services.exercise_save(deck=small_deck, doc=adder_doc(), accept=True)
    return revision.exercise


def submit(user, exercise, code: str, mode: str = "submit") -> Submission:
    """A learner's submission, queued as the page does, then run by the worker code (the
    Celery task's body) in a real sandbox."""
    submission, _ = services.submission_create(user=user, exercise=exercise, code=code, mode=mode)
    worker.submission_run(submission_id=submission.pk)
    submission.refresh_from_db()
    return submission
