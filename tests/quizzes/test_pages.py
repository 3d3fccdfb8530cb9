"""Quiz pages, as alice uses them: checkpoints on the section page, a knowledge check taken,
autosaved, submitted and reviewed, history and best score, and the time limit."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.quizzes.forms import field_name
from apps.quizzes.models import Attempt
from apps.study.models import CardState
from tests.quizzes.conftest import q, wrong_single


@pytest.fixture
def browser(client, alice):
    client.force_login(alice)
    return client


def form_data(answers_by_question: dict) -> dict:
    """POST data as the page's form sends it, from {question or its slug: answer}."""
    data = {}
    for question, answer in answers_by_question.items():
        question = q(question) if isinstance(question, str) else question
        if isinstance(answer, dict):
            for item, value in answer.items():
                data[field_name(question, item)] = (
                    ("true" if value else "false") if isinstance(value, bool) else value
                )
        else:
            data[field_name(question)] = answer
    return data


def all_right_but_single() -> dict:
    multi, tf, match = q("store-multi"), q("task-tf"), q("core-match-scored")
    return {
        "actor-single": wrong_single(q("actor-single")),
        "store-multi": [c.key for c in multi.choices.filter(correct=True)],
        "task-tf": {s.key: s.answer for s in tf.statements.all()},
        "core-match-scored": {p.left_key: p.right_key for p in match.pairs.all()},
    }


def start(browser, slug="core-check") -> Attempt:
    response = browser.post(reverse("quizzes:start", args=[slug]))
    attempt = Attempt.objects.latest("pk")
    assert response.status_code == 302 and response["Location"] == attempt.get_absolute_url()
    return attempt


def test_index_lists_knowledge_checks_and_checkpoints(client, quizzes):
    html = client.get(reverse("quizzes:index")).content.decode()
    assert "Ray core knowledge check" in html and "Final check" in html
    assert "/decks/ray-basics/ray-core/#quiz-checkpoint-core" in html


def test_a_knowledge_check_from_start_to_review(browser, alice, core_check):
    attempt = start(browser)
    page = browser.get(attempt.get_absolute_url())
    assert page.status_code == 200
    html = page.content.decode()
    assert "What keeps state between calls?" in html and "<select" in html
    assert (
        'type="radio" name="' + field_name(q("task-tf"), q("task-tf").statements.first().key)
        in html
    )

    answers = all_right_but_single()
    saved = browser.post(
        reverse("quizzes:attempt-save", args=[attempt.pk]),
        form_data(answers),
        HTTP_HX_REQUEST="true",
    )
    assert saved.status_code == 200 and b"Saved at" in saved.content
    attempt.refresh_from_db()
    assert attempt.answers[q("store-multi").key] and attempt.is_open

    done = browser.post(attempt.get_absolute_url(), form_data(answers))
    assert done.status_code == 302
    attempt.refresh_from_db()
    assert (attempt.score, attempt.max_score, attempt.timed_out) == (6, 7, False)

    result = browser.get(attempt.get_absolute_url()).content.decode()
    assert "An <strong>actor</strong> is a process with state." in result  # explanation
    assert 'href="/decks/ray-basics/ray-core/#card-ray-actor"' in result  # its card
    assert "Review these (1 card)" in result
    assert "Missed" in result and "right, you did not pick it" in result

    # "review these": the missed question's card is due now; nothing else is touched
    response = browser.post(reverse("quizzes:review", args=[attempt.pk]), follow=True)
    assert b"1 card queued" in response.content
    state = CardState.objects.get(user=alice)
    assert state.card.slug == "ray-actor" and state.due_at <= timezone.now()

    # history and best score on the quiz page
    quiz_page = browser.get(reverse("quizzes:quiz", args=["core-check"])).content.decode()
    assert 'Best score: <strong id="best-score">6 / 7</strong>' in quiz_page
    index = browser.get(reverse("quizzes:index")).content.decode()
    assert "best 6 / 7 · 1 attempt" in index


def test_review_these_keeps_an_existing_schedule_but_makes_it_due_now(browser, alice, core_check):
    from apps.study.services import cards_requeue

    actor = q("actor-single").cards.get()
    cards_requeue(user=alice, cards=[actor])
    CardState.objects.filter(user=alice).update(
        due_at=timezone.now() + timedelta(days=6), interval_days=6, repetitions=2
    )
    attempt = start(browser)
    browser.post(
        attempt.get_absolute_url(), form_data({"actor-single": wrong_single(q("actor-single"))})
    )
    browser.post(reverse("quizzes:review", args=[attempt.pk]))
    state = CardState.objects.get(user=alice, card=actor)
    assert state.due_at <= timezone.now()
    assert (state.interval_days, state.repetitions) == (6, 2)
    # the other missed questions' cards (left unanswered) are queued too
    assert CardState.objects.filter(user=alice).count() == 3  # ray-actor, object-store, ray-task


def test_start_resumes_an_open_attempt_and_others_cannot_see_it(browser, client, bob, core_check):
    attempt = start(browser)
    assert start(browser) == attempt
    client.force_login(bob)
    assert client.get(attempt.get_absolute_url()).status_code == 404
    assert client.post(reverse("quizzes:review", args=[attempt.pk])).status_code == 404


