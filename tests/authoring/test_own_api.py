"""A learner's own decks through the API (/api/my/) and the card browser's bulk actions
(/api/cards/bulk/): the pages' services, quota and refusals; a create sent again with its
client_id writes once; lists come a page at a time in a pinned number of queries; another
learner's deck is a 404."""

import io
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from rest_framework.test import APIClient

from apps.authoring import services
from apps.authoring.models import Revision
from apps.decks.models import Card, Deck
from apps.study.models import CardState
from apps.study.services import review_record

pytestmark = pytest.mark.django_db


def as_user(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def own(alice) -> Deck:
    return services.own_deck_create(user=alice, title="Mock interview")


@pytest.fixture
def own_card(own, alice) -> Card:
    return services.card_create(
        deck=own, author=alice, section=own.sections.get(), slug="ring-buffer",
        front="What is a ring buffer?", back="A fixed-size FIFO that overwrites its oldest entry.",
    )  # fmt: skip


def test_a_deck_and_a_card_made_twice_with_one_client_id_are_made_once(alice):
    api, key = as_user(alice), str(uuid.uuid4())
    first = api.post("/api/my/decks/", {"title": "Replay", "client_id": key}, format="json")
    again = api.post("/api/my/decks/", {"title": "Replay", "client_id": key}, format="json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["slug"] == again.json()["slug"]
    assert Deck.objects.filter(owner=alice).count() == 1
    slug, key = first.json()["slug"], str(uuid.uuid4())
    card = {"front": "What is PER?", "back": "Prioritized experience replay.", "client_id": key}
    made = api.post(f"/api/my/decks/{slug}/cards/", card, format="json")
    repeat = api.post(f"/api/my/decks/{slug}/cards/", card, format="json")
    assert (made.status_code, repeat.status_code) == (201, 200)
    assert made.json()["id"] == repeat.json()["id"]
    assert made.json()["slug"] == "what-is-per" and made.json()["section"] == "cards"
    assert Card.objects.filter(deck__slug=slug).count() == 1
    # The deck's client_id used for a card: refused, nothing made.
    reused = api.post(f"/api/my/decks/{slug}/cards/", card | {"client_id": first.json()["slug"]},
                      format="json")  # fmt: skip
    assert reused.status_code == 400 and "client_id" in reused.json()


def test_another_learners_deck_card_and_history_are_404(bob, own, own_card):
    api = as_user(bob)
    for url in [f"/api/my/decks/{own.slug}/", f"/api/my/decks/{own.slug}/cards/",
                f"/api/my/cards/{own_card.pk}/", f"/api/my/cards/{own_card.pk}/revisions/",
                f"/api/my/decks/{own.slug}/export/csv/"]:  # fmt: skip
        assert api.get(url).status_code == 404, url
    assert (
        api.patch(f"/api/my/cards/{own_card.pk}/", {"back": "x"}, format="json").status_code == 404
    )
    assert api.delete(f"/api/my/decks/{own.slug}/").status_code == 404
    own_card.refresh_from_db()
    assert own_card.back.startswith("A fixed-size")


def test_lists_come_a_page_at_a_time_in_pinned_queries(alice, own, django_assert_num_queries):
    section = own.sections.get()
    for i in range(3):
        services.card_create(deck=own, author=alice, section=section, slug=f"c{i}",
                             front=f"Front {i}", back="Back")  # fmt: skip
    api = as_user(alice)
    with django_assert_num_queries(2):  # the count, the page
        decks = api.get("/api/my/decks/").json()
    assert decks["count"] == 1 and decks["results"][0]["card_count"] == 3
    with django_assert_num_queries(3):  # the deck, the count, the page
        cards = api.get(f"/api/my/decks/{own.slug}/cards/?page=1").json()
    assert [c["slug"] for c in cards["results"]] == ["c0", "c1", "c2"]
    assert cards["results"][0]["revision"] == 1
    assert api.get(f"/api/my/decks/{own.slug}/cards/?page=x").status_code == 400


def test_an_edit_records_a_revision_which_restores_and_a_delete_retires(alice, own_card):
    api = as_user(alice)
    edited = api.patch(f"/api/my/cards/{own_card.pk}/", {"back": "Overwrites the oldest."},
                       format="json")  # fmt: skip
    assert edited.status_code == 200 and edited.json()["back"] == "Overwrites the oldest."
    history = api.get(f"/api/my/cards/{own_card.pk}/revisions/").json()
    assert [r["number"] for r in history] == [2, 1]
    restored = api.post(f"/api/my/revisions/{history[1]['id']}/restore/", {}, format="json")
    assert restored.status_code == 201
    own_card.refresh_from_db()
    assert own_card.back.startswith("A fixed-size")
    assert api.delete(f"/api/my/cards/{own_card.pk}/").status_code == 204
    assert not Card.objects.filter(pk=own_card.pk).exists()  # retired: history kept
    assert Revision.objects.filter(card_id=own_card.pk).count() == 3


def test_past_the_quota_a_create_is_refused_and_nothing_written(alice, own, own_card, settings):
    settings.OWN_CARDS_MAX = 1
    card = {"front": "One more?", "back": "No."}
    response = as_user(alice).post(f"/api/my/decks/{own.slug}/cards/", card, format="json")
    assert response.status_code == 409
    assert "may hold 1 cards" in response.json()["error"]
    assert own.cards.count() == 1
    usage = as_user(alice).get("/api/my/usage/").json()
    assert (usage["cards"], usage["cards_max"]) == (1, 1)


def test_an_image_upload_gives_its_markdown_and_a_bad_one_names_the_field(alice, own):
    out = io.BytesIO()
    Image.new("RGB", (12, 8), (10, 20, 30)).save(out, format="PNG")
    api = as_user(alice)
    image = SimpleUploadedFile("ring.png", out.getvalue(), "image/png")
    response = api.post(f"/api/my/decks/{own.slug}/media/", {"image": image}, format="multipart")
    assert response.status_code == 201
    assert response.json()["markdown"] == "![](<media:ring.png>)"
    bad = SimpleUploadedFile("ring.png", b"not an image", "image/png")
    refused = api.post(f"/api/my/decks/{own.slug}/media/", {"image": bad}, format="multipart")
    assert refused.status_code == 400 and "image" in refused.json()


def test_an_import_into_my_deck_previews_then_writes_and_the_export_has_it(alice, own):
    api = as_user(alice)
    csv = b"front,back,section,tags\nWhat is GAE?,Generalized advantage estimation.,cards,\n"

    def upload():
        return {"file": SimpleUploadedFile("cards.csv", csv, "text/csv")}

    url = f"/api/my/decks/{own.slug}/import/"
    preview = api.post(url + "?dry_run=1", upload(), format="multipart")
    assert preview.status_code == 200 and own.cards.count() == 0
    done = api.post(url, upload(), format="multipart")
    assert done.status_code == 201, done.content
    assert own.cards.get().front == "What is GAE?"
    again = api.post(url, upload(), format="multipart")  # the same file again: nothing doubles
    assert again.status_code == 201 and own.cards.count() == 1
    export = api.get(f"/api/my/decks/{own.slug}/export/csv/")
    assert export.status_code == 200 and b"What is GAE?" in b"".join(export)


def test_bulk_actions_act_on_my_schedule_and_my_own_cards_only(
    alice, own, own_card, small_deck, django_assert_num_queries
):
    ray_task = small_deck.cards.get(slug="ray-task")
    review_record(user=alice, card=ray_task, grade=5)
    api = as_user(alice)
    ids = [ray_task.pk, own_card.pk]
    with django_assert_num_queries(7):
        suspended = api.post("/api/cards/bulk/", {"action": "suspend", "cards": ids},
                             format="json")  # fmt: skip
    assert suspended.json() == {"action": "suspend", "done": 2, "left": 0,
                                "message": "2 cards suspended."}  # fmt: skip
    assert CardState.objects.filter(user=alice, suspended=True).count() == 2
    again = api.post("/api/cards/bulk/", {"action": "suspend", "cards": ids}, format="json")
    assert again.json()["done"] == 2 and CardState.objects.filter(user=alice).count() == 2
    tagged = api.post("/api/cards/bulk/", {"action": "tag", "cards": ids, "tag": "later"},
                      format="json").json()  # fmt: skip
    assert (tagged["done"], tagged["left"]) == (1, 1)
    own_card.refresh_from_db()
    ray_task.refresh_from_db()
    assert own_card.tags == ["later"] and "later" not in ray_task.tags
    no_days = api.post("/api/cards/bulk/", {"action": "reschedule", "cards": ids}, format="json")
    assert no_days.status_code == 400 and "days" in no_days.json()


def test_a_bulk_action_naming_more_than_1000_cards_is_refused_by_name(alice, own_card):
    body = {"action": "forget", "cards": list(range(1, 1002))}
    response = as_user(alice).post("/api/cards/bulk/", body, format="json")
    assert response.status_code == 400
    assert response.json()["cards"] == ["choose at most 1000 cards at once"]
