"""A learner's Run and Submit, as the page and the API take them: bad input is refused and
changes nothing, a submission is never lost or run twice, the result names the revision it ran,
the hidden tests never leave the server, and a Submit is scheduled like a card."""

import uuid

import pytest
from django.utils import timezone

from apps.exercises import services, worker
from apps.exercises.models import SandboxWorker, Submission
from apps.practice.models import PracticeLog, PracticeState
from tests.exercises.conftest import GOOD, REFERENCE, WRONG, adder_doc, needs_bwrap, submit

pytestmark = pytest.mark.django_db
URL = "/exercises/add-two/"
API = "/api/exercises/add-two/submissions/"


def test_bad_code_is_refused_with_a_reason_and_nothing_is_queued(client, alice, adder):
    client.force_login(alice)
    cases = {
        "": "editor is empty",
        "   \n\t": "editor is empty",
        "x = 1\n" * 200_000: "at most 65,536 are run",
    }
    for code, reason in cases.items():
        response = client.post(URL, {"code": code, "mode": "submit"})
        assert response.status_code == 400 and reason in response.content.decode()
    assert not Submission.objects.exists()


def test_nul_and_invalid_utf8_are_refused_on_the_page_and_the_api(client, api_client, alice, adder):
    client.force_login(alice)
    for body in (b"code=a%00b&mode=submit", b"code=%FF%FE&mode=submit"):
        response = client.post(URL, body, content_type="application/x-www-form-urlencoded")
        assert response.status_code == 400
    api_client.force_authenticate(alice)
    assert api_client.post(API, {"code": "a\x00b"}, format="json").status_code == 400
    response = api_client.post(API, b'{"code": "\xff"}', content_type="application/json")
    assert response.status_code == 400 and "UTF-8" in response.json()["error"]
    assert not Submission.objects.exists()


def test_a_second_submit_while_one_runs_is_refused_once_and_the_same_client_id_replays(
    api_client, alice, adder
):
    api_client.force_authenticate(alice)
    key = str(uuid.uuid4())
    first = api_client.post(API, {"code": GOOD, "client_id": key}, format="json")
    assert first.status_code == 202 and first.json()["status"] == "queued"
    again = api_client.post(API, {"code": GOOD, "client_id": key}, format="json")
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    other = api_client.post(API, {"code": GOOD}, format="json")
    assert other.status_code == 409 and other.json()["submission"] == first.json()["id"]
    assert "no result yet" in other.json()["error"]
    assert Submission.objects.count() == 1


def test_while_the_worker_is_down_it_waits_then_says_so_and_is_never_lost(
    client, alice, adder, settings
):
    settings.EXERCISES_WAIT_NOTICE_S = 0
    client.force_login(alice)
    response = client.post(URL, {"code": GOOD, "mode": "submit"}, follow=True)
    page = response.content.decode()
    assert "Queued" in page and "No exercises worker is running" in page
    submission = Submission.objects.get()
    # The broker lost it (or never got it): the worker's sweep sends it again when it is back.
    Submission.objects.filter(pk=submission.pk).update(
        sent_at=None, created_at=timezone.now() - timezone.timedelta(minutes=5)
    )
    assert worker.exercises_sweep()["resent"] == 1
    submission.refresh_from_db()
    assert submission.status == "queued" and submission.sent_at is not None


@needs_bwrap
def test_a_task_delivered_twice_runs_and_grades_once(alice, adder):
    submission = submit(alice, adder, GOOD)
    assert submission.status == "passed" and submission.attempts == 1
    assert worker.submission_run(submission_id=submission.pk) is None
    submission.refresh_from_db()
    assert submission.attempts == 1
    assert PracticeLog.objects.filter(key="add-two").count() == 1


@needs_bwrap
def test_a_worker_that_died_mid_run_is_swept_back_and_then_given_up(alice, adder, settings):
    submission, _ = services.submission_create(user=alice, exercise=adder, code=GOOD, mode="submit")
    assert worker.submission_claim(submission_id=submission.pk, worker="gone:1")
    long_ago = timezone.now() - timezone.timedelta(minutes=10)
    Submission.objects.filter(pk=submission.pk).update(started_at=long_ago)
    assert worker.exercises_sweep()["requeued"] == 1
    worker.submission_run(submission_id=submission.pk)
    submission.refresh_from_db()
    assert submission.status == "passed" and submission.attempts == 2


