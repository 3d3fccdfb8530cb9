"""alice follows the guided path, on a laptop (1280x800) and on a phone (390x844): the home page
shows each section's progress and the next step; a session that used up today's new cards
offers more of them, a cram and the quiz; a quiz's misses start a review of exactly those cards;
"Learn it from" opens the card it names, highlighted and in view."""

import pytest
from playwright.sync_api import expect

from apps.accounts.models import profile_for
from apps.quizzes.models import Question
from apps.study.models import CardState

pytestmark = pytest.mark.django_db(transaction=True)


def log_in(page):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw-alice-123")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Decks")).to_be_visible()


def press(page, locator):
    """A tap on a phone, a click on a laptop."""
    locator.tap() if page.size == "phone" else locator.click()


def grade_good(page):
    press(page, page.locator("#review-front"))
    press(page, page.locator(".grade-buttons button", has_text="Good"))
    expect(page.locator("#review-back")).to_be_hidden()  # the next card (or the summary) is in


def in_view(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + 20 <= page.viewport_size["height"]


def test_home_shows_the_path_and_its_next_step(person, alice, core_check):
    page = person
    log_in(page)
    next_step = page.locator("#next-step")
    expect(next_step).to_have_text("Read section 01: Ray core")
    expect(page.locator(".path-step").first).to_contain_text("not read")
    press(page, next_step)
    expect(page.get_by_role("heading", name="Ray core", level=1)).to_be_visible()

    page.goto("/")
    expect(next_step).to_have_text("Answer the checkpoint of section 01: Ray core")
    first = page.locator(".path-step").first
    expect(first).to_contain_text("✓ read")
    expect(first).to_contain_text("checkpoint 0/1 right")
    expect(first).to_contain_text("0/3 learned")
    expect(first).to_contain_text("quiz not taken")
    press(page, next_step)
    # The checkpoint is sent by htmx, which wires the page only once its deferred script has
    # run: a Check pressed before that (a tap does not even wait for the page to start loading)
    # posts the form natively, to a page with no #feedback-... to wait for.
    expect(page.get_by_role("heading", name="Ray core", level=1)).to_be_visible()
    page.wait_for_load_state("load")
    match = Question.objects.get(slug="core-match")
    for pair in match.pairs.all():
        page.locator(f'select[name="q-{match.key}-{pair.left_key}"]').select_option(pair.right_key)
    press(page, page.locator("#quiz-checkpoint-core").get_by_role("button", name="Check"))
    expect(page.locator(f"#feedback-{match.key}").get_by_text("Right", exact=True)).to_be_visible()

    page.goto("/")
    expect(first).to_contain_text("checkpoint 1/1 right")
    expect(next_step).to_have_text("Read section 02: RLlib")
    page.screenshot(path=f"/tmp/ux-{page.size}-home-path.png", full_page=True)
    press(page, next_step)
    expect(page.get_by_role("heading", name="RLlib", level=1)).to_be_visible()
    page.goto("/")
    expect(next_step).to_have_text("Learn 5 new cards today")


def test_a_session_that_used_up_todays_new_cards_offers_more_cram_and_the_quiz(
    person, alice, core_check
):
    profile = profile_for(alice)
    profile.new_cards_per_day = 2
    profile.save()
    page = person
    log_in(page)
    page.goto("/study/review/ray-basics/")
    for _ in range(2):
        grade_good(page)
    summary = page.locator("#review-card")
    expect(summary).to_contain_text("3 cards are still unseen")
    expect(summary).not_to_contain_text("done for today")
    expect(page.get_by_role("link", name="Cram Ray basics")).to_be_visible()
    expect(page.get_by_role("link", name="Take the quiz: Ray core knowledge check")).to_be_visible()
    page.screenshot(path=f"/tmp/ux-{page.size}-session-end.png", full_page=True)
    press(page, page.get_by_role("button", name="Learn 3 more new cards today"))
    expect(page.locator("#review-front")).to_contain_text("What does the object store hold?")
    expect(page.locator(".review-counts")).to_contain_text("3 new")


def test_a_quizs_misses_start_a_review_of_exactly_those_cards(person, alice, core_check):
    page = person
    log_in(page)
    # a card outside the quiz, due today: the set's review must leave it alone
    page.goto("/study/review/ray-basics/")
    page.goto("/quizzes/core-check/")
    press(page, page.get_by_role("button", name="Start"))
    press(page, page.get_by_role("button", name="Submit"))  # nothing answered: all missed
    expect(page.locator("#score")).to_have_text("0")
    press(page, page.get_by_role("button", name="Review these (3 cards)"))
    expect(page.locator("#relearn-count")).to_have_text("3 to re-learn")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Re-learn")
    expect(page.locator(".review-counts")).not_to_contain_text("again")
    page.screenshot(path=f"/tmp/ux-{page.size}-relearn.png")
    seen = []
    for left in (2, 1, 0):
        seen.append(page.locator("#review-front").inner_text())
        grade_good(page)
        if left:
            expect(page.locator("#relearn-count")).to_have_text(f"{left} to re-learn")
    expect(page.locator("#review-card")).to_contain_text("Every card of this set is re-learnt")
    assert sorted(seen) == sorted(
        ["What is a Ray task?", "What is a Ray actor?", "What does the object store hold?"]
    )
    # the two cards of RLlib were not part of it: still unseen
    assert not CardState.objects.filter(user=alice, card__section__slug="rllib").exists()


def test_learn_it_from_opens_the_card_highlighted_and_in_view(person, alice, core_check):
    page = person
    log_in(page)
    page.goto("/quizzes/core-check/")
    press(page, page.get_by_role("button", name="Start"))
    press(page, page.get_by_role("button", name="Submit"))
    single = Question.objects.get(slug="actor-single")
    press(
        page, page.locator(f"#review-{single.key}").get_by_role("link", name="What is a Ray actor?")
    )
    page.wait_for_url("**/decks/ray-basics/ray-core/#card-ray-actor")
    card = page.locator("#card-ray-actor")
    expect(card.locator(".card-back")).to_be_visible()  # opened, not just the question
    assert in_view(page, card)
    assert card.evaluate("el => getComputedStyle(el).boxShadow") != "none"  # :target highlight
    page.screenshot(path=f"/tmp/ux-{page.size}-learn-it-from.png")
