"""A learner's own cards: alice makes a private deck and cards, reviews them in her one queue,
edits them from the review page and hits her quota; bob and staff never see them; a suggested
edit of a shipped card goes to its author, who accepts or rejects it, and the learner is told."""

import io
import json
import re

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from apps.authoring import services
from apps.authoring.models import EditSuggestion, Revision
from apps.decks.models import Card, Deck, Media
from apps.decks.selectors import visible_decks
from apps.study import queue
from apps.study.models import CardState
from apps.study.services import review_record
from config.errors import ServiceError

pytestmark = pytest.mark.django_db


def png(color=(200, 40, 40), size=(24, 16)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def own(alice) -> Deck:
    return services.own_deck_create(user=alice, title="Mock interview")


@pytest.fixture
def own_card(own, alice) -> Card:
    return services.card_create(
        deck=own, author=alice, section=own.sections.get(), slug="ring-buffer",
        front="What is a ring buffer?", back="A fixed-size FIFO that overwrites its oldest entry.",
    )  # fmt: skip


def login(client, user):
    client.force_login(user)
    return client


def test_a_learner_makes_a_private_deck_and_a_card_that_joins_her_one_queue(
    client, alice, small_deck
):
    login(client, alice)
    response = client.post(reverse("mine:deck-create"), {"title": "Mock interview"})
    deck = Deck.objects.get(owner=alice)
    assert response["Location"] == reverse("mine:card-new", args=[deck.slug])
    assert not deck.is_published and deck.slug.startswith("mock-interview-")
    response = client.post(
        reverse("mine:card-new", args=[deck.slug]),
        {"front": "What does *spillback* mean?", "back": "Sent on to another node.",
         "kind": "basic", "tags": "scheduling", "type_answer": "1", "type_answer_shown": "1",
         "section": "", "slug": ""},
    )  # fmt: skip
    assert response.status_code == 302, response.content[:400]
    card = deck.cards.get()
    assert card.slug == "what-does-spillback-mean" and card.type_answer
    assert card.revisions.get().source == Revision.Source.EDITOR
    # the all-decks queue serves the shipped deck's new cards and hers, in one queue
    items = queue.queue(alice).items
    assert card.pk in {i.card.pk for i in items} and len(items) == 6


def test_nobody_else_sees_a_private_deck_staff_included(client, alice, bob, staff, own_card):
    deck = own_card.deck
    assert deck in visible_decks(alice) and deck not in visible_decks(bob)
    assert deck not in visible_decks(staff)
    for other in (bob, staff):
        login(client, other)
        for url in (
            reverse("mine:deck", args=[deck.slug]),
            reverse("mine:card", args=[own_card.pk]),
            reverse("study:review-deck", args=[deck.slug]),
            reverse("study:browse-card", args=[own_card.pk]),
            reverse("decks:deck", args=[deck.slug]),
            reverse("mine:export", args=[deck.slug, "csv"]),
        ):
            assert client.get(url).status_code == 404, url
        assert "ring buffer" not in client.get(reverse("study:browse") + "?q=ring").content.decode()
        assert own_card.pk not in {i.card.pk for i in queue.queue(other).items}
        # nor through the author pages, for staff either
        assert client.get(reverse("authoring:card", args=[own_card.pk])).status_code in (403, 404)
    # nor in the API
    login(client, bob)
    assert deck.slug not in client.get("/api/decks/").content.decode()


def test_a_private_deck_is_never_published(alice, own):
    with pytest.raises(ServiceError) as exc:
        services.deck_update(deck=own, is_published=True)
    assert exc.value.field == "is_published"
    own.refresh_from_db()
    assert not own.is_published


def test_deleting_a_card_retires_it_and_keeps_its_history(client, alice, own_card):
    review_record(user=alice, card=own_card, grade=4)
    login(client, alice)
    response = client.post(reverse("mine:card-retire", args=[own_card.pk]))
    assert response.status_code == 302
    card = Card.all_objects.get(pk=own_card.pk)
    assert card.retired_at is not None and CardState.objects.filter(card=card).exists()
    assert own_card.pk not in {i.card.pk for i in queue.queue(alice).items}
    assert client.get(reverse("mine:card", args=[own_card.pk])).status_code == 404


def test_past_the_card_quota_the_form_says_so_and_nothing_is_written(client, alice, own, settings):
    settings.OWN_CARDS_MAX = 2
    login(client, alice)
    url = reverse("mine:card-new", args=[own.slug])
    form = {"kind": "reverse", "front": "IMPALA", "back": "An actor-learner design"}
    assert client.post(url, form).status_code == 302  # a reversed note: two cards
    response = client.post(url, {"kind": "basic", "front": "One more", "back": "No room"})
    assert response.status_code == 400
    assert "may hold 2 cards; this would make 3" in response.content.decode()
    assert "One more" in response.content.decode()  # what was typed is still there
    assert own.cards.count() == 2


def test_an_edit_from_the_review_page_returns_to_the_same_card(client, alice, own_card):
    login(client, alice)
    back = reverse("study:review-deck", args=[own_card.deck.slug])
    edit = reverse("mine:review-edit", args=[own_card.pk]) + f"?back_url={back}"
    response = client.get(edit, follow=True, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert 'id="card-editor"' in html and "<html" not in html  # the editor alone, in place
    assert 'name="back_url"' in html and "What is a ring buffer?" in html
    response = client.post(
        reverse("mine:card", args=[own_card.pk]),
        {"back_url": back, "section": "cards", "slug": "ring-buffer", "kind": "basic",
         "front": "What is a ring buffer?", "back": "A fixed-size FIFO overwriting its oldest.",
         "why": "", "card_source": "", "tags": ""},
        headers={"HX-Request": "true"}, follow=True,
    )  # fmt: skip
    html = response.content.decode()
    assert f'data-card="{own_card.pk}"' in html and "Saved. Here is the card" in html
    assert "overwriting its oldest" in html
    own_card.refresh_from_db()
    assert own_card.back == "A fixed-size FIFO overwriting its oldest."


def test_a_shipped_card_gets_suggest_an_edit_which_its_author_accepts(
    client, alice, bob, dave, ray_task, django_capture_on_commit_callbacks
):
    review_record(user=alice, card=ray_task, grade=5)
    before = CardState.objects.get(user=alice, card=ray_task)
    login(client, bob)
    back = reverse("study:review")
    response = client.get(
        reverse("mine:review-edit", args=[ray_task.pk]) + f"?back_url={back}",
        headers={"HX-Request": "true"},
    )
    assert "Suggest an edit" in response.content.decode()
    url = reverse("mine:suggest", args=[ray_task.pk])
    form = {"back_url": back, "front": ray_task.front, "back": "A stateless remote call.",
            "why": "", "note": "shorter"}  # fmt: skip
    response = client.post(url, form, headers={"HX-Request": "true"}, follow=True)
    assert "your suggestion went to the deck" in response.content.decode()
    client.post(url, {**form, "note": "shorter still"})  # twice: one suggestion, updated
    suggestion = EditSuggestion.objects.get()
    assert suggestion.note == "shorter still" and suggestion.status == "open"

    login(client, dave)
    page = client.get(reverse("authoring:suggestions")).content.decode()
    assert "shorter still" in page and "<del>function </del>" in page
    decide = reverse("authoring:suggestion-decide", args=[suggestion.pk])
    with django_capture_on_commit_callbacks(execute=True):
        client.post(decide, {"decision": "accept", "reply": "Thanks!"})
    ray_task.refresh_from_db()
    assert ray_task.back == "A stateless remote call."
    revision = ray_task.revisions.order_by("-number").first()
    assert revision.source == "suggestion" and "suggested by bob" in revision.note
    after = CardState.objects.get(user=alice, card=ray_task)
    assert after.due_at == before.due_at  # a text edit keeps every learner's schedule
    # a second accept (another tab) is refused and changes nothing
    response = client.post(decide, {"decision": "accept"}, follow=True)
    assert "already decided" in response.content.decode()
    assert ray_task.revisions.filter(source="suggestion").count() == 1

    login(client, bob)  # told on the next page, once
    assert "was accepted" in client.get(reverse("study:index")).content.decode()
    assert "was accepted" not in client.get(reverse("study:index")).content.decode()
    assert client.get(reverse("mine:index")).content.decode().count("Accepted") >= 1


def test_a_rejected_suggestion_is_told_too(
    client, bob, dave, ray_task, django_capture_on_commit_callbacks
):
    suggestion = services.suggestion_file(user=bob, card=ray_task, front=ray_task.front,
                                          back=ray_task.back, note="typo?")  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        services.suggestion_reject(suggestion=suggestion, by=dave, reply="It reads right.")
    login(client, bob)
    html = client.get(reverse("mine:index")).content.decode()
    assert "was not taken" in html and "It reads right." in html
    assert cache.get(services.news_key(bob.pk)) is None


def test_a_suggestion_that_changes_nothing_and_says_nothing_is_refused(bob, ray_task):
    with pytest.raises(ServiceError) as exc:
        services.suggestion_file(user=bob, card=ray_task, front=ray_task.front,
                                 back=ray_task.back)  # fmt: skip
    assert exc.value.field == "note"
    assert not EditSuggestion.objects.exists()


# Images -----------------------------------------------------------------------------------------


def upload(client, deck, name, data, content_type="image/png"):
    return client.post(
        reverse("mine:media-upload", args=[deck.slug]),
        {"image": SimpleUploadedFile(name, data, content_type)},
    )


def test_an_uploaded_image_is_served_only_to_the_owner_as_an_image(client, alice, bob, own_card):
    login(client, alice)
    response = upload(client, own_card.deck, "../../ring.png", png())
    assert response.status_code == 200, response.content
    media = Media.objects.get()
    assert media.name == "ring.png" and media.file.name.startswith(f"media/{own_card.deck_id}/")
    assert "![](&lt;media:ring.png&gt;)" in response.content.decode()
    services.card_update(card=own_card, author=alice, back="See ![the ring](<media:ring.png>)")
    own_card.refresh_from_db()
    url = reverse("decks:media", args=[own_card.deck.slug, "ring.png"])
    assert f'<img src="{url}" alt="the ring">' in own_card.back_html
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in response["Content-Security-Policy"]
    assert response["Cache-Control"].startswith("private")
    assert Image.open(io.BytesIO(b"".join(response.streaming_content))).size == (24, 16)
    # the same picture again is the one image
    assert upload(client, own_card.deck, "again.png", png()).status_code == 200
    assert Media.objects.count() == 1
    login(client, bob)
    assert client.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 404


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("x.svg", b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
         "SVG is not accepted"),
        ("page.png", b"<html><script>alert(1)</script></html>", "not an image that can be read"),
    ],
)  # fmt: skip
def test_a_hostile_upload_is_refused_in_place(client, alice, own, name, data, says):
    login(client, alice)
    response = upload(client, own, name, data)
    assert response.status_code == 400 and says in response.content.decode()
    assert not Media.objects.exists()