def test_pages_need_a_login_to_take_a_quiz(client, core_check):
    page = client.get(reverse("quizzes:quiz", args=["core-check"]))
    assert page.status_code == 200 and b"Log in to take it" in page.content
    response = client.post(reverse("quizzes:start", args=["core-check"]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not Attempt.objects.exists()


def test_a_tampered_form_is_refused_with_a_message_and_nothing_recorded(browser, core_check):
    attempt = start(browser)
    data = {field_name(q("actor-single")): q("store-multi").choices.first().key}
    response = browser.post(attempt.get_absolute_url(), data)
    assert response.status_code == 400
    assert "belongs to question" in response.content.decode()
    attempt.refresh_from_db()
    assert attempt.is_open and attempt.score is None


# --- the time limit, kept by the server ----------------------------------------------------


def test_time_out_scores_what_was_saved_before_the_deadline(browser, final_check):
    attempt = start(browser, "final-check")
    assert attempt.deadline == attempt.started_at + timedelta(seconds=60)
    single = q("algo-single")
    right = single.choices.get(correct=True).key
    browser.post(reverse("quizzes:attempt-save", args=[attempt.pk]), {field_name(single): right})
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=30))

    # answers posted after the deadline are not taken: the autosaved ones are scored
    tf = q("runner-tf")
    late = {field_name(tf, tf.statements.get().key): "true"}
    late_save = browser.post(
        reverse("quizzes:attempt-save", args=[attempt.pk]), late, HTTP_HX_REQUEST="true"
    )
    assert late_save["HX-Redirect"] == attempt.get_absolute_url()
    response = browser.post(attempt.get_absolute_url(), {**late, field_name(single): right})
    assert response.status_code == 302
    attempt.refresh_from_db()
    assert attempt.timed_out and attempt.score == 1 and attempt.max_score == 2
    result = browser.get(attempt.get_absolute_url()).content.decode()
    assert "when time ran out" in result


def test_an_abandoned_timed_attempt_is_scored_when_next_visited(browser, final_check):
    attempt = start(browser, "final-check")
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(minutes=5))
    response = browser.get(attempt.get_absolute_url())
    assert response.status_code == 302
    attempt.refresh_from_db()
    assert attempt.timed_out and attempt.score == 0
    assert start(browser, "final-check") != attempt


def test_the_attempt_page_shows_the_countdown(browser, final_check):
    attempt = start(browser, "final-check")
    html = browser.get(attempt.get_absolute_url()).content.decode()
    assert 'id="timer" data-seconds-left="' in html and "quizzes/quiz.js" in html


# --- checkpoints on the section page -------------------------------------------------------


def test_the_section_page_shows_its_checkpoints_and_links_its_knowledge_check(client, quizzes):
    html = client.get("/decks/ray-basics/ray-core/").content.decode()
    assert 'id="quiz-checkpoint-core"' in html
    match = q("core-match")
    assert f'hx-post="/quizzes/checkpoints/checkpoint-core/{match.key}/"' in html
    assert html.count("<select") == 3
    assert reverse("quizzes:quiz", args=["core-check"]) in html
    # practice, "not scored": no question says what it is worth
    assert (
        "not scored" in html
        and " point" not in html.split('id="quiz-checkpoint-core"')[1].split("</section>")[0]
    )
    # the other section has neither
    other = client.get("/decks/ray-basics/rllib/").content.decode()
    assert "Guided checkpoint" not in other


