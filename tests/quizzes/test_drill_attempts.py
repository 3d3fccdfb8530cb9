"""Drills as a learner and an API client meet them: a sizing drill's numbers are drawn for the
attempt (the same on every reload), answered as a number, scored within its tolerance, shown
with its worked solution, and scheduled like a card; bad author input is refused at load."""

import pytest
from django.urls import reverse

from apps.decks.content import ContentError
from apps.practice.models import PracticeLog, PracticeState
from apps.practice.services import AGAIN, GOOD, HARD
from apps.quizzes.content import quiz_file_load
from apps.quizzes.models import Attempt, Question, Quiz

DRILLS = """
deck: ray-basics
quizzes:
  - slug: drills
    title: Drills
    kind: knowledge_check
    questions:
      - slug: runners
        kind: numeric
        prompt: "A learner eats {learner} samples/s; one runner makes {runner} samples/s. Runners?"
        given:
          - {name: learner, min: 1000, max: 9000, step: 1000, unit: samples/s}
          - {name: runner, min: 100, max: 400, step: 100, unit: samples/s}
        formula: "ceil(learner / runner)"
        tolerance: 0
        unit: runners
        solution: "{learner} / {runner}, rounded up: **{answer}**."
        explanation: Divide and round up.
        cards: [env-runner]
      - slug: pending-gpu
        kind: single
        prompt: What is wrong?
        explanation: Nothing offers a GPU.
        cards: [ray-task]
        evidence:
          tool: ray status
          source: a local Ray 2.60.0 head node
          output: |-
            Pending Demands:
             {'GPU': 1.0}: 1+ pending tasks/actors
        choices:
          - {text: A task asks for a GPU no node has, correct: true}
          - {text: The object store is full}
"""


@pytest.fixture
def drills_quiz(small_deck, tmp_path) -> Quiz:
    path = tmp_path / "drills.yaml"
    path.write_text(DRILLS)
    quiz_file_load(path)
    return Quiz.objects.get(slug="drills")


@pytest.fixture
def api(api_client, alice):
    api_client.force_authenticate(alice)
    return api_client


def shown(api):
    data = api.get("/api/quizzes/drills/").json()
    return {q["kind"]: q for q in data["questions"]}, data


def right_number(question_id: str) -> float:
    attempt = Attempt.objects.open().get()
    return Question.objects.get(key=question_id).drawn(attempt.seed).answer


def test_the_numbers_are_the_attempts_and_a_reload_shows_the_same(api, drills_quiz):
    first, data = shown(api)
    numeric = first["numeric"]
    assert data["attempt"] is not None  # fetching a quiz that draws numbers starts the attempt
    assert numeric["unit"] == "runners"
    values = {g["name"]: g["value"] for g in numeric["given"]}
    assert f"{values['learner']:,.0f}" in numeric["prompt"]
    assert "{learner}" not in numeric["prompt"]
    again, _ = shown(api)
    assert again["numeric"] == numeric
    assert first["single"]["evidence"]["tool"] == "ray status"
    assert "GPU" in first["single"]["evidence"]["output"]


def test_a_right_number_scores_shows_the_worked_solution_and_schedules_the_drill(
    api, alice, drills_quiz
):
    questions, _ = shown(api)
    qid = questions["numeric"]["id"]
    answer = right_number(qid)
    response = api.post("/api/quizzes/drills/attempts/", {"answers": {qid: answer}}, format="json")
    assert response.status_code == 201, response.json()
    result = {r["id"]: r for r in response.json()["questions"]}[qid]
    assert result["points"] == 1 and result["correct_answer"] == answer
    assert f"**{answer:,.0f}**" in result["solution"] and "{" not in result["solution"]
    assert result["tolerance"] == 0
    states = {s.key: s for s in PracticeState.objects.filter(user=alice, kind="drill")}
    assert states[qid].last_grade == GOOD
    debug = questions["single"]["id"]
    assert states[debug].last_grade == AGAIN  # left out: scored 0, so practised again


def test_a_miss_is_again_and_the_next_pass_is_hard(api, alice, drills_quiz):
    for answer_is_right, grade in ((False, AGAIN), (True, HARD)):
        questions, _ = shown(api)
        qid = questions["numeric"]["id"]
        answer = right_number(qid) + (0 if answer_is_right else 1)
        body = {"answers": {qid: answer}}
        assert api.post("/api/quizzes/drills/attempts/", body, format="json").status_code == 201
        state = PracticeState.objects.get(user=alice, kind="drill", key=qid)
        assert state.last_grade == grade