def test_an_upload_past_the_size_cap_or_the_storage_quota_is_refused(client, alice, own, settings):
    login(client, alice)
    settings.MEDIA_MAX_BYTES = 200
    response = upload(client, own, "big.png", png(size=(200, 200)) + b"\0" * 500)
    assert response.status_code == 400 and "larger than" in response.content.decode()
    settings.MEDIA_MAX_BYTES = 2**20
    settings.OWN_BYTES_MAX = 10
    response = upload(client, own, "ok.png", png())
    assert response.status_code == 409 and "may take 10" in response.content.decode()
    assert not Media.objects.exists()


def test_an_image_whose_file_is_gone_shows_a_placeholder_not_an_error(client, alice, own):
    login(client, alice)
    upload(client, own, "ring.png", png())
    media = Media.objects.get()
    media.file.storage.delete(media.file.name)
    response = client.get(reverse("decks:media", args=[own.slug, "ring.png"]))
    assert response.status_code == 404 and response["Content-Type"] == "image/png"
    assert Image.open(io.BytesIO(response.content)).size == (160, 90)


def test_an_image_named_before_it_is_uploaded_appears_once_it_is(client, alice, own_card):
    services.card_update(card=own_card, author=alice, back="![](<media:later.png>)")
    own_card.refresh_from_db()
    assert "[image missing: later.png]" in own_card.back_html
    login(client, alice)
    upload(client, own_card.deck, "later.png", png())
    own_card.refresh_from_db()
    assert "<img" in own_card.back_html and "missing" not in own_card.back_html


