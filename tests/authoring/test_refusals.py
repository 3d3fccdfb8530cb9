"""How authoring refuses (config.errors.ServiceError): every input at fault named, on the page's
form and in the API's body; a person not allowed gets the 403 page with the sentence why, for a
read and for a post; a worker's import job refused by a service fails with that sentence."""

import pytest
import yaml
from django.urls import reverse

from apps.authoring import services
from apps.authoring.models import DeckAuthor, ImportJob
from apps.decks.models import Deck

pytestmark = pytest.mark.django_db

COMMA = "a tag cannot contain a comma: 'ray, core'"
NO_SECTION = "section 'nope' is not in deck 'ray-basics'"


def test_the_api_names_each_refused_field_of_one_edit(api_client, dave, ray_task):
    api_client.force_authenticate(dave)
    body = {"tags": ["ray, core"], "section": "nope"}
    response = api_client.patch(f"/api/author/cards/{ray_task.pk}/", body, format="json")
    assert response.status_code == 400
    body = response.json()
    assert (body["tags"], body["section"]) == ([COMMA], [NO_SECTION])
    assert body["error"] == f"tags: {COMMA}"
    ray_task.refresh_from_db()
    assert ray_task.tags != ["ray, core"]


def test_the_card_page_shows_each_refused_field_with_what_was_typed(client, dave, ray_task):
    client.force_login(dave)
    form = {"section": "nope", "slug": "ray-task", "front": "What is a Ray task?",
            "back": "Typed, not saved.", "tags": "ray, core"}  # fmt: skip
    response = client.post(reverse("authoring:card", args=[ray_task.pk]), form)
    assert response.status_code == 400
    html = response.content.decode()
    assert NO_SECTION.replace("'", "&#x27;") in html
    assert "Typed, not saved." in html
    ray_task.refresh_from_db()
    assert ray_task.back != "Typed, not saved."


def test_a_post_by_someone_not_allowed_is_the_403_page_with_why(client, alice):
    client.force_login(alice)  # a learner: no author pages
    response = client.post(reverse("authoring:deck-create"), {"slug": "mine", "title": "Mine"})
    assert response.status_code == 403
    assert "Only staff and deck authors may open the author pages." in response.content.decode()
    assert not Deck.objects.filter(slug="mine").exists()


def test_a_service_refusing_the_author_on_a_post_is_the_403_page_too(client, dave, alice):
    """dave authors the deck but is not staff: the grant service refuses him (Forbidden), and
    the page says why with 403 instead of sending him back to a form he cannot use."""
    client.force_login(dave)
    url = reverse("authoring:deck-authors", args=["ray-basics"])
    response = client.post(url, {"username": alice.username})
    assert response.status_code == 403
    assert "Only staff may choose a deck&#x27;s authors." in response.content.decode()
    assert not DeckAuthor.objects.filter(user=alice).exists()


def test_a_refused_field_the_form_does_not_have_is_said_above_it(client, dave, quiz):
    """The quiz form takes a percentage; the service refuses the share it makes (pass_mark),
    a field the form has not: the page still says why, and nothing is saved."""
    client.force_login(dave)
    form = {"slug": quiz.slug, "title": "Renamed", "kind": "knowledge_check",
            "pass_percent": "150"}  # fmt: skip
    response = client.post(reverse("authoring:quiz", args=[quiz.slug]), form)
    assert response.status_code == 400
    assert "Not saved: pass_mark must be from 0 to 1, got 1.5" in response.content.decode()
    quiz.refresh_from_db()
    assert quiz.title != "Renamed"


def test_an_import_job_past_the_quota_fails_with_the_quota_sentence(alice, settings):
    """A learner's import into their own deck, run by the worker: the quota's refusal is the
    job's error (it used to escape the job, which then waited for the reaper)."""
    settings.OWN_CARDS_MAX = 2
    own = services.own_deck_create(user=alice, title="Papers")
    rows = "".join(f"Q{i},A{i},cards,\n" for i in range(3))
    job = services.import_job_create(
        user=alice, data=f"front,back,section,tags\n{rows}".encode(), filename="cards.csv",
        options={"fmt": None, "deck_slug": own.slug, "into": own.slug, "deck_title": "",
                 "section": ""},
    )  # fmt: skip
    assert services.import_job_run(job_id=job.pk) == ImportJob.Status.FAILED
    job.refresh_from_db()
    assert job.error.startswith("Nothing was imported. Your own decks may hold 2 cards")
    assert own.cards.count() == 0


HUGE_RANGE = [{"name": "x", "min": 0, "max": 1e300, "step": 1}]
TINY_STEP = [{"name": "x", "min": 0, "max": 1, "step": 1e-28}]
OVERFLOWING = [{"name": "x", "min": 1e200, "max": 2e200, "step": 1e200}]


@pytest.mark.parametrize(
    ("given", "formula", "field", "words"),
    [
        (HUGE_RANGE, "x + 1", "given", "given[0].step: the range of 'x' holds more than"),
        (TINY_STEP, "x + 1", "given", "given[0].step: the range of 'x' holds more than"),
        (OVERFLOWING, "ceil(x * x - x * x) + 1", "formula", "formula: overflows"),
        (OVERFLOWING, "(x * x - x * x) // 1 + 1", "formula", "formula: overflows"),
    ],
)
def test_a_drill_whose_numbers_overflow_is_a_400_naming_the_field(
    api_client, client, dave, quiz, given, formula, field, words
):
    """Ranges past Decimal's precision and formulas whose bounds overflow (inf - inf) are
    refused by name, in the API and on the question page, and nothing is saved."""
    api_client.force_authenticate(dave)
    body = {"slug": "feed", "kind": "numeric", "prompt": "Feed {x}.", "explanation": "Sized.",
            "cards": ["ray-task"], "given": given, "formula": formula, "tolerance": 0.05,
            "solution": "{answer}"}  # fmt: skip
    response = api_client.post(f"/api/author/quizzes/{quiz.slug}/questions/", body, format="json")
    assert response.status_code == 400, response.content
    assert words in response.json()[field][0]
    client.force_login(dave)
    options = yaml.safe_dump({"given": given, "formula": formula, "tolerance": 0.05,
                              "solution": "{answer}"})  # fmt: skip
    form = {"slug": "feed", "kind": "numeric", "prompt": "Feed {x}.", "explanation": "Sized.",
            "points": "1", "options": options, "cards": ["ray-task"]}  # fmt: skip
    page = client.post(reverse("authoring:question-new", args=[quiz.slug]), form)
    assert page.status_code == 400
    assert words.replace("'", "&#x27;") in page.content.decode()
    assert not quiz.questions.filter(slug="feed").exists()
