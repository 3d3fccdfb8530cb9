"""The 500s the attack found outside the documented 503s, each now a 400 or 409 with a sentence:

- a lone surrogate in a JSON key (demo run params, quiz answers): the 400 echoed the key and
  failed to encode;
- 6 parallel inline imports of one deck: 3 x 500 (UniqueViolation on card_rev_number);
- a deck DELETE racing reviews (IntegrityError on the review log), and a retry of the delete
  then took every learner's reviews and states of the deck (317 -> 0) with no guard.

The races run threads against the real PostgreSQL test database (SQLite runs one writing
transaction at a time: nothing to race there)."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from apps.authoring.models import Revision
from apps.decks.models import Card, Deck
from apps.quizzes.models import Attempt
from apps.study.models import CardState, ReviewLog
from apps.study.services import review_record


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def needs_postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("a race between transactions: CI runs it with DATABASE_URL=postgres://...")


def in_threads(count: int, work) -> list:
    """Run work(i) in `count` threads released together; each result, or the exception."""
    barrier, results = threading.Barrier(count), [None] * count

    def run(i):
        from django.db import connection as own

        try:
            barrier.wait()
            results[i] = work(i)
        except Exception as exc:  # noqa: BLE001 - the test reads it
            results[i] = exc
        finally:
            own.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


# Lone surrogates --------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "body", "where"),
    [
        ("/api/demo-runs/", r'{"demo": "vtrace", "params": {"n_items\ud800": 3}}',
         "params.n_items\\ud800"),
        ("/api/quizzes/core-check/attempts/", r'{"answers": {"\ud800": "\udc00"}}',
         "answers.\\ud800"),
        ("/api/reviews/", r'{"card": 1, "grade": 4, "client_id": "\udfff"}', "client_id"),
    ],
)  # fmt: skip
def test_a_lone_surrogate_anywhere_in_json_is_a_400_that_names_where(alice, core_check, url,
                                                                     body, where):  # fmt: skip
    response = client_for(alice).post(url, body, content_type="application/json")
    assert response.status_code == 400
    error = json.loads(response.content)["error"]
    assert error == (
        f"{where}: holds a lone surrogate (a \\ud800-\\udfff escape without its pair), which is "
        "not a character; send the text itself"
    )
    assert not Attempt.objects.exists()


@pytest.mark.django_db
def test_a_surrogate_pair_is_a_character_and_is_kept(alice, core_check):
    body = r'{"answers": {}, "client_id": "\ud83d\ude00"}'  # an emoji, escaped as JSON allows
    response = client_for(alice).post("/api/quizzes/core-check/attempts/", body,
                                      content_type="application/json")  # fmt: skip
    assert response.status_code == 400 and "client_id" in response.json()["error"]
    assert "surrogate" not in response.json()["error"]


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["deck.yaml", "deck.json"])
def test_a_lone_surrogate_in_an_imported_deck_is_refused_naming_the_card(staff, name):
    front = r'"F\ud800"'
    doc = (
        f'{{"slug": "sur", "title": "S", "sections": [{{"slug": "s", "title": "S", "cards": '
        f'[{{"slug": "a", "front": {front}, "back": "B"}}]}}]}}'
    )  # JSON is YAML too
    upload = SimpleUploadedFile(name, doc.encode())
    response = client_for(staff).post("/api/author/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400
    assert json.loads(response.content)["error"] == (
        f"file: Nothing was imported. {name}: card 'a': 'front' holds a lone surrogate (a "
        "\\ud800-\\udfff escape without its pair), which is not a character"
    )
    assert not Deck.objects.exists()


# Parallel inline imports ------------------------------------------------------------------------

CSV = b"slug,front,back,section,tags\n" + b"".join(
    f"c{i},Question {i}?,Answer {i}.,bulk,\n".encode() for i in range(40)
)


@pytest.mark.django_db(transaction=True)
def test_six_parallel_inline_imports_of_one_deck_answer_201_or_409_and_import_once(staff):
    needs_postgresql()
    clients = [client_for(staff) for _ in range(6)]
    clients[0].get("/api/decks/")  # the URLconf, loaded once before the threads

    def post(i):
        body = {"file": SimpleUploadedFile("bulk.csv", CSV), "deck": "bulk", "title": "Bulk"}
        return clients[i].post("/api/author/import/", body, format="multipart")

    responses = in_threads(6, post)
    statuses = sorted(getattr(r, "status_code", repr(r)) for r in responses)
    assert set(statuses) <= {201, 409} and 201 in statuses, statuses
    for response in responses:
        if response.status_code == 409:
            assert response.json()["error"].startswith("Another import of deck 'bulk' is queued")
    assert Card.objects.filter(deck__slug="bulk").count() == 40
    numbers = Revision.objects.filter(card__deck__slug="bulk").values_list("number", flat=True)
    assert sorted(numbers) == [1] * 40


# Deleting a deck learners study -----------------------------------------------------------------


@pytest.fixture
def studied(small_deck, alice, bob):
    for learner in (alice, bob):
        for card in small_deck.cards.all()[:3]:
            review_record(user=learner, card=card, grade=4)
    return small_deck


@pytest.mark.django_db
def test_deleting_a_deck_with_progress_is_refused_until_confirmed(staff, studied):
    api = client_for(staff)
    url = "/api/author/decks/ray-basics/"
    response = api.delete(url)
    assert response.status_code == 409
    assert response.json()["error"] == (
        "Deck 'ray-basics' holds the progress of 2 learners: 6 reviews and 6 card states would "
        "be deleted with it. To delete it anyway, send the delete again with confirm=ray-basics."
    )
    assert api.delete(url + "?confirm=yes").status_code == 409
    assert ReviewLog.objects.count() == 6 and CardState.objects.count() == 6
    assert api.delete(url + "?confirm=ray-basics").status_code == 204
    assert not Deck.objects.exists() and not ReviewLog.objects.exists()
    assert api.delete(url + "?confirm=ray-basics").status_code == 404  # a retry: nothing left


@pytest.mark.django_db
def test_a_deck_nobody_studies_is_deleted_at_once_and_only_by_staff(staff, small_deck, dave):
    assert client_for(dave).delete("/api/author/decks/ray-basics/").status_code == 403
    assert client_for(staff).delete("/api/author/decks/ray-basics/").status_code == 204


@pytest.fixture
def dave(django_user_model, small_deck):
    from apps.authoring.models import DeckAuthor

    user = django_user_model.objects.create_user(username="dave", password="pw-dave-123")
    DeckAuthor.objects.create(deck=small_deck, user=user)
    return user


@pytest.mark.django_db(transaction=True)
def test_a_deck_deleted_while_learners_review_it_answers_every_request(staff, alice, bob,
                                                                       small_deck):  # fmt: skip
    needs_postgresql()
    earlier = timezone.now() - timedelta(days=3)
    cards = list(small_deck.cards.all())
    for learner in (alice, bob):
        for card in cards:
            review_record(user=learner, card=card, grade=4, now=earlier)  # all due again now
    graders = [client_for(alice), client_for(bob), client_for(alice), client_for(bob)]
    graders[0].get("/api/decks/")
    deleted = threading.Event()

    def work(i):
        if i == 4:  # the author, in the middle of the reviews
            return [client_for(staff).delete("/api/author/decks/ray-basics/?confirm=ray-basics")]
        answers = []
        for card in cards * 2:
            answers.append(graders[i].post("/api/reviews/", {"card": card.pk, "grade": 5},
                                           format="json"))  # fmt: skip
            if deleted.is_set() and answers[-1].status_code != 201:
                break
        return answers

    def run(i):
        result = work(i)
        if i == 4:
            deleted.set()
        return result

    results = in_threads(5, run)
    assert not [r for r in results if isinstance(r, Exception)], results
    answers = [response for batch in results for response in batch]
    statuses = {response.status_code for response in answers}
    assert statuses <= {201, 204, 400, 404, 409}, sorted(
        (r.status_code, r.content[:200]) for r in answers if r.status_code >= 500
    )
    assert 204 in statuses
    for response in answers:
        if response.status_code in (400, 404):
            assert "card" in response.json()["error"]
    assert not Deck.objects.exists()
    assert not ReviewLog.objects.exists() and not CardState.objects.exists()