def test_deleting_the_deck_deletes_its_images(
    client, alice, own, django_capture_on_commit_callbacks
):
    login(client, alice)
    upload(client, own, "ring.png", png())
    key = Media.objects.get().file.name
    storage = Media.objects.get().file.storage
    assert storage.exists(key)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("mine:deck-delete", args=[own.slug]), {"confirm": "on"})
    assert not Deck.objects.filter(pk=own.pk).exists() and not storage.exists(key)


# The browser's bulk edits of one's own cards ------------------------------------------------------


def test_bulk_tag_and_move_touch_only_own_cards(client, alice, own_card, ray_task):
    other = services.own_deck_create(user=alice, title="Later")
    login(client, alice)
    ids = [own_card.pk, ray_task.pk]
    response = client.post(
        reverse("mine:cards-bulk"), {"action": "tag", "cards": ids, "tag": "to-drill"},
        follow=True,
    )  # fmt: skip
    assert (
        "1 card retagged. 1 chosen card of the shipped decks was left" in response.content.decode()
    )
    own_card.refresh_from_db()
    ray_task.refresh_from_db()
    assert own_card.tags == ["to-drill"] and ray_task.tags == []
    assert own_card.revisions.order_by("-number").first().data["tags"] == ["to-drill"]
    review_record(user=alice, card=own_card, grade=5)
    client.post(reverse("mine:cards-bulk"), {"action": "move", "cards": ids, "deck": other.slug})
    own_card.refresh_from_db()
    assert own_card.deck == other and own_card.section.deck == other
    assert CardState.objects.get(user=alice, card=own_card).deck == other
    assert ray_task.deck.slug == "ray-basics"


