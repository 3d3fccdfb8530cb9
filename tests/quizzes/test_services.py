"""Attempts: start, resume, submit once, expire; the scoring core seen through the models."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.quizzes import scoring, services
from apps.quizzes.models import Attempt
from tests.quizzes.conftest import q, right_answers


def test_checkpoints_are_never_started_as_scored_attempts(alice, quizzes):
    with pytest.raises(services.AttemptRejected, match="not scored"):
        services.attempt_start(user=alice, quiz=quizzes["checkpoint-core"])
    with pytest.raises(services.AttemptRejected, match="is a checkpoint"):
        services.attempt_record(user=alice, quiz=quizzes["checkpoint-core"], answers={})
    assert not Attempt.objects.exists()


def test_a_second_submit_of_the_same_attempt_changes_nothing(alice, core_check):
    attempt = services.attempt_start(user=alice, quiz=core_check)
    stale = Attempt.objects.get(pk=attempt.pk)
    services.attempt_submit(attempt=attempt, answers=right_answers(core_check))
    # another tab still holds the open attempt and submits nothing
    again = services.attempt_submit(attempt=stale, answers={})
    assert again.score == 7 and again.submitted_at == attempt.submitted_at
    assert Attempt.objects.submitted().count() == 1


def test_autosave_refuses_bad_answers_and_late_ones(alice, final_check):
    attempt = services.attempt_start(user=alice, quiz=final_check)
    with pytest.raises(services.AttemptRejected, match="is not in this quiz"):
        services.attempt_save(attempt=attempt, answers={"nope": "x"})
    late = attempt.deadline + timedelta(seconds=6)
    assert services.attempt_save(attempt=attempt, answers={}, now=late) is False
    attempt.refresh_from_db()
    assert attempt.saved_at is None


def test_the_deadline_is_start_plus_limit_and_untimed_attempts_have_none(alice, quizzes):
    now = timezone.now()
    timed = services.attempt_start(user=alice, quiz=quizzes["final-check"], now=now)
    assert timed.deadline == now + timedelta(seconds=60)
    assert timed.seconds_left(now + timedelta(seconds=15)) == 45
    untimed = services.attempt_start(user=alice, quiz=quizzes["core-check"], now=now)
    assert untimed.deadline is None and untimed.accepts_answers(now + timedelta(days=3))


def test_best_score_and_pass_mark(alice, core_check):
    for answers in ({}, right_answers(core_check)):
        attempt = services.attempt_start(user=alice, quiz=core_check)
        services.attempt_submit(attempt=attempt, answers=answers)
    scores = sorted(Attempt.objects.values_list("score", flat=True))
    assert scores == [0, 7]
    best = Attempt.objects.get(score=7)
    assert best.passed and best.percent == 100


def test_missed_cards_are_those_of_questions_short_of_full_marks(alice, core_check):
    answers = right_answers(core_check)
    multi = q("store-multi")
    answers[multi.key] = answers[multi.key][:2]  # 2 of 3 right picks: partial, so missed
    attempt = services.attempt_start(user=alice, quiz=core_check)
    attempt = services.attempt_submit(attempt=attempt, answers=answers)
    assert [c.slug for c in services.attempt_missed_cards(attempt)] == ["object-store"]
    assert float(attempt.score) == pytest.approx(6.0)


# The quiz is only read, so one fixture for all examples is right.
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_mix_of_picks_scores_within_zero_and_the_points(core_check, data):
    """Whatever a learner picks from the real options, every question stays in [0, points]."""
    answers = {}
    for spec in core_check.scoring_questions():
        if spec.kind == scoring.SINGLE:
            answers[spec.id] = data.draw(st.sampled_from(spec.choice_ids))
        elif spec.kind == scoring.MULTI:
            answers[spec.id] = data.draw(st.lists(st.sampled_from(spec.choice_ids), unique=True))
        elif spec.kind == scoring.TRUE_FALSE:
            answers[spec.id] = data.draw(
                st.fixed_dictionaries({k: st.booleans() for k in spec.key})
            )
        else:
            rights = sorted(spec.key.values())
            answers[spec.id] = data.draw(
                st.fixed_dictionaries({k: st.sampled_from(rights) for k in spec.key})
            )
    questions = core_check.scoring_questions()
    assert scoring.answer_problems(questions, answers) == []
    result = scoring.score_quiz(questions, answers)
    assert 0 <= result.score <= result.max_score == 7
    for spec, scored in zip(questions, result.questions, strict=True):
        assert 0 <= scored.points <= spec.points


def test_shuffle_false_keeps_author_question_order_and_a_fixed_blind_option_order(
    alice, core_check
):
    core_check.shuffle = False
    core_check.save()
    orders = set()
    for _ in range(5):
        attempt = Attempt(user=alice, quiz=core_check)  # a fresh seed each
        questions = core_check.ordered_questions(attempt.seed)
        assert [qn.slug for qn in questions] == [
            "actor-single", "store-multi", "task-tf", "core-match-scored"
        ]  # fmt: skip
        seed = core_check.option_seed(attempt.seed)
        orders.add(tuple(c.key for c in questions[1].options(seed)))
    assert len(orders) == 1
    assert list(orders.pop()) == sorted(c.key for c in q("store-multi").choices.all())


def test_one_open_attempt_per_learner_and_quiz(alice, core_check):
    first = services.attempt_start(user=alice, quiz=core_check)
    Attempt.objects.filter(pk=first.pk).update(deadline=None)
    with pytest.raises(IntegrityError), transaction.atomic():
        Attempt.objects.create(user=alice, quiz=core_check)
    # the API's one-shot attempt at an untimed quiz does not disturb the page's open one
    services.attempt_record(user=alice, quiz=core_check, answers={})
    assert Attempt.objects.open().get() == first
    assert Attempt.objects.submitted().count() == 1


@pytest.fixture
def thirds_quiz(small_deck):
    """One select-all question with three right options and a pass mark of 0.67: two right
    picks score exactly 2/3, which is shown as 0.67 but is short of the mark."""
    from apps.quizzes.models import Choice, Question, Quiz

    quiz = Quiz.objects.create(
        deck=small_deck, slug="thirds", title="Thirds", kind="knowledge_check", pass_mark="0.67"
    )
    question = Question.objects.create(
        quiz=quiz, slug="three", kind="multi", prompt="Pick", explanation="Three are right."
    )
    for i, correct in enumerate([True, True, True, False]):
        Choice.objects.create(question=question, text=f"option {i}", correct=correct, order=i)
    return quiz


def two_right_picks(quiz) -> dict:
    question = quiz.questions.get()
    return {question.key: [c.key for c in question.choices.filter(correct=True)][:2]}


def test_passing_is_decided_on_the_exact_score_not_the_rounded_one(alice, thirds_quiz):
    attempt, _ = services.attempt_record(
        user=alice, quiz=thirds_quiz, answers=two_right_picks(thirds_quiz)
    )
    assert str(attempt.score) == "0.67"  # shown rounded
    assert not attempt.passed  # 2/3 < 0.67
    checked = services.checkpoint_score(quiz=thirds_quiz, answers=two_right_picks(thirds_quiz))
    assert not checked["passed"]


def test_a_pass_stays_as_scored_when_the_pass_mark_changes_later(alice, thirds_quiz):
    thirds_quiz.pass_mark = "0.6"
    thirds_quiz.save()
    attempt, _ = services.attempt_record(
        user=alice, quiz=thirds_quiz, answers=two_right_picks(thirds_quiz)
    )
    thirds_quiz.pass_mark = "0.9"
    thirds_quiz.save()
    attempt = Attempt.objects.get(pk=attempt.pk)
    assert attempt.passed  # history shows the attempt as it was scored


@pytest.mark.django_db(transaction=True)
def test_starting_outside_a_transaction_creates_one_attempt_and_resumes_it(alice, quizzes):
    """As on a server (autocommit): the start is a read and a plain insert, no transaction."""
    from apps.quizzes.models import Quiz

    quiz = Quiz.objects.get(slug="final-check")
    assert not transaction.get_connection().in_atomic_block
    first = services.attempt_start(user=alice, quiz=quiz)
    assert services.attempt_start(user=alice, quiz=quiz).pk == first.pk
    Attempt.objects.filter(pk=first.pk).update(deadline=timezone.now() - timedelta(minutes=5))
    second = services.attempt_start(user=alice, quiz=quiz)
    assert second.pk != first.pk and second.is_open
    first.refresh_from_db()
    assert first.timed_out and first.score == 0
    recorded, created = services.attempt_record(user=alice, quiz=quiz, answers=right_answers(quiz))
    assert created
    assert recorded.pk == second.pk
    stored = Attempt.objects.get(pk=second.pk)
    assert (stored.score, stored.max_score, stored.passed, stored.results) == (
        recorded.score, recorded.max_score, recorded.passed, recorded.results,
    )  # fmt: skip
