"""The quiz API: list, detail without answers, attempts scored per DESIGN.md, and every
rejection a 400 that names the question and records nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.quizzes.models import Attempt
from tests.quizzes.conftest import q, right_answers, wrong_single


@pytest.fixture
def client(api_client, alice):
    api_client.force_authenticate(alice)
    return api_client


def post(client, slug, answers):
    return client.post(f"/api/quizzes/{slug}/attempts/", {"answers": answers}, format="json")


def test_list(api_client, quizzes):
    response = api_client.get("/api/quizzes/")
    assert response.status_code == 200
    by_slug = {row["slug"]: row for row in response.json()}
    assert by_slug["core-check"] == {
        "slug": "core-check",
        "title": "Ray core knowledge check",
        "kind": "knowledge_check",
        "section": "ray-core",
        "question_count": 4,
    }
    assert by_slug["final-check"]["section"] is None
    assert by_slug["checkpoint-core"]["kind"] == "checkpoint"


def test_detail_shape(api_client, core_check):
    data = api_client.get("/api/quizzes/core-check/").json()
    assert data["attempt"] is None and data["question_count"] == 4
    kinds = {question["kind"]: question for question in data["questions"]}
    assert set(kinds["single"]) == {"id", "kind", "prompt", "prompt_html", "points", "choices"}
    assert set(kinds["single"]["choices"][0]) == {"id", "text", "text_html"}
    assert len(kinds["multi"]["choices"]) == 4 and kinds["multi"]["points"] == 3
    assert len(kinds["true_false"]["statements"]) == 2
    match = kinds["match"]
    assert {item["text"] for item in match["right"]} == {"Stateless remote call", "Stateful worker"}
    assert {item["id"] for item in match["left"]}.isdisjoint({i["id"] for i in match["right"]})


def test_full_marks_then_the_result_shows_right_answers_explanations_and_cards(client, core_check):
    response = post(client, "core-check", right_answers(core_check))
    assert response.status_code == 201, response.json()
    data = response.json()
    assert (data["score"], data["max_score"], data["passed"]) == (7.0, 7, True)
    attempt = Attempt.objects.get()
    assert data["id"] == attempt.pk and attempt.score == 7
    single = next(r for r in data["questions"] if r["id"] == q("actor-single").key)
    assert single["correct_answer"] == q("actor-single").choices.get(correct=True).key
    assert single["explanation"] == "An **actor** is a process with state."
    assert single["cards"] == [
        {
            "id": single["cards"][0]["id"],
            "slug": "ray-actor",
            "url": "/decks/ray-basics/ray-core/#card-ray-actor",
        }
    ]


def test_partial_answers_and_left_out_questions(client, core_check):
    multi, tf, match = q("store-multi"), q("task-tf"), q("core-match-scored")
    right = [c.key for c in multi.choices.filter(correct=True)]
    wrong = multi.choices.get(correct=False).key
    statements = {s.text: s.key for s in tf.statements.all()}
    pairs = {p.left: p for p in match.pairs.all()}
    answers = {
        q("actor-single").key: wrong_single(q("actor-single")),  # 0 of 1
        multi.key: [*right[:2], wrong],  # (2 - 1) / 3 of 3 points = 1
        tf.key: {statements["A task keeps state between calls"]: False},  # 1/2 of 2 = 1
        match.key: {pairs["Task"].left_key: pairs["Actor"].right_key},  # 0 of 1
    }
    data = post(client, "core-check", answers).json()
    points = {r["id"]: r["points"] for r in data["questions"]}
    assert points == {q("actor-single").key: 0, multi.key: 1, tf.key: 1, match.key: 0}
    assert data["score"] == 2 and not data["passed"]
    # the right answer comes back in the shape of an answer
    result = {r["id"]: r for r in data["questions"]}
    assert sorted(result[multi.key]["correct_answer"]) == sorted(right)
    assert result[tf.key]["correct_answer"] == {
        statements["A task keeps state between calls"]: False,
        statements["A task returns an ObjectRef at once"]: True,
    }
    assert post(client, "core-check", {}).json()["score"] == 0


@pytest.mark.parametrize(
    ("answers", "says"),
    [
        (lambda: {"nope": "x"}, 'question "nope" is not in this quiz'),
        (
            lambda: {q("actor-single").key: q("store-multi").choices.first().key},
            "belongs to question",
        ),
        (lambda: {q("actor-single").key: "not-a-choice"}, "is not a choice of this question"),
        (lambda: {q("core-match-scored").key: ["a", "b"]}, "the matching must be an object"),
        (
            lambda: {
                q("core-match-scored").key: {q("core-match-scored").pairs.first().left_key: 7}
            },
            "right-hand item ids are strings",
        ),
        (lambda: {q("task-tf").key: {q("task-tf").statements.first().key: "yes"}}, "true or false"),
        (lambda: ["not", "a", "map"], "answers must be an object"),
        # an id of a checkpoint question is not in this quiz either
        (lambda: {q("core-match").key: {}}, "is not in this quiz"),
    ],
)
def test_bad_answers_are_a_400_naming_the_question_and_nothing_is_recorded(
    client, core_check, answers, says
):
    answers = answers()
    response = post(client, "core-check", answers)
    assert response.status_code == 400
    body = response.json()
    assert says in body["error"], body
    assert body["error"].startswith("answers: ")
    assert not Attempt.objects.exists()


def test_missing_answers_and_anonymous_callers(client, core_check):
    assert client.post("/api/quizzes/core-check/attempts/", {}, format="json").status_code == 400
    assert post(client, "no-such-quiz", {}).status_code == 404
    response = post(APIClient(), "core-check", {})
    assert response.status_code in (401, 403)
    assert "error" in response.json()
    assert not Attempt.objects.exists()


def test_a_checkpoint_is_checked_and_not_recorded(client, quizzes):
    match = q("core-match")
    answers = {match.key: {p.left_key: p.right_key for p in match.pairs.all()}}
    response = post(client, "checkpoint-core", answers)
    assert response.status_code == 200
    assert response.json()["id"] is None and response.json()["score"] == 1
    assert not Attempt.objects.exists()


# --- retries ---------------------------------------------------------------------------------


def submit(client, slug, answers, client_id):
    body = {"answers": answers, "client_id": client_id}
    return client.post(f"/api/quizzes/{slug}/attempts/", body, format="json")


CLIENT_ID = "0b6f3c1e-6a59-4c2e-9a43-7d1f0e2b9c55"


def test_a_submit_sent_again_with_its_client_id_is_recorded_once(client, core_check):
    """A client whose answer was lost sends the same submit again: same result, one attempt."""
    first = submit(client, "core-check", right_answers(core_check), CLIENT_ID)
    assert first.status_code == 201
    again = submit(client, "core-check", right_answers(core_check), CLIENT_ID)
    assert again.status_code == 200
    assert again.json() == first.json()
    assert Attempt.objects.count() == 1
    # a new client_id is a new attempt
    other_id = "5d0e7a0c-3f1b-4b8e-8f0e-2a6b1c9d4e77"
    assert submit(client, "core-check", {}, other_id).status_code == 201
    assert Attempt.objects.count() == 2


def test_a_timed_submit_sent_again_returns_its_attempt_not_a_400(client, final_check):
    client.get("/api/quizzes/final-check/")
    first = submit(client, "final-check", right_answers(final_check), CLIENT_ID)
    assert first.status_code == 201
    again = submit(client, "final-check", right_answers(final_check), CLIENT_ID)
    assert (again.status_code, again.json()) == (200, first.json())
    assert Attempt.objects.count() == 1
    # without it, the attempt is closed and a second submit is refused, as before
    assert post(client, "final-check", right_answers(final_check)).status_code == 400


def test_a_client_id_used_for_another_quiz_is_refused_and_records_nothing(
    client, core_check, final_check
):
    assert submit(client, "core-check", {}, CLIENT_ID).status_code == 201
    client.get("/api/quizzes/final-check/")
    response = submit(client, "final-check", right_answers(final_check), CLIENT_ID)
    assert response.status_code == 400
    assert "already used to submit another quiz" in response.json()["error"]
    assert Attempt.objects.submitted().count() == 1


def test_another_learners_client_id_is_theirs_alone(client, api_client, core_check, bob):
    assert submit(client, "core-check", right_answers(core_check), CLIENT_ID).status_code == 201
    bobs = APIClient()
    bobs.force_authenticate(bob)
    response = submit(bobs, "core-check", {}, CLIENT_ID)
    assert response.status_code == 201  # bob's own attempt, nothing of alice's
    assert response.json()["score"] == 0
    assert Attempt.objects.filter(user=bob).count() == 1


def test_a_client_id_that_is_not_a_uuid_is_a_400(client, core_check):
    response = submit(client, "core-check", {}, "not-a-uuid")
    assert response.status_code == 400
    assert response.json()["error"].startswith("client_id:")
    assert not Attempt.objects.exists()


# --- time limits ---------------------------------------------------------------------------


def test_a_timed_quiz_starts_on_get_and_takes_answers_in_time(client, final_check):
    data = client.get("/api/quizzes/final-check/").json()
    assert data["time_limit_seconds"] == 60
    attempt = Attempt.objects.get()
    assert data["attempt"]["id"] == attempt.pk and attempt.is_open
    # a second GET resumes the same attempt, same order
    assert client.get("/api/quizzes/final-check/").json() == data
    response = post(client, "final-check", right_answers(final_check))
    assert response.status_code == 201
    assert response.json()["id"] == attempt.pk
    attempt.refresh_from_db()
    assert attempt.score == 2 and not attempt.timed_out


def test_a_timed_quiz_needs_its_clock_started(client, final_check):
    response = post(client, "final-check", right_answers(final_check))
    assert response.status_code == 400
    assert (
        "fetch GET /api/quizzes/final-check/ first to start the clock" in response.json()["error"]
    )
    assert not Attempt.objects.exists()


def test_answers_after_the_time_limit_are_a_400_and_nothing_is_recorded(client, final_check):
    client.get("/api/quizzes/final-check/")
    Attempt.objects.update(
        started_at=timezone.now() - timedelta(seconds=70),
        deadline=timezone.now() - timedelta(seconds=10),
    )
    response = post(client, "final-check", right_answers(final_check))
    assert response.status_code == 400
    assert "the time limit of 1 min ran out at" in response.json()["error"]
    attempt = Attempt.objects.get()
    assert attempt.is_open and attempt.score is None and attempt.answers == {}
    # starting again closes the timed-out attempt (nothing was saved, so 0) and opens a new one
    data = client.get("/api/quizzes/final-check/").json()
    assert data["attempt"]["id"] != attempt.pk
    attempt.refresh_from_db()
    assert attempt.timed_out and attempt.score == 0


def test_a_few_seconds_of_grace_for_the_request_in_flight(client, final_check):
    client.get("/api/quizzes/final-check/")
    Attempt.objects.update(deadline=timezone.now() - timedelta(seconds=2))
    assert post(client, "final-check", right_answers(final_check)).status_code == 201


def test_anonymous_get_of_a_timed_quiz_starts_nothing(api_client, final_check):
    assert api_client.get("/api/quizzes/final-check/").json()["attempt"] is None
    assert not Attempt.objects.exists()


def test_schema_describes_the_quiz_endpoints(api_client, db):
    response = api_client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    paths = response.json()["paths"]
    assert {"/api/quizzes/", "/api/quizzes/{slug}/", "/api/quizzes/{slug}/attempts/"} <= set(paths)
    post_op = paths["/api/quizzes/{slug}/attempts/"]["post"]
    assert {"201", "400"} <= set(post_op["responses"])


def test_query_counts_do_not_grow_with_questions(client, core_check, django_assert_num_queries):
    with django_assert_num_queries(1):  # counts, best score and deck visibility are subqueries
        client.get("/api/quizzes/")
    with django_assert_num_queries(5):  # quiz, questions, choices, statements, pairs
        client.get("/api/quizzes/core-check/")
    answers = right_answers(core_check)
    # the same 5 to score; savepoint, insert, release; the result reuses the loaded questions
    # and reads only their cards (was 10: the questions were read again for the result)
    with django_assert_num_queries(9):
        assert post(client, "core-check", answers).status_code == 201


def test_timed_quiz_query_counts(client, final_check, django_assert_num_queries):
    """The bench's timed knowledge check. Starting: the quiz's 5, the open attempts, then the
    insert in a savepoint (tests run inside a transaction; a server in autocommit skips the
    savepoint). Submitting: the same 5, the attempt in a savepoint, its update and the result's
    cards: the stored attempt is not read back and the questions are not read again."""
    with django_assert_num_queries(9):  # was 11: a transaction around the read and insert
        started = client.get("/api/quizzes/final-check/").json()
    with django_assert_num_queries(6):  # resuming: the quiz's 5 and the open attempt
        assert client.get("/api/quizzes/final-check/").json() == started
    answers = right_answers(final_check)
    with django_assert_num_queries(10):  # was 12 (read back; questions again)
        response = post(client, "final-check", answers)
    assert response.status_code == 201
    body = response.json()
    attempt = Attempt.objects.get()
    assert body["id"] == attempt.pk == started["attempt"]["id"]
    assert body["score"] == float(attempt.score) and body["max_score"] == attempt.max_score
    assert body["passed"] is attempt.passed and body["timed_out"] is attempt.timed_out is False
    assert [
        (r["id"], r["points"], r["max_points"], r["correct_answer"]) for r in body["questions"]
    ] == [(r["id"], r["points"], r["max_points"], r["correct_answer"]) for r in attempt.results]
    assert body["questions"] and all("explanation_html" in r for r in body["questions"])


@pytest.mark.parametrize("right", [["x"], {"a": 1}])
def test_a_matching_answer_with_a_list_or_object_for_a_right_id_is_a_400(client, core_check, right):
    match = q("core-match-scored")
    response = post(client, "core-check", {match.key: {match.pairs.first().left_key: right}})
    assert response.status_code == 400
    assert "right-hand item ids are strings" in response.json()["error"]
    assert not Attempt.objects.exists()


def test_a_flood_of_bad_picks_gets_a_short_answer(client, core_check):
    """One bad id per message is useful; a megabyte of bad ids must not come back as ten."""
    picks = [f"bad-{i}" for i in range(5000)]
    response = post(client, "core-check", {q("store-multi").key: picks})
    assert response.status_code == 400
    problems = response.json()["answers"]
    assert len(problems) <= 11
    assert problems[-1] == "…and 4990 more problems like these."
    assert len(response.content) < 4000
    assert not Attempt.objects.exists()
