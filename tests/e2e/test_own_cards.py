"""What Anki users take for granted, in a real Chromium: alice writes cards of her own (with an
image, and one she types the answer of), fixes one from the review page and suggests an edit of
a lesson card, brings a 300-note .apkg with 100 images, and works the card browser with the
keyboard (or taps, on a phone)."""

import io
import json
import re
import zipfile

import pytest
from django.test import Client
from PIL import Image
from playwright.sync_api import expect

from apps.authoring import services
from apps.authoring.models import EditSuggestion
from apps.decks.models import Card, Deck, Media
from apps.study.models import CardState
from apps.study.services import review_record
from tests.authoring.test_apkg_media import picture_package

pytestmark = pytest.mark.django_db(transaction=True)


def sign_in(page, user, live_server) -> None:
    """The session a log-in would give, set on the browser (the log-in page has its own test)."""
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1


def image_shown(locator) -> bool:
    return locator.evaluate("img => img.complete && img.naturalWidth > 0")


def png_file(tmp_path, name="ring.png"):
    path = tmp_path / name
    Image.new("RGB", (120, 60), (40, 120, 200)).save(path)
    return path


def test_my_own_card_with_an_image_and_a_typed_answer(person, alice, live_server, tmp_path):
    """Item 1, 3 and 4: a private deck, a card with an uploaded image shown in the preview and
    the review, the answer typed and compared letter by letter, graded by alice."""
    page = person
    sign_in(page, alice, live_server)
    page.goto("/my/")
    page.get_by_label("New deck: its title").fill("Mock interview")
    page.get_by_role("button", name="Make the deck").click()
    expect(page.get_by_role("heading", name="New card")).to_be_visible()
    front = page.get_by_label("Front (Markdown)")
    front.fill("Which store holds *shared* objects?")
    front.press("End")  # a key, as typing gives: the preview follows keystrokes
    expect(page.get_by_test_id("preview-front").locator("em")).to_have_text("shared")
    back = page.get_by_label("Back (Markdown)")
    back.fill("object store")
    page.get_by_label("Type the answer").check()
    page.set_input_files("#id_image", str(png_file(tmp_path)))
    expect(page.locator("#media-added")).to_contain_text("Added ring.png")
    expect(back).to_have_value(re.compile(r"object store !\[\]\(<media:ring\.png>\)"))
    preview_image = page.get_by_test_id("preview-back").locator("img")
    expect(preview_image).to_be_visible()
    assert image_shown(preview_image)
    no_sideways_scroll(page)
    page.get_by_role("button", name="Create card").click()
    expect(page.locator(".message-success")).to_contain_text("in your review queue")
    deck = Deck.objects.get(owner=alice)
    assert deck.cards.get().type_answer and Media.objects.filter(deck=deck).count() == 1

    page.goto(f"/study/review/{deck.slug}/")
    typed = page.get_by_label("Type the answer")
    expect(typed).to_be_focused()
    typed.fill("objct store")
    typed.press("Enter")
    compare = page.locator("#typed-compare")
    expect(compare).to_contain_text("What you typed, against the answer")
    expect(compare.locator(".type-missed")).to_have_text("e")
    card_image = page.locator("#review-back img")
    expect(card_image).to_be_visible()
    assert image_shown(card_image)
    no_sideways_scroll(page)
    page.get_by_role("button", name=re.compile("^Good")).click()  # grading stays hers
    expect(page.locator("#summary-title")).to_have_text("Session complete")
    assert CardState.objects.get(user=alice).last_grade == 4


