"""The site works in a real Chromium under its Content Security Policy with zero violations:
keyboard review with htmx swaps, a quiz checkpoint, a demo run page polling, the stats charts,
the authoring delete confirmation, the API docs and the admin."""

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.decks.models import Card
from apps.demos.models import DemoPoint, DemoRun
from apps.quizzes.models import Question

pytestmark = pytest.mark.django_db(transaction=True)

WATCH = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.cspViolation(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} `
                      + `at ${e.sourceFile || document.location.pathname}:${e.lineNumber}`);
});
"""


@pytest.fixture
def violations(page):
    """Every CSP violation the browser reports on any page of this test, by event and console."""
    seen = []
    page.expose_function("cspViolation", lambda text: seen.append(text))
    page.add_init_script(WATCH)
    page.on(
        "console",
        lambda msg: seen.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    return seen


def core_check_deck(user):
    from apps.decks.models import Deck

    return Deck.objects.get(slug="ray-basics")


def log_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"pw-{username}-123")
    with page.expect_navigation():
        page.get_by_role("button", name="Log in").click()


def test_a_learners_pages_work_under_the_policy(page, violations, alice, core_check):
    log_in(page, "alice")
    assert "script-src 'self'" in page.request.get("/").headers["content-security-policy"]

    # review by keyboard: the grade is an htmx POST whose answer is swapped in
    page.goto("/study/review/ray-basics/")
    page.keyboard.press("Space")
    page.keyboard.press("3")
    page.locator("#review-front", has_text="What is a Ray actor?").wait_for()
    expect(page.locator("#review-card")).to_be_focused()

    # a checkpoint on a lesson page is checked in place by htmx
    page.goto("/decks/ray-basics/ray-core/")
    match = Question.objects.get(slug="core-match")
    for pair in match.pairs.all():
        page.locator(f'select[name="q-{match.key}-{pair.left_key}"]').select_option(pair.right_key)
    page.locator("#quiz-checkpoint-core").get_by_role("button", name="Check").click()
    page.locator(f"#feedback-{match.key}").get_by_text("Right", exact=True).wait_for()

    # a demo run page polls every second and draws what the worker stored
    page.goto("/demos/tasks-vs-actors/")
    page.get_by_label("Items to process").fill("2")
    with page.expect_navigation(url="**/demos/runs/**"):
        page.get_by_role("button", name="Run on Ray").click()
    run = DemoRun.objects.get(user=alice)
    DemoRun.objects.filter(pk=run.pk).update(status="running", started_at=timezone.now())
    DemoPoint.objects.create(run=run, seq=1, data={"series": "tasks", "x": 1, "y": 0.1})
    DemoRun.objects.filter(pk=run.pk).update(last_seq=1, progress=0.5)
    page.locator("#run-live[data-seq='1']").wait_for()

    # the stats page: heatmap colours and mastery bars without a style attribute
    page.goto("/study/stats/")
    cell = page.locator("svg.heatmap rect").first
    assert cell.evaluate("el => getComputedStyle(el).fill") not in ("", "none", "rgb(0, 0, 0)")
    bar = page.locator("svg.mastery-bar").first
    assert bar.bounding_box()["width"] > 50

    # a team dashboard (heatmap classes, confirm forms) and its manage page
    from apps.teams.services import team_create

    team = team_create(user=alice, name="Ray cohort", deck=core_check_deck(alice))
    page.goto(f"/teams/{team.slug}/")
    page.locator("table.heatmap").wait_for()
    page.goto(f"/teams/{team.slug}/manage/")
    page.get_by_role("heading", level=1).wait_for()

    # cram's section picker submits on change (it used to be an onchange attribute)
    page.goto("/study/cram/ray-basics/")
    with page.expect_navigation(url="**section=rllib**"):
        page.get_by_label("Section").select_option("rllib")

    assert violations == []


def test_authoring_confirm_api_docs_and_admin_work_under_the_policy(
    page, violations, staff, small_deck
):
    log_in(page, "staff")
    card = Card.objects.get(slug="env-runner")
    page.goto(f"/author/cards/{card.pk}/")

    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    # confirm() blocks the page until the handler answers, and a click waits for a navigation it
    # starts: once the click returns, the question was asked and a sent form would have landed
    page.get_by_role("button", name="Delete card").click()
    assert asked == ["Delete this card and every learner's progress on it?"]
    assert page.url.endswith(f"/author/cards/{card.pk}/")
    assert Card.objects.filter(pk=card.pk).exists()  # dismissed: nothing sent

    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        page.get_by_role("button", name="Delete card").click()
    assert not Card.objects.filter(pk=card.pk).exists()

    page.goto("/api/docs/")
    page.locator("#swagger-ui .info .title", has_text="RayDeck API").wait_for()
    page.locator("#swagger-ui .opblock").first.wait_for()

    page.goto("/admin/")
    page.get_by_role("heading", name="Site administration").wait_for()

    assert violations == []
