"""Alice writes GAE without the done masks in the editor, sees the failing hidden test and its
message, follows the link to the card it practises, fixes the code and passes: the exercise is
graded in the real sandbox by the worker's own code, run beside the live server."""

import threading
from pathlib import Path

import pytest
import yaml
from django.db import OperationalError, close_old_connections, connection
from playwright.sync_api import expect

from apps.exercises import worker
from apps.exercises.models import Submission
from tests.exercises.conftest import needs_bwrap

pytestmark = [pytest.mark.django_db(transaction=True), needs_bwrap]
FILE = Path(__file__).resolve().parents[2] / "fixtures" / "exercises" / "distributed-rl-on-ray.yaml"


def gae_codes() -> tuple[str, str]:
    doc = yaml.safe_load(FILE.read_text())
    gae = next(e for e in doc["exercises"] if e["slug"] == "gae-advantages")
    return gae["wrong"][0]["code"], gae["reference"]


@pytest.fixture
def exercises_worker():
    """The exercises worker's loop in a thread: it claims what the page queued and runs it in
    the sandbox (the Celery task is a thin wrapper over this same call)."""
    stop = threading.Event()

    def serve():
        try:
            while not stop.is_set():
                close_old_connections()
                try:
                    queued = Submission.objects.filter(status="queued").values_list("pk", flat=True)
                    for pk in queued:
                        worker.submission_run(submission_id=pk)
                except OperationalError:
                    # SQLite's "database table is locked" while the live server writes: a real
                    # worker's task is delivered again (acks_late); this loop tries again.
                    connection.close()
                stop.wait(0.05)
        finally:
            connection.close()

    worker.heartbeat("exercises@e2e")  # what a worker's main process says every few seconds
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join(10)


def replace_code(page, code: str) -> None:
    """Select all in the editor and paste the new code over it, as a person pastes (typing it
    would auto-indent every line twice)."""
    editor = page.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    editor.evaluate(
        """(el, text) => {
            const data = new DataTransfer();
            data.setData("text/plain", text);
            el.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true}));
        }""",
        code,
    )
    expect(page.locator("#code")).to_have_value(code)  # the form posts what the editor holds


def test_a_wrong_gae_fails_with_its_message_links_its_card_then_the_fix_passes(
    page, alice, seeded, exercises_worker, settings
):
    settings.EXERCISES_CPU_S, settings.EXERCISES_WALL_S = 5, 10  # the shipped tests' own limits
    wrong, right = gae_codes()
    violations = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security" in m.text else 0)
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw-alice-123")
    with page.expect_navigation():
        page.get_by_role("button", name="Log in").click()

    page.goto("/exercises/gae-advantages/")
    expect(page.locator(".cm-editor")).to_be_visible()  # CodeMirror took over the textarea
    replace_code(page, wrong)
    page.keyboard.press("Control+Shift+Enter")  # Submit, from the keyboard
    result = page.locator("#result")
    expect(result.get_by_text("Failed")).to_be_visible()
    failing = result.locator(".test-fail", has_text="test_done_masks_stop_the_sum")
    expect(failing.locator(".test-message")).to_contain_text("advantages[")
    expect(result).to_contain_text("Scheduled as Again")

    with page.expect_navigation():
        result.locator("#result-cards a", has_text="GAE").first.click()
    assert "#card-gae-" in page.url
    expect(page.locator("h1")).to_contain_text("PPO, GAE, V-trace")
    page.go_back()

    expect(page.locator(".cm-editor")).to_be_visible()
    replace_code(page, right)
    page.get_by_role("button", name="Submit").click()
    expect(result.get_by_text("Passed")).to_be_visible()
    expect(result).to_contain_text("Scheduled as Hard")  # a pass after a failure
    expect(page.locator("#graded")).to_be_visible()
    assert Submission.objects.filter(user=alice).count() == 2
    assert not violations, violations
