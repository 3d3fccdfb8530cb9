"""In a real Chromium: a grade pressed while the database is unreachable shows the 503 sentence
above the grade buttons, which stay (with their client_id); pressed again once the database is
back, the grade lands once and the next card comes."""

import pytest

from apps.study.models import ReviewLog
from config.middleware import MESSAGE
from tests.failure.conftest import refuse_connections

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
# htmx swaps no 4xx/5xx by default: base.html's htmx-config lets a 503 through (responseHandling).


def test_a_grade_pressed_during_an_outage_says_so_and_lands_once_when_pressed_again(
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
    client_id = page.locator(".grade-form input[name=client_id]").input_value()
    page.keyboard.press("Space")

    refuse_connections(False)
    try:
        page.keyboard.press("3")  # Good
        page.locator(".review-notice", has_text=MESSAGE).wait_for()
    finally:
        refuse_connections(True)
    assert "What is a Ray task?" in page.locator("#review-front").inner_text()
    assert page.locator(".grade-form input[name=client_id]").input_value() == client_id

    page.keyboard.press("3")
    page.locator("#review-front", has_text="What is a Ray actor?").wait_for()
    assert ReviewLog.objects.filter(user=alice).count() == 1
    assert str(ReviewLog.objects.get(user=alice).client_id) == client_id