def test_edit_from_review_returns_to_the_card_and_a_suggestion_reaches_its_author(
    person, alice, staff, small_deck, live_server
):
    """Item 2: E (a tap on "Edit card" on a phone) on her own card edits it in place and comes
    back to it; on a lesson card, "Suggest an edit", which staff accept, and alice is told on
    her next page."""
    page = person
    phone = page.size == "phone"

    def edit() -> None:
        page.locator("#edit-card").tap() if phone else page.keyboard.press("e")

    deck = services.own_deck_create(user=alice, title="Mine")
    services.card_create(deck=deck, author=alice, section=deck.sections.get(), slug="ring",
                         front="What is a ring bufer?", back="A fixed-size FIFO.")  # fmt: skip
    sign_in(page, alice, live_server)
    page.goto(f"/study/review/{deck.slug}/")
    expect(page.locator("#review-front")).to_contain_text("ring bufer")
    edit()
    front = page.get_by_label("Front (Markdown)")
    expect(front).to_be_visible()
    if not phone:
        expect(front).to_be_focused()
    no_sideways_scroll(page)
    front.fill("What is a ring buffer?")
    page.get_by_role("button", name="Save card").click()
    expect(page.locator(".review-notice")).to_contain_text("Saved. Here is the card")
    expect(page.locator("#review-front")).to_have_text("What is a ring buffer?")
    edit()
    expect(page.get_by_label("Front (Markdown)")).to_be_visible()
    if phone:
        page.locator("#cancel-edit").tap()
    else:
        page.keyboard.press("Escape")
    expect(page.locator("#review-front")).to_have_text("What is a ring buffer?")

    page.goto("/study/review/ray-basics/")
    expect(page.locator("#review-front")).to_contain_text("What is a Ray task?")
    edit()
    expect(page.get_by_role("heading", name=re.compile("Suggest an edit"))).to_be_visible()
    no_sideways_scroll(page)
    page.get_by_label("Back").fill("A stateless remote call.")
    page.get_by_label("What is wrong").fill("shorter")
    page.get_by_role("button", name="Send the suggestion").click()
    expect(page.locator(".review-notice")).to_contain_text("your suggestion went to the deck")
    expect(page.locator("#review-front")).to_contain_text("What is a Ray task?")
    suggestion = EditSuggestion.objects.get(user=alice)

    services.suggestion_accept(suggestion=suggestion, by=staff)  # an author, in authoring
    assert Card.objects.get(slug="ray-task").back == "A stateless remote call."
    page.goto("/study/")
    expect(page.locator(".message-info")).to_contain_text("was accepted")


def test_a_300_note_apkg_with_100_images_comes_in_shows_and_goes_back(
    page, alice, live_server, tmp_path
):
    """Item 3 and "Done when": the package imports (a worker's job, played by this test), its
    images show in the review, and the deck's export holds them again."""
    deck = services.own_deck_create(user=alice, title="Pictures")
    path = tmp_path / "pictures.apkg"
    path.write_bytes(picture_package(tmp_path))
    sign_in(page, alice, live_server)
    page.goto(f"/my/decks/{deck.slug}/import/")
    page.set_input_files("#id_file", str(path))
    page.get_by_role("button", name="Preview the import").click()
    expect(page.get_by_role("heading", name="Preview of pictures.apkg")).to_be_visible()
    job = alice.import_jobs.get()  # too large to read in a request: the worker previews it
    services.import_job_run(job_id=job.pk)
    expect(page.locator("#import-status")).to_contain_text("300")
    page.get_by_role("button", name="Import these cards").click()
    expect(page.get_by_role("heading", name="Import of pictures.apkg")).to_be_visible()
    services.import_job_run(job_id=alice.import_jobs.latest("pk").pk)
    expect(page.get_by_role("link", name="Open the deck")).to_be_visible()
    assert deck.cards.count() == 300 and deck.media.count() == 100

    page.goto(f"/study/review/{deck.slug}/")
    image = page.locator("#review-front img")
    expect(image).to_be_visible()
    assert image_shown(image)
    page.set_viewport_size({"width": 390, "height": 844})
    assert image.bounding_box()["width"] <= 390
    no_sideways_scroll(page)
    response = page.request.get(f"/my/decks/{deck.slug}/export/apkg/")
    package = zipfile.ZipFile(io.BytesIO(response.body()))
    assert len(json.loads(package.read("media"))) == 100


