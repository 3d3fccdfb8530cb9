"""alice reviews a cloze note's two cards in a real Chromium: the prompt shows the blank, the
answer fills it in, and the source is under it."""

import pytest
from playwright.sync_api import expect

from apps.decks.content import deck_apply, parse_deck
from apps.study.models import ReviewLog
from tests.e2e.test_review import log_in

pytestmark = pytest.mark.django_db(transaction=True)

SOURCE = "Ray 2.40 docs: Ray Core > Actors"
DECK = {
    "slug": "cloze-deck",
    "title": "Cloze deck",
    "sections": [
        {
            "slug": "core",
            "title": "Core",
            "cards": [
                {
                    "slug": "actor-vs-task",
                    "kind": "cloze",
                    "front": "An actor is a {{c1::stateful}} worker; a task is"
                    " {{c2::stateless::state?}}.",
                    "back": "Only an actor keeps state between calls.",
                    "source": SOURCE,
                }
            ],
        }
    ],
}


@pytest.fixture
def cloze_deck(db):
    deck_apply(parse_deck(DECK, "cloze.yaml"))


def test_reviewing_a_cloze_card_blanks_then_fills_the_deletion(page, alice, cloze_deck):
    log_in(page)
    page.goto("/study/review/cloze-deck/")
    front = page.locator("#review-front")
    expect(front).to_contain_text("An actor is a [...] worker; a task is stateless.")
    expect(front.locator(".cloze-blank")).to_have_text("[...]")
    page.screenshot(path="/tmp/cloze-review-prompt.png")

    page.keyboard.press("Space")
    back = page.locator("#review-back")
    expect(back).to_be_visible()
    expect(front).to_be_hidden()  # the answer shows the text once, filled in
    expect(back.locator(".cloze")).to_have_text("stateful")
    expect(back).to_contain_text("Only an actor keeps state between calls.")
    expect(back.locator(".card-source")).to_have_text(f"Source: {SOURCE}")
    page.screenshot(path="/tmp/cloze-review-answer.png")

    page.keyboard.press("3")  # Good = 4
    # deletion 2 would give deletion 1's answer away: it is buried until tomorrow
    expect(page.get_by_text("1 buried")).to_be_visible()
    expect(page.locator("#review-front")).to_have_count(0)
    assert list(ReviewLog.objects.filter(user=alice).values_list("card__slug", flat=True)) == [
        "actor-vs-task-c1"
    ]


def test_a_cloze_card_on_a_phone(phone_page, alice, cloze_deck):
    log_in(phone_page)
    phone_page.goto("/study/review/cloze-deck/")
    phone_page.locator("#reveal").tap()
    expect(phone_page.locator("#review-back .cloze")).to_have_text("stateful")
    phone_page.screenshot(path="/tmp/cloze-review-phone.png")
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390
