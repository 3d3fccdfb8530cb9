"""In a real Chromium: a grade pressed while the database is unreachable is not lost. The page
reviews from its own queue (issue 32), so the next card comes at once; the grade waits on the
device, the banner gives the server's 503 sentence, and once the database is back the grade is
sent again and lands exactly once."""

import pytest
from playwright.sync_api import expect

from apps.study.models import ReviewLog
from config.middleware import MESSAGE
from tests.e2e.test_offline_review import ready
from tests.failure.conftest import refuse_connections

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
RETRY_S = 40  # the page retries on a timer (review-sync.js RETRY_MS, 15 s) and when it is back


def test_a_grade_pressed_during_an_outage_waits_on_the_device_and_lands_once(
    postgresql,
    page,
    alice,
    small_deck,
):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw-alice-123")
    page.get_by_role("button", name="Log in").click()
    page.goto("/study/review/ray-basics/")
    ready(page)
    page.keyboard.press("Space")

    refuse_connections(False)
    try:
        page.keyboard.press("3")  # Good
        page.locator("#review-front", has_text="What is a Ray actor?").wait_for()
        banner = page.locator("#offline-banner")
        expect(banner).to_contain_text("1 review waiting")
        expect(banner).to_contain_text(MESSAGE.split(",")[0])
        assert not ReviewLog.objects.filter(user=alice).exists()
    finally:
        refuse_connections(True)

    expect(page.locator(".review-page")).to_have_attribute(
        "data-waiting", "0", timeout=RETRY_S * 1000
    )
    expect(page.locator("#offline-banner")).to_be_hidden()
    log = ReviewLog.objects.get(user=alice)
    assert (log.card.slug, log.grade) == ("ray-task", 4)