@needs_bwrap
def test_submits_are_scheduled_fail_again_then_hard_then_good(alice, adder):
    failed = submit(alice, adder, WRONG)
    assert failed.status == "failed" and failed.grade == 1
    hard = submit(alice, adder, GOOD)
    assert hard.status == "passed" and hard.grade == 3  # a pass after a failure since due
    good = submit(alice, adder, GOOD)
    assert good.grade == 4  # clears the re-drill: now scheduled days ahead
    state = PracticeState.objects.get(user=alice, kind="exercise", key="add-two")
    assert state.due_at > timezone.now() + timezone.timedelta(hours=12)
    run = submit(alice, adder, WRONG, mode="run")  # a Run is practice, never graded
    assert run.grade is None and PracticeLog.objects.filter(user=alice).count() == 3


@needs_bwrap
def test_the_result_names_the_revision_it_ran_after_the_tests_change(api_client, alice, adder):
    before = submit(alice, adder, GOOD)
    stricter = adder_doc(tests=adder_doc().tests + "\n\ndef test_new_one():\n    assert False\n",
                         reference=REFERENCE)  # fmt: skip
    revision, created = services.exercise_save(deck=adder.deck, doc=stricter, accept=True)
    assert created and revision.number == 2
    adder.refresh_from_db()  # as the next request loads it
    after = submit(alice, adder, GOOD)
    api_client.force_authenticate(alice)
    assert api_client.get(f"/api/exercise-submissions/{before.pk}/").json()["revision"] == 1
    body = api_client.get(f"/api/exercise-submissions/{after.pk}/").json()
    assert body["revision"] == 2 and body["status"] == "failed"
    assert [t["name"] for t in body["tests"]][-1] == "test_new_one"


@needs_bwrap
def test_the_result_shows_each_test_its_message_output_time_and_the_cards(client, alice, adder):
    code = "print('hello from stdout')\ndef add(a, b):\n    return abs(a) + abs(b)\n"
    submission = submit(alice, adder, code)
    client.force_login(alice)
    page = client.get(f"{URL}?submission={submission.pk}").content.decode()
    assert "test_hidden_negative_zz9" in page and "add(-2, -3) is 5, expected -5" in page
    assert "hello from stdout" in page and f"{submission.time_ms} ms" in page
    assert "Brush up on the cards" in page and "/decks/ray-basics/ray-core/#card-ray-task" in page


@needs_bwrap
def test_a_syntax_error_points_at_its_line(client, alice, adder):
    submission = submit(alice, adder, "def add(a, b):\n    return a +\n")
    assert submission.syntax_error["line"] == 2
    client.force_login(alice)
    page = client.get(f"{URL}?submission={submission.pk}").content.decode()
    assert 'data-syntax-line="2"' in page and "Go to line 2" in page


def test_the_hidden_tests_and_the_reference_never_reach_a_learner(client, api_client, alice, adder):
    client.force_login(alice)
    api_client.force_authenticate(alice)
    for body in (client.get(URL).content.decode(), api_client.get(URL.replace("/exercises/",
                 "/api/exercises/")).content.decode()):  # fmt: skip
        assert "test_hidden_negative_zz9" not in body and "reference_marker_q1" not in body
        assert "test_small_numbers" in body  # the examples are shown


@needs_bwrap
def test_the_reference_shows_after_a_pass_or_three_failed_submits(client, alice, bob, adder):
    client.force_login(bob)
    for _ in range(3):
        assert "reference_marker_q1" not in client.get(URL).content.decode()
        submit(bob, adder, WRONG)
    assert "reference_marker_q1" in client.get(URL).content.decode()
    client.force_login(alice)
    submit(alice, adder, GOOD)
    assert "reference_marker_q1" in client.get(URL).content.decode()


