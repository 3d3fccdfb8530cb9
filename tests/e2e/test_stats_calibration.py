"""alice has a long history: her stats page says the worker is scoring it, and once the worker
has, shows its score as of then, over how many reviews, on a laptop and on a phone."""

import pytest
from playwright.sync_api import expect

from apps.interview import fitting
from apps.study.models import MemoryFit
from tests.e2e.test_numbers import log_in
from tests.interview.test_calibration_holdout import _history

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_long_history_is_scored_by_the_worker_and_shown_as_of_then(
    person, alice, small_deck, monkeypatch
):
    monkeypatch.setattr(fitting, "CALIBRATION_INLINE_MAX", 100)  # 400 reviews count as long
    _history(alice, small_deck)
    MemoryFit.objects.create(user=alice, reviews=400)
    page = person
    log_in(page)
    page.goto("/study/stats/")
    section = page.locator("#calibration")
    expect(section).to_contain_text("Being computed: your 400 reviews are scored in the background")
    expect(section.get_by_role("table")).to_have_count(0)

    assert fitting.calibration_refresh_run(user_id=alice.pk)  # the worker's side
    page.reload()
    expect(page.locator("#calibration-as-of")).to_contain_text("over 400 reviews.")
    expect(section).to_contain_text("on your latest 90 reviews")
    expect(section.get_by_role("table")).to_be_visible()
    # The section fits the screen: a wide table scrolls in its own box, the page never sideways.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
