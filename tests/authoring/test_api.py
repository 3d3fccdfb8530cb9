"""The author API: the same services and rules as the pages, as JSON."""

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from apps.authoring.models import Revision
from apps.study.models import CardState

pytestmark = pytest.mark.django_db


@pytest.fixture
def author_api(api_client, dave):
    api_client.force_authenticate(dave)
    return api_client


def test_patch_a_card_keeps_progress_and_records_a_revision(author_api, ray_task, alice_studied):
    body = {"back": "Stateless.", "note": "shorter"}
    response = author_api.patch(f"/api/author/cards/{ray_task.pk}/", body, format="json")
    assert response.status_code == 200
    assert response.json()["back_html"] == "<p>Stateless.</p>\n"
    assert response.json()["revision"] == 2
    assert CardState.objects.get(pk=alice_studied.pk).due_at == alice_studied.due_at
    revision = Revision.objects.filter(card=ray_task).first()
    assert (revision.source, revision.note) == ("api", "shorter")


def test_patch_with_changes_answer_makes_it_due_now(author_api, ray_task, alice_studied):
    author_api.patch(f"/api/author/cards/{ray_task.pk}/",
                     {"back": "Other.", "changes_answer": True}, format="json")  # fmt: skip
    assert CardState.objects.get(pk=alice_studied.pk).due_at <= timezone.now()


def test_card_errors_are_400_with_a_sentence(author_api, ray_task):
    response = author_api.patch(f"/api/author/cards/{ray_task.pk}/", {"section": "nope"},
                                format="json")  # fmt: skip
    assert response.status_code == 400
    assert response.json()["error"] == "section: section 'nope' is not in deck 'ray-basics'"


def test_create_a_card_and_list_revisions(author_api, small_deck):
    response = author_api.post(
        "/api/author/decks/ray-basics/cards/",
        {"section": "rllib", "slug": "learner", "front": "What is a Learner?", "back": "Updates.",
         "tags": ["rllib"]}, format="json",
    )  # fmt: skip
    assert response.status_code == 201, response.json()
    card = response.json()
    assert (card["order"], card["section"], card["revision"]) == (2, "rllib", 1)
    revisions = author_api.get(f"/api/author/cards/{card['id']}/revisions/").json()
    assert [(r["number"], r["source"], r["author"]) for r in revisions] == [(1, "api", "dave")]


def test_restore_through_the_api(author_api, ray_task):
    author_api.patch(f"/api/author/cards/{ray_task.pk}/", {"front": "Typo?"}, format="json")
    original = Revision.objects.get(card=ray_task, number=1)
    response = author_api.post(f"/api/author/revisions/{original.pk}/restore/", {}, format="json")
    assert response.status_code == 201
    assert response.json()["restored_from"] == 1
    ray_task.refresh_from_db()
    assert ray_task.front == "What is a Ray task?"


def test_questions_crud(author_api, quiz, question):
    listed = author_api.get(f"/api/author/quizzes/{quiz.slug}/questions/").json()
    assert listed[0]["choices"] == [
        {"text": "An actor", "correct": True}, {"text": "A task", "correct": False},
    ]  # fmt: skip
    bad = author_api.post(
        f"/api/author/quizzes/{quiz.slug}/questions/",
        {"slug": "q2", "kind": "single", "prompt": "P", "explanation": "E", "cards": ["ray-task"],
         "choices": [{"text": "a", "correct": True}, {"text": "b", "correct": True}]},
        format="json",
    )  # fmt: skip
    assert bad.status_code == 400
    assert bad.json()["error"] == (
        "question: a single-choice question needs exactly 1 correct choice, has 2"
    )
    body = {"points": 3, "cards": ["ray-actor", "ray-task"]}
    response = author_api.patch(f"/api/author/questions/{question.pk}/", body, format="json")
    assert response.status_code == 200
    assert response.json()["points"] == 3 and response.json()["cards"] == ["ray-actor", "ray-task"]