def test_a_replayed_submit_schedules_nothing_twice(api, alice, drills_quiz):
    questions, _ = shown(api)
    qid = questions["numeric"]["id"]
    body = {
        "answers": {qid: right_number(qid)},
        "client_id": "0b3f9b1e-5a52-4d43-9e0c-6d3c1f1e2a77",
    }
    assert api.post("/api/quizzes/drills/attempts/", body, format="json").status_code == 201
    assert api.post("/api/quizzes/drills/attempts/", body, format="json").status_code == 200
    assert PracticeLog.objects.filter(user=alice, key=qid).count() == 1


@pytest.mark.parametrize("answer", ["twelve", [3], {"v": 3}, True])
def test_an_answer_that_is_not_a_number_is_refused_naming_the_question(api, drills_quiz, answer):
    questions, _ = shown(api)
    qid = questions["numeric"]["id"]
    response = api.post("/api/quizzes/drills/attempts/", {"answers": {qid: answer}}, format="json")
    assert response.status_code == 400
    assert qid in str(response.json()) and "number" in str(response.json())
    assert not Attempt.objects.submitted().exists()


def test_posting_without_fetching_the_drawn_numbers_first_is_refused(api, drills_quiz):
    qid = drills_quiz.questions.get(slug="runners").key
    response = api.post("/api/quizzes/drills/attempts/", {"answers": {qid: 3}}, format="json")
    assert response.status_code == 400
    assert "draws its numbers" in str(response.json())


def test_the_page_takes_a_typed_number_with_separators_and_shows_the_solution(
    alice, client, drills_quiz
):
    client.force_login(alice)
    attempt_url = client.post(reverse("quizzes:start", args=["drills"])).url
    page = client.get(attempt_url).content.decode()
    assert 'inputmode="decimal"' in page and "ray status" in page
    attempt = Attempt.objects.open().get()
    question = drills_quiz.questions.get(slug="runners")
    draw = question.drawn(attempt.seed)
    assert f"{draw.given['learner']:,.0f}" in page
    typed = f"{draw.answer:,.0f}"
    response = client.post(attempt_url, {f"q-{question.key}": typed})
    assert response.status_code == 302
    result = client.get(attempt_url).content.decode()
    assert "Worked solution" in result and f"<strong>{typed}</strong>" in result


def test_a_typed_word_is_refused_on_the_page_and_nothing_is_scored(alice, client, drills_quiz):
    client.force_login(alice)
    attempt_url = client.post(reverse("quizzes:start", args=["drills"])).url
    key = drills_quiz.questions.get(slug="runners").key
    response = client.post(attempt_url, {f"q-{key}": "about ten"})
    assert response.status_code == 400
    assert "must be a number" in response.content.decode()
    assert not Attempt.objects.submitted().exists()


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ('formula: "ceil(learner / runner)"', 'formula: "learner / (runner - 200)"',
         "formula: the denominator 'runner - 200' can be 0"),
        ("min: 100, max: 400", "min: 400, max: 100", "given[1]: the range of 'runner' is empty"),
        ('formula: "ceil(learner / runner)"', 'formula: "ceil(learner / runners)"',
         "formula: unknown name 'runners'"),
        ("kind: knowledge_check", "kind: checkpoint\n    section: ray-core",
         "put it in a knowledge check"),
        ("        tolerance: 0\n", "", "tolerance: give how far"),
    ],
)  # fmt: skip
def test_bad_author_input_is_refused_at_load_naming_the_field(
    small_deck, tmp_path, old, new, words
):
    path = tmp_path / "drills.yaml"
    path.write_text(DRILLS.replace(old, new, 1))
    with pytest.raises(ContentError) as refused:
        quiz_file_load(path)
    assert "question 'runners'" in str(refused.value)
    assert words in str(refused.value)
    assert not Quiz.objects.filter(slug="drills").exists()


def test_the_quiz_page_shows_where_the_learner_stands_on_its_drills(
    api, alice, client, drills_quiz
):
    client.force_login(alice)
    page = client.get(reverse("quizzes:quiz", args=["drills"])).content.decode()
    assert "Drills in this quiz: <strong>2</strong>" in page and "2 not practised yet" in page
    questions, _ = shown(api)
    qid = questions["numeric"]["id"]
    api.post("/api/quizzes/drills/attempts/", {"answers": {qid: -1}}, format="json")
    page = client.get(reverse("quizzes:quiz", args=["drills"])).content.decode()
    assert "<strong>2</strong> due for practice today" in page  # both missed: Again, due now
