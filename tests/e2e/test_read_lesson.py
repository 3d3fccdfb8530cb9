"""A newcomer signs up, opens the shipped deck and reads a section, in a real Chromium."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_sign_up_open_the_deck_and_read_a_section(page, seeded):
    page.goto("/")
    page.get_by_role("link", name="Sign up").first.click()
    page.get_by_label("Username").fill("newcomer")
    page.get_by_label("E-mail").fill("newcomer@example.com")
    page.get_by_label("Password", exact=True).fill("a-long-pass-phrase")
    page.get_by_label("Password confirmation").fill("a-long-pass-phrase")
    page.get_by_role("button", name="Sign up").click()
    # the click returns once the next page starts loading: wait for its text to be there
    expect(page.get_by_text("Welcome, newcomer")).to_be_visible()

    page.get_by_role("link", name="Distributed RL on Ray", exact=True).click()
    page.get_by_role("heading", name="What you will be able to explain").wait_for()
    page.locator(".section-list a").first.click()
    page.locator(".eyebrow", has_text="Section 01").wait_for()

    first_card = page.locator(".flashcard").first
    back = first_card.locator(".card-back")
    expect(back).to_be_hidden()
    first_card.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(back).to_be_visible()

    page.locator("a[rel=next]").click()
    page.locator(".eyebrow", has_text="Section 02").wait_for()


def test_the_section_page_fits_a_phone(phone_page, seeded):
    phone_page.goto("/decks/distributed-rl-on-ray/")
    phone_page.locator(".section-list a").first.click()
    # measure the section page once it has loaded (with its CSS), not the deck page or half of it
    phone_page.locator(".eyebrow", has_text="Section 01").wait_for()
    phone_page.wait_for_load_state("load")
    width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "the section page scrolls sideways on a phone"
