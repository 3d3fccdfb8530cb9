"""A candidate from Anki brings decks as .apkg: staff imports the app's own export and a
package made with genanki (Basic, reversed, Cloze), finds a card by a word with the keyboard,
opens it, suspends it, and sees it leave the review queue."""

import re

import pytest
from playwright.sync_api import expect

from apps.authoring.formats import export_deck
from apps.decks.models import Deck
from apps.study.models import CardState
from tests.authoring.test_apkg import genanki_package

pytestmark = pytest.mark.django_db(transaction=True)


def import_package(page, path, deck_slug=""):
    page.goto("/author/import/")
    page.set_input_files("#id_file", str(path))
    if deck_slug:
        page.get_by_label("Deck slug").fill(deck_slug)
    page.get_by_role("button", name="Preview the import").click()
    expect(page.get_by_role("heading", name="Preview of")).to_be_visible()
    page.get_by_role("button", name="Import these cards").click()
    expect(page.locator(".message-success")).to_contain_text("Imported")


def test_import_search_open_suspend_and_the_card_leaves_the_queue(
    page, small_deck, staff, tmp_path
):
    own = tmp_path / "ray-basics.apkg"
    own.write_bytes(export_deck(small_deck, "apkg"))
    stock = tmp_path / "stock.apkg"
    stock.write_bytes(genanki_package(tmp_path))

    page.goto("/accounts/login/?next=/author/import/")
    page.get_by_label("Username").fill("staff")
    page.get_by_label("Password").fill("pw-staff-123")
    page.get_by_role("button", name="Log in").click()

    import_package(page, own, "ray-copy")
    assert Deck.objects.get(slug="ray-copy").cards.count() == 5
    page.goto("/author/import/")
    page.set_input_files("#id_file", str(stock))
    page.get_by_role("button", name="Preview the import").click()
    expect(page.locator("#import-notes")).to_contain_text("image left out: learner.png")
    page.get_by_role("button", name="Import these cards").click()
    expect(page.locator(".message-success")).to_contain_text("Imported")

    # An import makes a draft deck; the author publishes it (their deck page does that) so
    # learners get its cards as new cards.
    Deck.objects.filter(slug="distributed-rl").update(is_published=True)
    page.goto("/study/review/distributed-rl/")
    # six cards of four notes: a note introduces one new card a day (its siblings are buried)
    expect(page.locator(".review-counts")).to_contain_text("4 new")

    page.goto("/study/browse/")
    page.keyboard.press("/")
    expect(page.locator("#id_q")).to_be_focused()
    page.keyboard.type("spillback")
    # A pause in the typing on a busy machine sends a search for a prefix first, which may find
    # the same 1 card; its results would then be swapped out under the focus below. The URL
    # says the search for the whole word has answered (htmx pushes it with its results).
    expect(page).to_have_url(re.compile(r"[?&]q=spillback(&|$)"))
    expect(page.locator("#results-count")).to_have_text("1 card")
    page.locator("#id_q").blur()
    page.keyboard.press("j")
    expect(page.locator(".browse-link").first).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#card-front")).to_have_text("What does spillback mean?")
    expect(page.locator("#card-status")).to_contain_text("New")
    page.get_by_role("button", name="Suspend").click()
    expect(page.locator("#card-status")).to_contain_text("It is suspended")
    expect(page.get_by_role("button", name="Unsuspend")).to_be_visible()
    assert CardState.objects.get(user=staff, card__front="What does spillback mean?").suspended
    page.get_by_role("link", name="Back to the search").click()
    expect(page.locator("#id_q")).to_have_value("spillback")

    page.goto("/study/review/distributed-rl/")
    expect(page.locator(".review-counts")).to_contain_text("3 new")
    expect(page.locator("#review-front")).not_to_have_text("What does spillback mean?")

    page.goto("/study/browse/?state=suspended")
    expect(page.locator("#results-count")).to_have_text("1 card")
