"""Authors' exercises: every save is a revision the worker checks in the sandbox before learners
see it; an import refuses each exercise whose reference fails or whose wrong solution passes;
export and import round-trip."""

import json
from dataclasses import asdict

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.authoring.forms import ExerciseForm
from apps.exercises import services, worker
from apps.exercises.models import Exercise, ExerciseRevision
from tests.exercises.conftest import GOOD, WRONG, adder_doc, needs_bwrap

pytestmark = [pytest.mark.django_db, needs_bwrap]


def form_post(doc) -> dict:
    values = ExerciseForm.initial_from(doc)
    return {k: v for k, v in values.items() if v is not None}


def check_all() -> None:
    for pk in ExerciseRevision.objects.filter(status="checking").values_list("pk", flat=True):
        worker.revision_check_run(revision_id=pk)


def test_an_edit_is_checked_before_learners_see_it(client, staff, small_deck, small_limits):
    client.force_login(staff)
    response = client.post("/author/decks/ray-basics/exercises/new/", form_post(adder_doc()))
    assert response.status_code == 302
    exercise = Exercise.objects.get(slug="add-two")
    assert exercise.current is None and not exercise.is_live  # not before its check
    assert client.get("/exercises/add-two/").status_code == 404
    check_all()
    exercise.refresh_from_db()
    assert exercise.current.number == 1 and exercise.current.status == "accepted"
    assert list(exercise.cards.values_list("slug", flat=True)) == ["ray-task"]
    # Saving the same text again writes nothing; a broken reference is refused, the live one stays.
    client.post("/author/exercises/add-two/", form_post(adder_doc()))
    assert exercise.revisions.count() == 1
    client.post("/author/exercises/add-two/", form_post(adder_doc(reference=WRONG)))
    check_all()
    latest = exercise.revisions.order_by("-number").first()
    assert latest.status == "refused" and "reference solution fails" in latest.check_report[
        "problems"][0]  # fmt: skip
    exercise.refresh_from_db()
    assert exercise.current.number == 1
    page = client.get("/author/exercises/add-two/").content.decode()
    assert "The reference solution fails test_hidden_negative_zz9" in page


def test_the_editor_refuses_code_that_does_not_compile_and_keeps_the_text(
    client, staff, small_deck
):
    client.force_login(staff)
    data = form_post(adder_doc(tests="def test_x(:\n    pass\n"))
    response = client.post("/author/decks/ray-basics/exercises/new/", data)
    assert response.status_code == 400
    assert "the hidden tests does not compile" in response.content.decode()
    assert "def test_x(:" in response.content.decode()
    assert not Exercise.objects.exists()


def test_an_import_refuses_the_exercise_whose_wrong_solution_passes(
    client, staff, small_deck, small_limits
):
    good = asdict(adder_doc())
    weak = asdict(adder_doc(slug="add-weak", tests="from solution import add\n\n\ndef test_one():"
                            "\n    assert add(1, 2) == 3\n"))  # fmt: skip
    broken = asdict(adder_doc(slug="add-broken", reference=WRONG))
    text = yaml.safe_dump({"deck": "ray-basics", "exercises": [good, weak, broken]})
    client.force_login(staff)
    upload = SimpleUploadedFile("ex.yaml", text.encode(), "application/yaml")
    response = client.post("/author/decks/ray-basics/exercises/import/", {"file": upload})
    assert response.status_code == 302 and "/author/exercise-imports/" in response["Location"]
    check_all()
    page = client.get(response["Location"]).content.decode()
    status = dict(ExerciseRevision.objects.values_list("exercise__slug", "status"))
    assert status == {"add-two": "accepted", "add-weak": "refused", "add-broken": "refused"}
    assert "passes every test: the tests do not catch its mistake" in page
    assert "The reference solution fails" in page
    assert set(Exercise.objects.filter(current__isnull=False).values_list("slug", flat=True)) == {
        "add-two"
    }


