"""The permission matrix: every author page and endpoint, for anonymous, a learner, an author
of another deck, the deck's author and staff. Non-authors get 403; anonymous pages -> log-in."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from apps.authoring import services
from apps.authoring.models import DeckAuthor
from apps.decks.models import Deck

pytestmark = pytest.mark.django_db

CSV = b"front,back,section,tags\nWhat is Ray?,A framework,ray-core,\n"


def _upload():
    return {"file": SimpleUploadedFile("cards.csv", CSV, "text/csv"), "deck": "ray-basics"}


# (name, method, url(world) -> str, data(world) -> dict | None, staff only?)
PAGES = [
    ("index", "get", lambda w: reverse("authoring:index"), None, False),
    ("deck-create", "post", lambda w: reverse("authoring:deck-create"),
     lambda w: {"slug": "new-deck", "title": "New"}, True),
    ("preview", "post", lambda w: reverse("authoring:preview"), lambda w: {"front": "*hi*"}, False),
    ("import", "get", lambda w: reverse("authoring:import"), None, False),
    ("import-upload", "post", lambda w: reverse("authoring:import"), lambda w: _upload(), False),
    ("deck", "get", lambda w: reverse("authoring:deck", args=["ray-basics"]), None, False),
    ("deck-save", "post", lambda w: reverse("authoring:deck", args=["ray-basics"]),
     lambda w: {"title": "Ray basics!", "description": "", "objectives": "One"}, False),
    ("deck-publish", "post", lambda w: reverse("authoring:deck-publish", args=["ray-basics"]),
     lambda w: {"publish": "0"}, False),
    ("deck-authors", "post", lambda w: reverse("authoring:deck-authors", args=["ray-basics"]),
     lambda w: {"username": "alice"}, True),
    ("section-create", "post", lambda w: reverse("authoring:section-create", args=["ray-basics"]),
     lambda w: {"slug": "tune", "title": "Tune"}, False),
    ("card-new", "get", lambda w: reverse("authoring:card-new", args=["ray-basics"]), None, False),
    ("card-create", "post", lambda w: reverse("authoring:card-new", args=["ray-basics"]),
     lambda w: {"section": "ray-core", "slug": "new-card", "front": "F", "back": "B"}, False),
    ("section", "get", lambda w: reverse("authoring:section", args=[w["section"].pk]), None, False),
    ("section-save", "post", lambda w: reverse("authoring:section", args=[w["section"].pk]),
     lambda w: {"slug": "ray-core", "title": "Core", "summary": ""}, False),
    ("section-move", "post", lambda w: reverse("authoring:section-move", args=[w["section"].pk]),
     lambda w: {"direction": "down"}, False),
    ("card", "get", lambda w: reverse("authoring:card", args=[w["card"].pk]), None, False),
    ("card-save", "post", lambda w: reverse("authoring:card", args=[w["card"].pk]),
     lambda w: {"section": "ray-core", "slug": "ray-task", "front": "What is a Ray task?",
                "back": "A stateless remote call.", "why": "", "tags": ""}, False),
    ("card-move", "post", lambda w: reverse("authoring:card-move", args=[w["card"].pk]),
     lambda w: {"direction": "down"}, False),
    ("card-delete", "post", lambda w: reverse("authoring:card-delete", args=[w["card"].pk]),
     lambda w: {}, False),
    ("card-history", "get", lambda w: reverse("authoring:card-history", args=[w["card"].pk]),
     None, False),
    ("revision-restore", "post",
     lambda w: reverse("authoring:revision-restore", args=[w["revision"].pk]), lambda w: {}, False),
    ("quiz", "get", lambda w: reverse("authoring:quiz", args=[w["quiz"].slug]), None, False),
    ("quiz-create", "post", lambda w: reverse("authoring:quiz-create", args=["ray-basics"]),
     lambda w: {"slug": "new-check", "title": "New", "kind": "knowledge_check",
                "pass_percent": "70"}, False),
    ("quiz-save", "post", lambda w: reverse("authoring:quiz", args=[w["quiz"].slug]),
     lambda w: {"slug": "ray-basics-check", "title": "Renamed", "kind": "knowledge_check",
                "pass_percent": "80"}, False),
    ("question-new", "get", lambda w: reverse("authoring:question-new", args=[w["quiz"].slug]),
     None, False),
    ("question-create", "post",
     lambda w: reverse("authoring:question-new", args=[w["quiz"].slug]),
     lambda w: {"slug": "q2", "kind": "multi", "prompt": "P", "explanation": "E", "points": "1",
                "options": "[x] a\n[ ] b", "cards": ["ray-task"]}, False),
    ("question", "get", lambda w: reverse("authoring:question", args=[w["question"].pk]), None,
     False),
    ("question-save", "post", lambda w: reverse("authoring:question", args=[w["question"].pk]),
     lambda w: {"slug": "task-or-actor", "kind": "single", "prompt": "Which keeps state?",
                "explanation": "E", "points": "2", "options": "[x] An actor\n[ ] A task",
                "cards": ["ray-actor"]}, False),
    ("question-move", "post", lambda w: reverse("authoring:question-move", args=[w["question"].pk]),
     lambda w: {"direction": "up"}, False),
    ("question-history", "get",
     lambda w: reverse("authoring:question-history", args=[w["question"].pk]), None, False),
    ("question-delete", "post",
     lambda w: reverse("authoring:question-delete", args=[w["question"].pk]), lambda w: {}, False),
    *[
        (f"export-{fmt}", "get", lambda w, fmt=fmt: reverse("authoring:export",
                                                             args=["ray-basics", fmt]), None, False)
        for fmt in ("yaml", "json", "csv", "apkg")
    ],
]  # fmt: skip

API = [
    ("decks", "get", lambda w: "/api/author/decks/", None, False),
    ("deck-create", "post", lambda w: "/api/author/decks/",
     lambda w: {"slug": "new-deck", "title": "New"}, True),
    ("deck", "get", lambda w: "/api/author/decks/ray-basics/", None, False),
    ("deck-patch", "patch", lambda w: "/api/author/decks/ray-basics/",
     lambda w: {"is_published": False}, False),
    ("deck-delete", "delete", lambda w: "/api/author/decks/ray-basics/", None, True),
    ("sections", "get", lambda w: "/api/author/decks/ray-basics/sections/", None, False),
    ("section-create", "post", lambda w: "/api/author/decks/ray-basics/sections/",
     lambda w: {"slug": "tune", "title": "Tune"}, False),
    ("section", "get", lambda w: f"/api/author/sections/{w['section'].pk}/", None, False),
    ("section-patch", "patch", lambda w: f"/api/author/sections/{w['section'].pk}/",
     lambda w: {"title": "Core"}, False),
    ("section-delete", "delete", lambda w: f"/api/author/sections/{w['empty'].pk}/", None, False),
    ("section-move", "post", lambda w: f"/api/author/sections/{w['section'].pk}/move/",
     lambda w: {"direction": "down"}, False),
    ("cards", "get", lambda w: "/api/author/decks/ray-basics/cards/", None, False),
    ("card-create", "post", lambda w: "/api/author/decks/ray-basics/cards/",
     lambda w: {"section": "ray-core", "slug": "new-card", "front": "F", "back": "B"}, False),
    ("card", "get", lambda w: f"/api/author/cards/{w['card'].pk}/", None, False),
    ("card-patch", "patch", lambda w: f"/api/author/cards/{w['card'].pk}/",
     lambda w: {"back": "A stateless remote call."}, False),
    ("card-delete", "delete", lambda w: f"/api/author/cards/{w['card'].pk}/", None, False),
    ("card-move", "post", lambda w: f"/api/author/cards/{w['card'].pk}/move/",
     lambda w: {"direction": "down"}, False),
    ("card-revisions", "get", lambda w: f"/api/author/cards/{w['card'].pk}/revisions/", None,
     False),
    ("revision-restore", "post",
     lambda w: f"/api/author/revisions/{w['revision'].pk}/restore/", lambda w: {}, False),
    ("quizzes", "get", lambda w: "/api/author/decks/ray-basics/quizzes/", None, False),
    ("quiz-create", "post", lambda w: "/api/author/decks/ray-basics/quizzes/",
     lambda w: {"slug": "another-check", "title": "Another", "kind": "knowledge_check"}, False),
    ("quiz", "get", lambda w: f"/api/author/quizzes/{w['quiz'].slug}/", None, False),
    ("quiz-patch", "patch", lambda w: f"/api/author/quizzes/{w['quiz'].slug}/",
     lambda w: {"title": "Renamed"}, False),
    ("quiz-delete", "delete", lambda w: f"/api/author/quizzes/{w['quiz'].slug}/", None, False),
    ("questions", "get", lambda w: f"/api/author/quizzes/{w['quiz'].slug}/questions/", None,
     False),
    ("question-create", "post", lambda w: f"/api/author/quizzes/{w['quiz'].slug}/questions/",
     lambda w: {"slug": "q2", "kind": "true_false", "prompt": "P", "explanation": "E",
                "cards": ["ray-task"], "statements": [{"text": "Tasks keep", "answer": False}]},
     False),
    ("question", "get", lambda w: f"/api/author/questions/{w['question'].pk}/", None, False),
    ("question-patch", "patch", lambda w: f"/api/author/questions/{w['question'].pk}/",
     lambda w: {"points": 2}, False),
    ("question-delete", "delete", lambda w: f"/api/author/questions/{w['question'].pk}/", None,
     False),
    ("question-revisions", "get",
     lambda w: f"/api/author/questions/{w['question'].pk}/revisions/", None, False),
    ("import-upload", "post", lambda w: "/api/author/import/?dry_run=1", lambda w: _upload(),
     False),
    ("preview", "post", lambda w: "/api/author/preview/", lambda w: {"text": "*hi*"}, False),
    *[
        (f"export-{fmt}", "get", lambda w, fmt=fmt: f"/api/author/decks/ray-basics/export/{fmt}/",
         None, False)
        for fmt in ("yaml", "json", "csv", "apkg")
    ],
]  # fmt: skip

WHO = ["anonymous", "learner", "other-author", "author", "staff"]
# Pages and endpoints about no deck in particular: any author may use them.
ANY_AUTHOR = {"index", "preview", "import", "decks"}


@pytest.fixture
def world(small_deck, quiz, question, staff, alice, dave, django_user_model):
    other = Deck.objects.create(slug="other", title="Other deck")
    erin = django_user_model.objects.create_user(username="erin", password="pw-erin-123")
    DeckAuthor.objects.create(deck=other, user=erin)
    card = small_deck.cards.get(slug="ray-task")
    services.card_update(card=card, author=staff, back="A stateless remote function call!")
    return {
        "deck": small_deck, "card": card, "section": card.section, "quiz": quiz,
        "question": question, "revision": card.revisions.get(number=1),
        "empty": services.section_create(deck=small_deck, slug="empty", title="Empty"),
        "users": {"learner": alice, "other-author": erin, "author": dave, "staff": staff},
    }  # fmt: skip


def _expect(who: str, name: str, staff_only: bool, code: int, anonymous_code: int, body):
    if who == "anonymous":
        assert code == anonymous_code, body
    elif who == "other-author" and name in ANY_AUTHOR:
        assert code == 200, body
    elif who in ("learner", "other-author") or (who == "author" and staff_only):
        assert code == 403, body
    else:
        assert code < 400, body


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("name,method,url,data,staff_only", PAGES, ids=[p[0] for p in PAGES])
def test_author_pages(client, world, who, name, method, url, data, staff_only):
    if who != "anonymous":
        client.force_login(world["users"][who])
    response = getattr(client, method)(url(world), data(world) if data else None)
    if who == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("accounts:login"))
        return
    if name == "preview":  # learners write cards of their own: the page preview is everyone's
        assert response.status_code == 200, response.content[:300]
        return
    _expect(who, name, staff_only, response.status_code, 302, response.content[:300])


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("name,method,url,data,staff_only", API, ids=[a[0] for a in API])
def test_author_api(api_client, world, who, name, method, url, data, staff_only):
    if who != "anonymous":
        api_client.force_authenticate(world["users"][who])
    payload = data(world) if data else None
    fmt = "multipart" if name == "import-upload" else "json"
    response = getattr(api_client, method)(url(world), payload, format=fmt)
    body = getattr(response, "data", None) or response.content[:300]
    _expect(who, name, staff_only, response.status_code, 403, body)
    if response.status_code == 403:
        assert response.json()["error"]


def test_token_auth_works_for_scripts(api_client, world):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=world["users"]["author"])
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api_client.get("/api/author/decks/")
    assert response.status_code == 200
    assert [d["slug"] for d in response.json()] == ["ray-basics"]