def test_quiz_create_and_refusals(author_api, small_deck):
    response = author_api.post(
        "/api/author/decks/ray-basics/quizzes/",
        {"slug": "core-checkpoint", "title": "Core", "kind": "checkpoint"}, format="json",
    )  # fmt: skip
    assert response.status_code == 400
    assert response.json()["error"] == "section: a checkpoint needs the section whose page shows it"
    response = author_api.post(
        "/api/author/decks/ray-basics/quizzes/",
        {"slug": "core-checkpoint", "title": "Core", "kind": "checkpoint", "section": "ray-core"},
        format="json",
    )  # fmt: skip
    assert response.status_code == 201 and response.json()["section"] == "ray-core"


def test_import_dry_run_then_commit(author_api, small_deck):
    def upload():
        data = b"front,back,section,tags\nWhat is Ray?,A framework,ray-core,\n"
        return {"file": SimpleUploadedFile("n.csv", data), "deck": "ray-basics"}

    preview = author_api.post("/api/author/import/?dry_run=1", upload(), format="multipart")
    assert preview.status_code == 200
    assert {k: preview.json()[k] for k in ("created", "changed", "unchanged", "dry_run")} == {
        "created": 1, "changed": 0, "unchanged": 5, "dry_run": True,
    }  # fmt: skip
    assert small_deck.cards.count() == 5
    done = author_api.post("/api/author/import/", upload(), format="multipart")
    assert done.status_code == 201 and small_deck.cards.count() == 6


def test_import_refusal_is_a_400_naming_the_line(author_api, small_deck):
    bad = {"file": SimpleUploadedFile("b.csv", b"front,back,tags\n"), "deck": "ray-basics"}
    response = author_api.post("/api/author/import/", bad, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"].startswith(
        "file: Nothing was imported. b.csv: line 1: missing column 'section'"
    )


def test_export_apkg_and_yaml(author_api, small_deck):
    response = author_api.get("/api/author/decks/ray-basics/export/apkg/")
    assert response.status_code == 200
    assert zipfile.is_zipfile(io.BytesIO(response.content))
    assert response["Content-Disposition"] == 'attachment; filename="ray-basics.apkg"'
    text = author_api.get("/api/author/decks/ray-basics/export/yaml/").content.decode()
    assert text.startswith("slug: ray-basics\n")
    assert author_api.get("/api/author/decks/ray-basics/export/pdf/").status_code == 404


def test_the_schema_documents_the_author_api(api_client):
    schema = api_client.get("/api/schema/").content.decode()
    for path in ("/api/author/decks/{slug}/cards/", "/api/author/import/",
                 "/api/author/questions/{id}/", "/api/author/revisions/{id}/restore/"):  # fmt: skip
        assert path in schema


def test_card_list_query_count_does_not_grow_with_cards(
    author_api, small_deck, django_assert_num_queries
):
    url = "/api/author/decks/ray-basics/cards/"
    # the author checks (3), the deck, the count of its cards, the page's cards, their demo
    # links (the count came with the pages, issue 28)
    with django_assert_num_queries(7):
        assert len(author_api.get(url).json()["results"]) == 5
    core = small_deck.sections.get(slug="ray-core")
    for i in range(10):
        small_deck.cards.create(section=core, slug=f"extra-{i}", order=10 + i, front="F", back="B")
    with django_assert_num_queries(7):
        assert len(author_api.get(url).json()["results"]) == 15


def test_card_demo_links_through_the_api(author_api, ray_task):
    url = f"/api/author/cards/{ray_task.pk}/"
    response = author_api.patch(url, {"demos": ["tasks-vs-actors"]}, format="json")
    assert response.status_code == 200 and response.json()["demos"] == ["tasks-vs-actors"]
    response = author_api.patch(url, {"demos": ["no-such-demo"]}, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "demos: no demo 'no-such-demo' in the catalogue"
    assert list(ray_task.demo_links.values_list("demo", flat=True)) == ["tasks-vs-actors"]