def test_a_checkpoint_gives_feedback_at_once_and_records_nothing(client, quizzes):
    match = q("core-match")
    pairs = {p.left: p for p in match.pairs.all()}
    data = {
        field_name(match, pairs["Task"].left_key): pairs["Task"].right_key,
        field_name(match, pairs["Actor"].left_key): pairs["Object store"].right_key,
    }
    url = reverse("quizzes:checkpoint-check", args=["checkpoint-core", match.key])
    response = client.post(url, data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html  # a fragment for htmx
    assert "0.33" in html and "Partly right" in html
    assert "Tasks are stateless; actors keep state." in html
    assert 'href="/decks/ray-basics/ray-core/#card-ray-task"' in html
    assert not Attempt.objects.exists()
    # without htmx the same view serves a whole page
    page = client.post(url, data)
    assert page.status_code == 200 and b"<html" in page.content


def test_a_bad_checkpoint_post_says_why(client, quizzes):
    match = q("core-match")
    left = match.pairs.first().left_key
    url = reverse("quizzes:checkpoint-check", args=["checkpoint-core", match.key])
    response = client.post(url, {field_name(match, left): "nonsense"})
    assert response.status_code == 400
    assert b"is not a right-hand item of this question" in response.content


def test_the_section_page_query_count_does_not_grow_with_checkpoints(
    client, quizzes, django_assert_num_queries
):
    # the decks page's 7 (section, concepts, cards, neighbours, quizzes, demo links, exercises) +
    # questions, choices, statements, pairs; the same for one checkpoint question or fifty
    with django_assert_num_queries(11):
        assert client.get("/decks/ray-basics/ray-core/").status_code == 200


def test_query_counts_are_pinned(browser, core_check, django_assert_num_queries):
    attempt = start(browser)
    browser.post(attempt.get_absolute_url(), form_data(all_right_but_single()))
    # session, user, profile; attempt, quiz, questions, choices, statements, pairs, cards; best;
    # which of the missed cards the learner suspended ("review these" leaves them out)
    with django_assert_num_queries(12):
        assert browser.get(attempt.get_absolute_url()).status_code == 200
    with django_assert_num_queries(4):  # session, user, quizzes with subqueries, ...
        assert browser.get(reverse("quizzes:index")).status_code == 200


def test_every_shipped_knowledge_check_can_be_taken_and_reviewed(seeded, browser, alice):
    from apps.quizzes.models import Quiz

    for quiz in Quiz.objects.filter(kind="knowledge_check"):
        attempt = start(browser, quiz.slug)
        answers = {spec.id: spec.key for spec in quiz.scoring_questions(attempt.seed)}
        first = next(iter(answers))
        answers.pop(first)  # miss one: its cards are offered for review
        response = browser.post(
            attempt.get_absolute_url(),
            form_data(
                {q_.slug: answers[q_.key] for q_ in quiz.questions.all() if q_.key in answers}
            ),
        )
        assert response.status_code == 302, quiz.slug
        attempt.refresh_from_db()
        assert attempt.score == attempt.max_score - quiz.questions.get(key=first).points
        html = browser.get(attempt.get_absolute_url()).content.decode()
        assert "Review these" in html and "Not answered" in html, quiz.slug


def test_review_these_before_submitting_says_so_instead_of_claiming_full_marks(browser, core_check):
    attempt = start(browser)
    response = browser.post(reverse("quizzes:review", args=[attempt.pk]), follow=True)
    messages = [str(m) for m in response.context["messages"]]
    assert messages == ["Submit the quiz first: then its missed questions' cards can be queued."]
    assert "every question got full marks" not in response.content.decode()
    assert not CardState.objects.exists()


def test_the_best_score_counts_attempts_older_than_the_history_shown(browser, alice, core_check):
    """The page lists the last 50 attempts; the best one may be older than those."""
    now = timezone.now()
    Attempt.objects.create(
        user=alice, quiz=core_check, score=7, max_score=7, passed=True,
        started_at=now - timedelta(days=60), submitted_at=now - timedelta(days=60),
    )  # fmt: skip
    Attempt.objects.bulk_create(
        Attempt(
            user=alice,
            quiz=core_check,
            score=1,
            max_score=7,
            started_at=now - timedelta(days=i),
            submitted_at=now - timedelta(days=i),
        )
        for i in range(50)
    )
    html = browser.get(reverse("quizzes:quiz", args=["core-check"])).content.decode()
    assert '<strong id="best-score">7 / 7</strong>' in html


def test_scoring_and_saving_an_attempt_does_not_query_per_question(browser, final_check):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.quizzes.models import Choice, Question

    def abandoned() -> Attempt:
        attempt = start(browser, "final-check")
        Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(hours=1))
        return attempt

    def expire_on_visit_and_on_restart() -> tuple[int, ...]:
        attempt = abandoned()
        with CaptureQueriesContext(connection) as visit:
            assert browser.get(attempt.get_absolute_url()).status_code == 302
        abandoned()
        with CaptureQueriesContext(connection) as restart:
            attempt = start(browser, "final-check")
        with CaptureQueriesContext(connection) as autosave:
            browser.post(reverse("quizzes:attempt-save", args=[attempt.pk]), {})
        with CaptureQueriesContext(connection) as submit:
            browser.post(attempt.get_absolute_url(), {})
        Attempt.objects.filter(user=attempt.user).delete()
        return len(visit), len(restart), len(autosave), len(submit)

    before = expire_on_visit_and_on_restart()
    for i in range(6):
        question = Question.objects.create(
            quiz=final_check, slug=f"extra-{i}", kind="single", prompt="?", explanation="."
        )
        Choice.objects.create(question=question, text="yes", correct=True)
    assert expire_on_visit_and_on_restart() == before


def test_the_result_says_the_pass_mark_as_a_percentage_and_leaves_suspended_cards_out(
    browser, alice, core_check
):
    from apps.decks.models import Card
    from apps.study.services import card_suspend

    actor = Card.objects.get(slug="ray-actor")
    card_suspend(user=alice, card=actor, suspended=True)
    attempt = start(browser)
    browser.post(attempt.get_absolute_url(), form_data({}))  # nothing answered: all missed
    page = browser.get(attempt.get_absolute_url()).content.decode()
    assert "pass mark 70% of the points" in page and "0.70" not in page
    assert "Review these (2 cards)" in page  # the task and the object store; not the actor
    assert "1 you suspended stays out" in page
    location = browser.post(reverse("quizzes:review", args=[attempt.pk]))["Location"]
    assert str(actor.pk) not in location.split("cards=")[1].split(",")
    assert '<h2 id="answers-title">' in page  # before the questions' h3s
