"""Nothing a learner can read before submitting gives an answer away: not a field name, not
an id, not an order. Checked over every shipped quiz, on the API and on the pages."""

import re
from collections import Counter

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from apps.decks.models import Section
from apps.quizzes.models import Attempt, Choice, MatchPair, Question, Quiz, Statement
from apps.quizzes.services import attempt_start

# Not after a letter: "is_correct" and "correct-answer" leak, a card slug like
# "objectref-arg-resolution" does not.
FORBIDDEN = re.compile(r"(?<![a-z])(correct|answer|right_key|explanation|is_right|solution)", re.I)


def keys_in(document, path="$"):
    if isinstance(document, dict):
        for key, value in document.items():
            yield f"{path}.{key}", key
            yield from keys_in(value, f"{path}.{key}")
    elif isinstance(document, list):
        for i, value in enumerate(document):
            yield from keys_in(value, f"{path}[{i}]")


@pytest.fixture
def alice_api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def test_no_field_of_any_quiz_endpoint_names_an_answer(seeded, alice_api):
    documents = [alice_api.get("/api/quizzes/").json()]
    for quiz in Quiz.objects.all():
        documents.append(alice_api.get(f"/api/quizzes/{quiz.slug}/").json())
        documents.append(APIClient().get(f"/api/quizzes/{quiz.slug}/").json())
    assert len(documents) > 20
    for document in documents:
        leaks = [path for path, key in keys_in(document) if FORBIDDEN.search(key)]
        assert not leaks, leaks


def test_ids_are_opaque(seeded, alice_api):
    db_ids = {
        str(pk)
        for model in (Question, Choice, Statement, MatchPair)
        for pk in model.objects.values_list("pk", flat=True)
    }
    seen = []
    for quiz in Quiz.objects.all():
        for question in alice_api.get(f"/api/quizzes/{quiz.slug}/").json()["questions"]:
            items = [question] + [
                item
                for part in ("choices", "statements", "left", "right")
                for item in question.get(part, [])
            ]
            for item in items:
                assert isinstance(item["id"], str) and len(item["id"]) == 8
                assert item["id"] not in db_ids
                seen.append(item["id"])
    assert len(seen) == len(set(seen)), "every id is unique across the whole site"
    # the two sides of a pair are unrelated tokens
    for pair in MatchPair.objects.all():
        assert pair.left_key != pair.right_key
        assert pair.left_key[:3] != pair.right_key[:3] or pair.left_key[3:] != pair.right_key[3:]


def test_option_order_does_not_follow_what_is_right(seeded, alice, alice_api):
    """Over every shipped choice question, the right option sits anywhere; within one question,
    successive attempts put it in different places; a matching's right column is not in the left
    column's order."""
    api_positions = Counter()
    for quiz in Quiz.objects.prefetch_related("questions__choices"):
        data = APIClient().get(f"/api/quizzes/{quiz.slug}/").json()
        right = {c.key for q in quiz.questions.all() for c in q.choices.all() if c.correct}
        for question in data["questions"]:
            for position, choice in enumerate(question.get("choices", [])):
                if choice["id"] in right:
                    api_positions[position] += 1
    assert len(api_positions) >= 3, api_positions  # not always first, nor always last

    single = Question.objects.filter(kind="single", quiz__kind="knowledge_check").first()
    right = single.choices.get(correct=True).key
    positions, identity = set(), 0
    match = max(
        Question.objects.filter(kind="match", quiz__kind="knowledge_check"),
        key=lambda question: question.pairs.count(),
    )
    assert match.pairs.count() >= 4
    partner = {p.left_key: p.right_key for p in match.pairs.all()}
    for _ in range(30):
        Attempt.objects.all().delete()
        attempt_start(user=alice, quiz=single.quiz)
        data = alice_api.get(f"/api/quizzes/{single.quiz.slug}/").json()
        question = next(q for q in data["questions"] if q["id"] == single.key)
        positions.add([c["id"] for c in question["choices"]].index(right))
        Attempt.objects.all().delete()
        data = alice_api.get(f"/api/quizzes/{match.quiz.slug}/").json()
        question = next(q for q in data["questions"] if q["id"] == match.key)
        lefts = [partner[item["id"]] for item in question["left"]]
        identity += lefts == [item["id"] for item in question["right"]]
    assert len(positions) >= 3
    assert identity <= 6  # 1/24 or less by chance (about 1 in 30), never by construction


def test_pages_hold_no_answer_before_submission(seeded, client, alice):
    client.force_login(alice)
    tag = re.compile(r"<[^>]+>")
    pages = [reverse("quizzes:index")]
    pages += [s.get_absolute_url() for s in Section.objects.select_related("deck")]
    for quiz in Quiz.objects.filter(kind="knowledge_check"):
        pages.append(reverse("quizzes:quiz", args=[quiz.slug]))
        pages.append(attempt_start(user=alice, quiz=quiz).get_absolute_url())
    explanations = [q.explanation_html for q in Question.objects.all()]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        markup = " ".join(tag.findall(html))
        assert not FORBIDDEN.search(markup), (url, FORBIDDEN.search(markup))
        for explanation in explanations:
            assert explanation not in html, url