def test_the_browser_as_a_tool(person, alice, small_deck, live_server):
    """Item 5: columns, a sort by a header, cards chosen with the keyboard (or taps on a
    phone) and suspended, rescheduled and forgotten in one go; her own card tagged and moved
    to another of her decks."""
    page = person
    for card in small_deck.cards.order_by("id")[:2]:
        review_record(user=alice, card=card, grade=5)
    mine = services.own_deck_create(user=alice, title="Mine")
    other = services.own_deck_create(user=alice, title="Elsewhere")
    own = services.card_create(
        deck=mine, author=alice, section=mine.sections.get(), slug="ring",
        front="What is a ring buffer?", back="A fixed-size FIFO.",
    )  # fmt: skip
    sign_in(page, alice, live_server)
    page.goto("/study/browse/")
    table = page.locator("#browse-table")
    expect(table.locator("tbody tr")).to_have_count(6)
    if page.size == "phone":  # the rows are cards there: the sort is the form's
        page.get_by_label("Sort by").select_option("lapses")
    else:
        page.get_by_role("link", name="Lapses").click()
        expect(page.locator('th[aria-sort="ascending"]')).to_contain_text("Lapses")
        expect(page.get_by_label("Sort by")).to_have_value("lapses")  # a Search keeps it
    expect(page).to_have_url(re.compile(r"sort=lapses"))
    rows = table.locator("tbody tr")
    # The bulk bar stays on screen while she scrolls down the list to tick rows.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    expect(page.locator("#bulk-count")).to_be_in_viewport()
    expect(page.locator("#bulk-suspend")).to_be_in_viewport()
    if page.size == "phone":
        rows.nth(0).locator("input[name=cards]").tap()
        rows.nth(1).locator("input[name=cards]").tap()
        expect(page.locator("#bulk-count")).to_have_text("2 chosen")
        page.locator("#bulk-suspend").tap()
    else:
        page.locator(".browse-link").first.focus()
        page.keyboard.press("x")
        page.keyboard.press("j")
        page.keyboard.press("x")
        expect(page.locator("#bulk-count")).to_have_text("2 chosen")
        page.keyboard.press("s")
    expect(page.locator("#results .message-success")).to_have_text("2 cards suspended.")
    expect(table.locator(".badge", has_text="suspended")).to_have_count(2)
    assert CardState.objects.filter(user=alice, suspended=True).count() == 2
    no_sideways_scroll(page)

    page.locator("#pick-all").check()
    expect(page.locator("#bulk-count")).to_have_text("6 chosen")
    page.get_by_label("Due in (days)").fill("3")
    page.get_by_role("button", name="Reschedule").click()
    expect(page.locator("#results .message-success")).to_have_text("6 cards due in 3 days.")
    page.on("dialog", lambda dialog: dialog.accept())
    page.locator("#pick-all").check()
    page.get_by_role("button", name=re.compile("^Forget")).click()
    expect(page.locator("#results .message-success")).to_contain_text("6 cards forgotten")
    assert not CardState.objects.filter(user=alice).exists()

    own_box = table.locator(f'input[name=cards][value="{own.pk}"]')
    own_box.tap() if page.size == "phone" else own_box.check()
    page.get_by_label("Tag your cards").fill("buffers")
    page.get_by_role("button", name="Add tag").click()
    expect(page.locator("#results .message-success")).to_have_text("1 card retagged.")
    table.locator(f'input[name=cards][value="{own.pk}"]').check()
    page.get_by_label("Move your cards to").select_option(other.slug)
    page.get_by_role("button", name="Move", exact=True).click()
    expect(page.locator("#results .message-success")).to_have_text("1 card moved to Elsewhere.")
    own.refresh_from_db()
    assert own.deck_id == other.pk and "buffers" in own.tags