def test_where_the_sandbox_cannot_start_the_worker_refuses_and_the_page_says_why(
    client, alice, adder, settings
):
    settings.EXERCISES_BWRAP = "/nonexistent/bwrap"
    worker.sandbox_reason(fresh=True)
    try:
        worker.heartbeat("exercises@test")
        submission, _ = services.submission_create(user=alice, exercise=adder, code=GOOD,
                                                   mode="submit")  # fmt: skip
        assert worker.submission_run(submission_id=submission.pk) == "error"
    finally:
        settings.EXERCISES_BWRAP = "/usr/bin/bwrap"
        worker.sandbox_reason(fresh=True)
    submission.refresh_from_db()
    assert "sandbox cannot start" in submission.problem and submission.grade is None
    assert not PracticeLog.objects.exists()
    assert SandboxWorker.objects.get().sandbox_ok is False
    client.force_login(alice)
    page = client.get(URL).content.decode()
    assert "cannot start its sandbox" in page and "/nonexistent/bwrap" in page


def test_the_exercise_page_and_its_poll_have_pinned_queries(
    client, alice, adder, django_assert_num_queries
):
    client.force_login(alice)
    client.get(URL)
    with django_assert_num_queries(10):
        assert client.get(URL).status_code == 200
    submission, _ = services.submission_create(user=alice, exercise=adder, code=GOOD, mode="run")
    with django_assert_num_queries(4):  # session, user, the submission, and its cards
        response = client.get(f"/exercises/submissions/{submission.pk}/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "Queued" in response.content.decode()


def test_each_htmx_submit_gets_a_fresh_client_id_for_the_next(client, alice, adder):
    client.force_login(alice)
    first_id = str(uuid.uuid4())
    response = client.post(URL, {"code": GOOD, "mode": "run", "client_id": first_id},
                           HTTP_HX_REQUEST="true")  # fmt: skip
    body = response.content.decode()
    assert 'hx-swap-oob="true"' in body and first_id not in body
    again = client.post(URL, {"code": GOOD, "mode": "run", "client_id": first_id},
                        HTTP_HX_REQUEST="true")  # fmt: skip
    assert again.status_code == 200 and Submission.objects.count() == 1  # a double click


@needs_bwrap
def test_one_learners_queued_runs_never_hold_up_another(api_client, alice, bob, adder, small_deck):
    """A learner who queues an endless sleep on every exercise gets one run in flight; the
    others are refused with the reason, and a second learner's run is next in line."""
    others = [
        services.exercise_save(deck=small_deck, doc=adder_doc(slug=f"add-{i}"), accept=True)[0]
        for i in range(2)
    ]
    sleeper = "import time\n\ndef add(a, b):\n    time.sleep(600)\n"
    api_client.force_authenticate(alice)
    slugs = ["add-two", *(r.exercise.slug for r in others)]
    answers = [
        api_client.post(f"/api/exercises/{slug}/submissions/", {"code": sleeper}, format="json")
        for slug in slugs
    ]
    assert [a.status_code for a in answers] == [202, 409, 409]
    refusal = answers[1].json()
    assert refusal["submission"] == answers[0].json()["id"]
    assert "“Add two numbers” has no result yet" in refusal["error"]
    assert "one run at a time" in refusal["error"]
    api_client.force_authenticate(bob)
    assert api_client.post(API, {"code": GOOD}, format="json").status_code == 202
    queue = list(Submission.objects.filter(status="queued").order_by("created_at", "id"))
    assert [s.user for s in queue] == [alice, bob]  # bob waits for one run of alice's at most
    for queued in queue:  # the worker takes them in order
        worker.submission_run(submission_id=queued.pk)
    done = {s.user: s for s in Submission.objects.all()}
    assert done[bob].status == "passed"
    assert done[alice].status == "failed" and "wall-clock" in done[alice].problem
    api_client.force_authenticate(alice)  # her result is in: the next run is taken
    next_one = api_client.post("/api/exercises/add-0/submissions/", {"code": GOOD}, format="json")
    assert next_one.status_code == 202


def test_the_page_of_another_exercise_names_the_run_in_flight(client, alice, adder, small_deck):
    other = services.exercise_save(deck=small_deck, doc=adder_doc(slug="add-0"), accept=True)[0]
    client.force_login(alice)
    client.post(URL, {"code": GOOD, "mode": "submit"})
    response = client.post(f"/exercises/{other.exercise.slug}/", {"code": GOOD, "mode": "run"})
    page = response.content.decode()
    assert response.status_code == 409 and "“Add two numbers” has no result yet" in page
    assert Submission.objects.count() == 1
