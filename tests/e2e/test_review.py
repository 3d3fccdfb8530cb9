"""alice reviews three cards with the keyboard only, undoes one, in a real Chromium."""

import re

import pytest
from playwright.sync_api import expect

from apps.study.models import CardState, ReviewLog

pytestmark = pytest.mark.django_db(transaction=True)
# What the Good button shows comes first in its name (WCAG 2.5.3), then its grade and key.
GOOD_NAME = re.compile(r"^Good next in 1d ease ±0 ?, grade 4 \(key 3\)$")


def log_in(page, username="alice"):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"pw-{username}-123")
    page.get_by_role("button", name="Log in").click()
    # logged in once the home page shows: a goto before the redirect lands would cancel it
    expect(page.get_by_role("heading", name="Decks")).to_be_visible()


def sent(page):
    """Wait until the grades the page took from its own queue have reached the server (they go
    in the background, issue 32): the page says how many are waiting."""
    expect(page.locator(".review-page")).to_have_attribute("data-waiting", "0")


def front(page) -> str:
    return page.locator("#review-front").inner_text()


def test_three_cards_by_keyboard_then_undo(page, alice, small_deck):
    log_in(page)
    page.goto("/study/review/ray-basics/")
    assert "What is a Ray task?" in front(page)

    answer = page.locator("#review-back")
    expect(answer).to_be_hidden()
    page.keyboard.press("Space")
    expect(answer).to_be_visible()
    good = page.get_by_role("button", name=GOOD_NAME)
    expect(good).to_be_visible()
    page.keyboard.press("3")  # Good = 4
    page.locator("#review-front", has_text="What is a Ray actor?").wait_for()
    # focus moves to the new card once htmx has swapped it in (its afterSwap handler), and the
    # live region says which card it is: both waited for, not read at once
    expect(page.locator("#review-card")).to_be_focused()
    page.locator("#review-status", has_text="Card 2 of 5").wait_for(state="attached")

    page.keyboard.press("Space")
    page.keyboard.press("1")  # Again = 1
    page.locator("#review-front", has_text="What does the object store hold?").wait_for()

    page.keyboard.press("Space")
    page.keyboard.press("4")  # Easy = 5
    # the card failed two cards ago is back: again today comes before new cards
    page.locator("#review-front", has_text="What is a Ray actor?").wait_for()
    sent(page)  # the page showed the next card at once; the grades went in the background
    assert ReviewLog.objects.filter(user=alice).count() == 3

    page.keyboard.press("z")
    page.locator(".review-notice", has_text="Undid grade 5").wait_for()
    assert "What does the object store hold?" in front(page)
    assert not CardState.objects.filter(user=alice, card__slug="object-store").exists()
    assert ReviewLog.objects.filter(user=alice, undone_at=None).count() == 2

    grades = dict(CardState.objects.filter(user=alice).values_list("card__slug", "last_grade"))
    assert grades == {"ray-task": 4, "ray-actor": 1}


def test_review_buttons_fit_a_phone_and_take_taps(phone_page, alice, small_deck):
    log_in(phone_page)
    phone_page.goto("/study/review/ray-basics/")
    phone_page.locator("#reveal").tap()
    good = phone_page.locator(".grade-buttons button", has_text="Good")
    box = good.bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44
    good.tap()
    phone_page.locator("#review-front", has_text="What is a Ray actor?").wait_for()
    width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "the review page scrolls sideways on a phone"