def test_moving_an_unseen_card_keeps_it_new_in_the_target_deck(alice, own_card):
    target = services.own_deck_create(user=alice, title="Later")
    later = services.card_create(deck=target, author=alice, section=target.sections.get(),
                                 slug="later", front="Later?", back="Yes")  # fmt: skip
    review_record(user=alice, card=later, grade=5)  # the target's cursor passes `later`
    services.own_cards_move(user=alice, card_ids=[own_card.pk], deck=target)
    assert own_card.pk in {i.card.pk for i in queue.queue(alice, target).items}


def test_the_page_names_the_usage(client, alice, own_card):
    login(client, alice)
    html = client.get(reverse("mine:index")).content.decode()
    assert re.search(r"1 of 5000 cards", html) and "Mock interview" in html


def test_a_team_sees_how_many_own_cards_a_member_has_never_which(
    client, alice, bob, own_card, small_deck
):
    from apps.teams import services as teams
    from apps.teams.models import Membership

    team = teams.team_create(user=bob, name="Cohort", deck=small_deck)
    Membership.objects.create(team=team, user=alice)
    login(client, bob)
    body = client.get(f"/api/teams/{team.slug}/progress/").content.decode()
    members = {m["username"]: m for m in json.loads(body)["members"]}
    assert members["alice"]["own_cards"] == 1 and members["bob"]["own_cards"] == 0
    page = client.get(reverse("teams:dashboard", args=[team.slug])).content.decode()
    for text in (body, page):
        assert "ring buffer" not in text and own_card.deck.title not in text


def test_her_data_download_holds_her_own_cards_and_suggestions_and_nobody_elses(
    client, alice, bob, own_card, ray_task
):
    services.suggestion_file(user=alice, card=ray_task, front=ray_task.front, back="Shorter.")
    login(client, alice)
    doc = json.loads(b"".join(client.get(reverse("accounts:export_json")).streaming_content))
    assert [c["front"] for c in doc["own_cards"]] == ["What is a ring buffer?"]
    assert doc["edit_suggestions"][0]["back"] == "Shorter."
    login(client, bob)
    doc = json.loads(b"".join(client.get(reverse("accounts:export_json")).streaming_content))
    assert doc["own_cards"] == [] and doc["edit_suggestions"] == []


@pytest.mark.parametrize("action", ["tag", "move"])
def test_bulk_tag_and_move_cost_the_same_queries_for_3_cards_as_for_27(alice, own, action):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    target = services.own_deck_create(user=alice, title="Target")
    cards = [
        services.card_create(
            deck=own,
            author=alice,
            section=own.sections.get(),
            slug=f"c-{i}",
            front=f"Card {i}?",
            back="b",
        )  # fmt: skip
        for i in range(33)
    ]
    counts = []
    for chosen in (cards[:3], cards[3:30]):  # both leave cards behind to renumber
        ids = [c.pk for c in chosen]
        with CaptureQueriesContext(connection) as ctx:
            if action == "tag":
                services.own_cards_tag(user=alice, card_ids=ids, add="drill")
            else:
                services.own_cards_move(user=alice, card_ids=ids, deck=target)
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1], counts
