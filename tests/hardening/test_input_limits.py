"""Findings 3, 4 and 6: hostile input gets a 400 naming the field or the part of the request,
never a RecursionError, a NUL sent to PostgreSQL, or a number taken for a UUID (config/limits.py).
"""

from __future__ import annotations

import json
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.test import APIClient

from apps.decks.models import Card
from apps.study.models import ReviewLog
from config.limits import MAX_NESTING, NestingTooDeep, json_depth_check

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


# Finding 3: nesting -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["deep.yaml", "deep.json"])
def test_an_import_file_of_5000_brackets_is_refused_with_400(staff, name):
    upload = SimpleUploadedFile(name, b"[" * 5000)
    response = client_for(staff).post("/api/author/import/", {"file": upload}, format="multipart")
    assert response.status_code == 400, response.content[:200]
    assert f"nested more than {MAX_NESTING} levels deep" in response.json()["error"]
    assert response.json()["error"].startswith("file: Nothing was imported.")


def test_a_quiz_answer_nested_50000_deep_is_refused_with_400_naming_answers(alice, core_check):
    body = '{"answers": ' + "[" * 50_000 + "]" * 50_000 + "}"
    response = client_for(alice).post(
        f"/api/quizzes/{core_check.slug}/attempts/", body, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["error"] == f"answers: nested more than {MAX_NESTING} levels deep"


def test_a_review_body_nested_deep_is_refused_and_records_nothing(alice, small_deck):
    body = '{"card": ' + "[" * 5000 + "1" + "]" * 5000 + ', "grade": 4}'
    response = client_for(alice).post("/api/reviews/", body, content_type="application/json")
    assert response.status_code == 400 and "card: nested more than" in response.json()["error"]
    assert not ReviewLog.objects.exists()


@given(
    st.recursive(
        st.none() | st.integers() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
        max_leaves=20,
    )
)
def test_the_depth_scan_agrees_with_the_parsed_document(value):
    def depth(v):
        if isinstance(v, list):
            return 1 + max((depth(x) for x in v), default=0)
        if isinstance(v, dict):
            return 1 + max((depth(x) for x in v.values()), default=0)
        return 0

    text = json.dumps(value)
    if depth(value) > MAX_NESTING:
        with pytest.raises(NestingTooDeep):
            json_depth_check(text)
    else:
        json_depth_check(text)


def test_brackets_inside_strings_do_not_count():
    json_depth_check(json.dumps({"front": "[" * 1000 + '\\"{' * 100}))


# Finding 4: NUL and invalid UTF-8 -------------------------------------------------------------


def test_a_nul_in_the_queue_query_is_a_400_not_a_500(alice, small_deck):
    response = client_for(alice).get("/api/study/queue/?deck=a%00b")
    assert response.status_code == 400
    assert response.json()["error"] == "The query string holds a NUL character: check the link."


def test_invalid_utf8_in_a_query_is_a_400(alice, small_deck):
    response = client_for(alice).get("/api/study/queue/?deck=%ff")
    assert response.status_code == 400 and "not UTF-8" in response.json()["error"]


def test_a_nul_and_invalid_utf8_in_a_page_path_is_a_400_page(client, alice):
    client.force_login(alice)
    response = client.get("/teams/join/%00%ff/")
    assert response.status_code == 400
    page = response.content.decode()
    assert "The address holds a NUL character" in page and '<main id="main"' in page


def test_a_nul_in_a_quiz_answer_is_a_400_naming_the_field(alice, core_check):
    question = core_check.questions.first()
    body = {"answers": {str(question.pk): ["a\u0000b"]}}
    response = client_for(alice).post(
        f"/api/quizzes/{core_check.slug}/attempts/", body, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"].startswith(f"answers: {question.pk}: a NUL character")


def test_a_nul_in_a_demo_parameter_is_a_400_naming_it(alice):
    body = {"demo": "vtrace", "params": {"n_items": "1\u0000"}}
    response = client_for(alice).post("/api/demo-runs/", body, format="json")
    assert response.status_code == 400 and "NUL" in response.json()["error"]


def test_invalid_utf8_in_a_json_body_is_a_400(alice):
    response = client_for(alice).post(
        "/api/reviews/", b'{"card": "\xff"}', content_type="application/json"
    )
    assert response.status_code == 400 and "not valid UTF-8" in response.json()["error"]


def test_a_nul_in_a_form_post_is_a_400_page(client, alice, small_deck):
    client.force_login(alice)
    response = client.post(
        "/study/review/ray-basics/", "card=1&grade=4&client_id=%00",
        content_type="application/x-www-form-urlencoded",
    )  # fmt: skip
    assert (
        response.status_code == 400
        and "The form holds a NUL character" in response.content.decode()
    )


# Finding 6: client_id is a UUID string -------------------------------------------------------


@pytest.mark.parametrize("client_id", [False, 12345, 0, 1.5, ["x"]])
def test_a_review_client_id_that_is_not_a_uuid_string_is_refused(alice, small_deck, client_id):
    card = Card.objects.filter(deck=small_deck).first()
    response = client_for(alice).post(
        "/api/reviews/", {"card": card.pk, "grade": 4, "client_id": client_id}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"].startswith("client_id: must be a UUID string")
    assert not ReviewLog.objects.exists()


def test_false_twice_is_not_a_reuse_of_the_zero_uuid(alice, small_deck):
    first, second = Card.objects.filter(deck=small_deck).order_by("order")[:2]
    api = client_for(alice)
    for card in (first, second):
        response = api.post(
            "/api/reviews/", {"card": card.pk, "grade": 4, "client_id": False}, format="json"
        )
        assert response.status_code == 400
    assert not ReviewLog.objects.filter(client_id=uuid.UUID(int=0)).exists()


@pytest.mark.parametrize("client_id", [False, 12345])
def test_a_quiz_submit_client_id_that_is_not_a_uuid_string_is_refused(alice, core_check, client_id):
    response = client_for(alice).post(
        f"/api/quizzes/{core_check.slug}/attempts/",
        {"answers": {}, "client_id": client_id},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"].startswith("client_id: must be a UUID string")


def test_a_uuid_string_still_works(alice, small_deck):
    card = Card.objects.filter(deck=small_deck).first()
    body = {"card": card.pk, "grade": 4, "client_id": str(uuid.uuid4())}
    assert client_for(alice).post("/api/reviews/", body, format="json").status_code == 201


# Bulk actions past their limit: the form's own sentence, not "the request could not be read" ---


def _ids(count: int) -> list[str]:
    return [str(10**6 + i) for i in range(count)]


@pytest.mark.parametrize(
    ("url", "fields"),
    [
        ("/study/browse/bulk/", {"action": "suspend"}),
        ("/my/cards/bulk/", {"action": "tag", "tag": "later"}),
    ],
)
@pytest.mark.parametrize("count", [998, 1001])
def test_a_bulk_post_naming_too_many_cards_gets_the_forms_own_sentence(alice, url, fields, count):
    """998 ids beside the form's own fields passed Django's default 1,000-field limit and were
    refused unread; now the form reads them: up to 1,000 are done, more are refused by name."""
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    client.get("/study/browse/")
    token = client.cookies["csrftoken"].value
    body = {"cards": _ids(count), "next": "/study/browse/", "csrfmiddlewaretoken": token} | fields
    response = client.post(url, body, follow=True)
    assert response.status_code == 200
    page = response.content.decode()
    if count > 1000:
        assert "choose at most 1000 cards at once" in page
    else:
        assert "Nothing was done" not in page and "could not be read" not in page


def test_a_post_past_even_the_raised_field_limit_says_what_a_bulk_action_takes(client, alice):
    client.force_login(alice)
    response = client.post("/study/browse/bulk/", {"cards": _ids(5001), "action": "suspend"})
    assert response.status_code == 400
    assert "a bulk action takes at most 1,000 cards" in response.content.decode()
