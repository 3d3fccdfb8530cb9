"""Alice takes a knowledge check with the keyboard alone, misses one question, follows its link
back to the card that teaches it and queues that card for review, in a real Chromium."""

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.quizzes.models import Question
from apps.study.models import CardState
from tests.browser import WAIT_MS

pytestmark = pytest.mark.django_db(transaction=True)


def log_in(page):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw-alice-123")
    with page.expect_navigation():
        page.keyboard.press("Enter")


def press_on(page, locator, key="Space"):
    locator.focus()
    page.keyboard.press(key)


def choose_with_arrows(page, select, wanted_key: str):
    """Pick an option of a closed <select> with the arrow keys, as a keyboard user does."""
    index = select.evaluate(
        "(el, key) => [...el.options].findIndex(o => o.value === key)", wanted_key
    )
    select.focus()
    for _ in range(index):
        page.keyboard.press("ArrowDown")
    assert select.input_value() == wanted_key


def test_take_a_knowledge_check_by_keyboard_miss_one_follow_its_card_and_queue_it(
    page, alice, core_check
):
    log_in(page)
    page.goto("/quizzes/core-check/")
    with page.expect_navigation(url="**/quizzes/attempts/*/"):
        press_on(page, page.get_by_role("button", name="Start"), "Enter")

    single = Question.objects.get(slug="actor-single")
    multi = Question.objects.get(slug="store-multi")
    tf = Question.objects.get(slug="task-tf")
    match = Question.objects.get(slug="core-match-scored")

    # miss the single-choice question: pick a wrong option with Space
    wrong = single.choices.exclude(correct=True).first().key
    press_on(page, page.locator(f'input[name="q-{single.key}"][value="{wrong}"]'))
    # select all that apply: Space on each right box
    for choice in multi.choices.filter(correct=True):
        press_on(page, page.locator(f'input[name="q-{multi.key}"][value="{choice.key}"]'))
    # true/false: a radio pair per statement
    for statement in tf.statements.all():
        value = "true" if statement.answer else "false"
        press_on(page, page.locator(f'input[name="q-{tf.key}-{statement.key}"][value="{value}"]'))
    # matching: one <select> per left item, chosen with the arrow keys
    for pair in match.pairs.all():
        choose_with_arrows(
            page, page.locator(f'select[name="q-{match.key}-{pair.left_key}"]'), pair.right_key
        )
    # Every answer autosaves (one htmx request at a time, the last change queued). "Saved at"
    # shows after the FIRST save already, so it says nothing of the later ones; htmx marks the
    # form with htmx-request until the last queued save has answered: wait for that.
    expect(page.locator("#quiz-form")).not_to_have_class(re.compile(r"\bhtmx-request\b"))
    expect(page.locator("#save-status")).to_contain_text("Saved at")

    with page.expect_navigation(url="**/quizzes/attempts/*/"):
        press_on(page, page.get_by_role("button", name="Submit"), "Enter")
    assert page.locator("#score").inner_text() == "6"

    missed = page.locator(f"#review-{single.key}")
    assert "Missed" in missed.inner_text()
    assert "An actor is a process with state." in missed.inner_text()  # the explanation
    card_link = missed.locator("a", has_text="What is a Ray actor?")
    press_on(page, card_link, "Enter")
    page.wait_for_url("**/decks/ray-basics/ray-core/#card-ray-actor")
    assert page.locator("#card-ray-actor").is_visible()

    page.go_back()
    press_on(page, page.get_by_role("button", name="Review these (1 card)"), "Enter")
    page.get_by_text("1 card queued").wait_for()
    state = CardState.objects.get(user=alice)
    assert state.card.slug == "ray-actor" and state.due_at <= timezone.now()


def test_a_checkpoint_answered_on_a_phone_gives_feedback_in_place(phone_page, core_check):
    phone_page.goto("/decks/ray-basics/ray-core/")
    match = Question.objects.get(slug="core-match")
    for pair in match.pairs.all():
        phone_page.locator(f'select[name="q-{match.key}-{pair.left_key}"]').select_option(
            pair.right_key
        )
    phone_page.locator("#quiz-checkpoint-core").get_by_role("button", name="Check").tap()
    feedback = phone_page.locator(f"#feedback-{match.key}")
    feedback.get_by_text("Right", exact=True).wait_for()
    assert "Tasks are stateless; actors keep state." in feedback.inner_text()
    assert phone_page.url.endswith("/decks/ray-basics/ray-core/")  # no page load: htmx
    width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "the checkpoint scrolls sideways on a phone"


def test_a_save_still_in_flight_when_the_quiz_is_submitted_cannot_cancel_the_submit(
    page, alice, core_check
):
    """The autosave of the last answer may still be on its way when Submit is pressed. Landing
    after the submit, it would find the attempt closed and redirect the page, cancelling the
    submit's own navigation: the page drops it instead (the submit carries every answer)."""
    log_in(page)
    page.goto("/quizzes/core-check/")
    with page.expect_navigation(url="**/quizzes/attempts/*/"):
        page.get_by_role("button", name="Start").click()
    held = {}
    page.route("**/save/", lambda route: held.setdefault("save", route))
    single = Question.objects.get(slug="actor-single")
    right = single.choices.get(correct=True).key
    with page.expect_request("**/save/"):
        page.locator(f'input[name="q-{single.key}"][value="{right}"]').check()

    def hold_the_submit(route):
        if route.request.method == "POST":
            held["submit"] = route
        else:
            route.continue_()

    page.route(re.compile(r"/quizzes/attempts/\d+/$"), hold_the_submit)
    with page.expect_event("requestfailed", lambda request: request.url.endswith("/save/")):
        press_on(page, page.get_by_role("button", name="Submit"), "Enter")
    # the route handler runs while Playwright waits; bounded as every wait (5 s was too short
    # for a machine busy with two suites: the test then failed on held["submit"])
    for _ in range(WAIT_MS // 20):
        if "submit" in held:
            break
        page.wait_for_timeout(20)
    with page.expect_navigation(url="**/quizzes/attempts/*/"):
        held["submit"].continue_()
    assert page.locator("#score").inner_text() != ""
    assert "Submitted" in page.content()