def test_export_then_import_changes_nothing(client, api_client, staff, small_deck, small_limits):
    services.exercise_save(deck=small_deck, doc=adder_doc(), accept=True)
    client.force_login(staff)
    exported = client.get("/author/decks/ray-basics/exercises/export/json/")
    assert exported.status_code == 200 and "attachment" in exported["Content-Disposition"]
    doc = json.loads(exported.content)
    assert doc["exercises"][0]["tests"] == adder_doc().tests
    api_client.force_authenticate(staff)
    response = api_client.post("/api/author/decks/ray-basics/exercises/import/", doc, format="json")
    assert response.status_code == 202 and response.json()["unchanged"] == ["add-two"]
    assert ExerciseRevision.objects.count() == 1


def test_the_author_api_saves_a_revision_and_reports_its_check(api_client, staff, small_deck,
                                                               small_limits):  # fmt: skip
    api_client.force_authenticate(staff)
    doc = asdict(adder_doc())
    created = api_client.post("/api/author/decks/ray-basics/exercises/", doc, format="json")
    assert created.status_code == 202 and created.json()["status"] == "checking"
    check_all()
    body = api_client.get("/api/author/exercises/add-two/").json()
    assert body["live_revision"] == 1 and body["revisions"][0]["status"] == "accepted"
    bad = {**doc, "cards": ["no-such-card"]}
    response = api_client.put("/api/author/exercises/add-two/", bad, format="json")
    assert response.status_code == 400 and "unknown card 'no-such-card'" in response.json()["error"]


def test_a_learner_submission_runs_against_the_accepted_revision(alice, small_deck, small_limits):
    services.exercise_save(deck=small_deck, doc=adder_doc(), accept=True)
    pending, _ = services.exercise_save(deck=small_deck, doc=adder_doc(title="Renamed"))
    exercise = Exercise.objects.get(slug="add-two")
    assert pending.status == "checking" and exercise.current.number == 1
    submission, _ = services.submission_create(user=alice, exercise=exercise, code=GOOD,
                                               mode="submit")  # fmt: skip
    assert submission.revision.number == 1


def test_an_old_revision_is_restored_as_a_new_one_and_checked(client, staff, small_deck,
                                                              small_limits):  # fmt: skip
    first, _ = services.exercise_save(deck=small_deck, doc=adder_doc(), accept=True)
    services.exercise_save(deck=small_deck, doc=adder_doc(title="Second"), accept=True)
    client.force_login(staff)
    response = client.post(f"/author/exercise-revisions/{first.pk}/restore/")
    assert response.status_code == 302
    latest = ExerciseRevision.objects.order_by("-number").first()
    assert (latest.number, latest.title, latest.made_by) == (3, "Add two numbers", "restore")
    check_all()
    latest.refresh_from_db()
    assert latest.status == "accepted" and Exercise.objects.get().title == "Add two numbers"


def test_a_shipped_exercise_dropped_from_the_file_is_retired_with_its_history_kept(
    tmp_path, alice, small_deck, small_limits
):
    from apps.exercises.content import ExerciseFileDoc, exercise_file_dump
    from apps.exercises.selectors import due_exercises
    from apps.practice.models import PracticeState
    from tests.exercises.conftest import submit

    def ship(*docs):
        path = tmp_path / "exercises.yaml"
        path.write_text(
            exercise_file_dump(ExerciseFileDoc(deck="ray-basics", exercises=list(docs)))
        )
        return services.exercise_file_load(path)

    kept, dropped = adder_doc(), adder_doc(slug="add-old", title="The old one")
    ship(kept, dropped)
    authored, _ = services.exercise_save(
        deck=small_deck, doc=adder_doc(slug="add-mine"), accept=True
    )  # an author's own, not in the file
    old = Exercise.objects.get(slug="add-old")
    assert submit(alice, old, GOOD).status == "passed"
    assert "retired add-old" in ship(kept)
    old.refresh_from_db()
    assert old.retired_at is not None and old.submissions.count() == 1
    assert PracticeState.objects.filter(user=alice, key="add-old").exists()
    assert "add-old" not in [d.exercise.slug for d in due_exercises(alice)]
    assert Exercise.objects.get(slug="add-mine").retired_at is None
    ship(kept, dropped)  # shipped again, unchanged: live again, same revision
    old.refresh_from_db()
    assert old.is_live and old.revisions.count() == 1
