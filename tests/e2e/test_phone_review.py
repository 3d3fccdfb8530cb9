"""alice reviews on a phone (390x844, touch) and on a laptop (1280x800): the grades sit inside the
screen after every reveal, a tap shows the answer, the header folds into a menu, the hints speak
of taps on a touch screen and of keys on a laptop, each button says what its grade does, and the
page follows a dark colour scheme."""

import re

import pytest
from playwright.sync_api import expect

from apps.study.models import ReviewLog
from tests.e2e.test_review import log_in, sent

pytestmark = pytest.mark.django_db(transaction=True)
# What the Good button shows comes first in its name (WCAG 2.5.3), then its grade and key.
GOOD_NAME = re.compile(r"^Good next in 1d ease ±0 ?, grade 4 \(key 3\)$")

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}


def inside_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    view = page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["x"] >= 0
        and box["y"] + box["height"] <= view["height"]
        and box["x"] + box["width"] <= view["width"]
    )


def test_three_cards_by_thumb_on_a_phone(phone_page, alice, small_deck):
    page = phone_page
    log_in(page)
    page.goto("/study/review/ray-basics/")

    # the header is one row: the brand and a Menu button that folds the links out
    assert page.locator(".site-header").bounding_box()["height"] < 80
    study_link = page.locator("#site-menu").get_by_role("link", name="Study")
    expect(study_link).to_be_hidden()
    page.get_by_role("button", name="Menu").tap()
    expect(study_link).to_be_visible()
    expect(page.get_by_role("button", name="Menu")).to_have_attribute("aria-expanded", "true")
    page.get_by_role("button", name="Menu").tap()
    expect(study_link).to_be_hidden()

    # touch hints, no key hints
    expect(page.locator("p.touch-hint")).to_be_visible()
    expect(page.locator(".keys")).to_be_hidden()
    expect(page.locator("#reveal kbd")).to_be_hidden()
    assert inside_viewport(page, page.locator("#reveal"))
    page.screenshot(path="/tmp/ux-phone-review-front.png")

    fronts = ["What is a Ray task?", "What is a Ray actor?", "What does the object store hold?"]
    for n, text in enumerate(fronts, start=1):
        expect(page.locator("#review-front")).to_contain_text(text)
        expect(page.locator("#review-back")).to_be_hidden()
        page.locator("#review-front").tap()  # a tap on the card shows the answer
        expect(page.locator("#review-back")).to_be_visible()
        buttons = page.locator(".grade-buttons button")
        expect(buttons).to_have_count(4)
        for i in range(4):
            assert inside_viewport(page, buttons.nth(i)), f"grade {i} off screen on card {n}"
            box = buttons.nth(i).bounding_box()
            assert box["height"] >= 44 and box["width"] >= 44
        if n == 1:
            # a new card: Good and Easy both give one day; the ease change tells them apart
            expect(buttons.nth(2)).to_contain_text("1d")
            expect(buttons.nth(2)).to_contain_text("ease ±0")
            expect(buttons.nth(3)).to_contain_text("1d")
            expect(buttons.nth(3)).to_contain_text("ease +0.10")
            expect(buttons.nth(1)).to_contain_text("ease −0.14")
            page.screenshot(path="/tmp/ux-phone-review-answer.png")
        page.locator(".grade-buttons button", has_text="Good").tap()
        if n < 3:
            expect(page.locator("#review-status")).to_contain_text(f"Card {n + 1} of")
    expect(page.locator("#review-front")).to_contain_text("What does an RLlib Algorithm do?")
    sent(page)  # the grades go in the background (issue 32)
    assert ReviewLog.objects.filter(user=alice).count() == 3
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_tap_right_after_the_next_card_arrives_stays_in_the_page(phone_page, alice, small_deck):
    """On a slow phone htmx settles a swap late, and wires the new buttons only then: a quick
    thumb on Good before that must still be an htmx grade, not a page reload that restarts the
    session's count. (A long settle delay stands in for the slow phone.)"""
    page = phone_page
    log_in(page)
    page.goto("/study/review/ray-basics/")
    page.evaluate("htmx.config.defaultSettleDelay = 5000; window.samePage = true")
    for text in ["What is a Ray task?", "What is a Ray actor?"]:
        expect(page.locator("#review-front")).to_contain_text(text)
        page.locator("#review-front").tap()
        page.locator(".grade-buttons button", has_text="Good").tap()
    expect(page.locator("#review-front")).to_contain_text("What does the object store hold?")
    assert page.evaluate("window.samePage === true"), "a grade reloaded the page"
    sent(page)  # the grades go in the background (issue 32)
    assert ReviewLog.objects.filter(user=alice).count() == 2


def test_the_laptop_shows_key_hints_and_the_whole_header(page, alice, small_deck):
    page.set_viewport_size(LAPTOP)
    log_in(page)
    page.goto("/study/review/ray-basics/")
    expect(page.get_by_role("button", name="Menu")).to_be_hidden()
    expect(page.locator("#site-menu").get_by_role("link", name="Study")).to_be_visible()
    expect(page.locator(".keys")).to_be_visible()
    expect(page.locator("p.touch-hint")).to_be_hidden()
    page.locator("#review-front").click()  # a click on the card shows the answer too
    expect(page.locator("#review-back")).to_be_visible()
    good = page.get_by_role("button", name=GOOD_NAME)
    expect(good).to_be_visible()
    assert inside_viewport(page, page.locator(".grade-buttons"))
    page.screenshot(path="/tmp/ux-laptop-review-answer.png")
    page.keyboard.press("3")
    expect(page.locator("#review-front")).to_contain_text("What is a Ray actor?")


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_dark_mode_follows_the_system(browser, live_server, alice, small_deck, viewport):
    context = browser.new_context(
        base_url=live_server.url, viewport=viewport, color_scheme="dark",
        has_touch=viewport is PHONE, is_mobile=viewport is PHONE,
    )  # fmt: skip
    context.set_default_timeout(10_000)
    page = context.new_page()
    try:
        log_in(page)
        page.goto("/study/review/ray-basics/")
        page.locator("#reveal").click()
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        card = page.evaluate(
            "getComputedStyle(document.getElementById('review-card')).backgroundColor"
        )
        assert background == "rgb(11, 17, 32)" and card == "rgb(17, 24, 39)"
        page.screenshot(path=f"/tmp/ux-dark-review-{viewport['width']}.png")
    finally:
        context.close()
