"""alice sets an interview date and a budget, sees the plan, reviews today's planned cards in a
real Chromium and watches the predicted recall on the day move; SM-2's schedule stays put."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.accounts.models import profile_for
from apps.study import services
from apps.study.models import CardState, ReviewLog
from tests.e2e.test_review import log_in

pytestmark = pytest.mark.django_db(transaction=True)


def learnt_a_week_ago(user, deck):
    then = timezone.now() - timedelta(days=8)
    for card in deck.cards.all():
        services.review_record(user=user, card=card, grade=5, now=then)
    CardState.objects.filter(user=user).update(due_at=timezone.now() + timedelta(days=40))


def test_the_date_survives_saving_the_profile_twice(page, alice, small_deck):
    """The saved date comes back in the date field (ISO, not the site's en-gb 11/12/2026), so a
    second save for another setting keeps it, and the plan with it."""
    log_in(page)
    page.goto("/accounts/profile/")
    day = profile_for(alice).local_today() + timedelta(days=12)
    page.get_by_label("Interview date").fill(day.isoformat())
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Profile saved.")).to_be_visible()
    expect(page.get_by_label("Interview date")).to_have_value(day.isoformat())

    page.get_by_label("New cards per day").fill("7")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Profile saved.")).to_be_visible()

    page.goto("/accounts/profile/")
    expect(page.get_by_label("Interview date")).to_have_value(day.isoformat())
    expect(page.get_by_label("New cards per day")).to_have_value("7")
    page.goto("/study/plan/")
    expect(page.get_by_role("heading", name="Your interview plan")).to_be_visible()
    expect(page.locator("#plan-sections")).to_be_visible()
    profile = type(profile_for(alice)).objects.get(user=alice)
    assert (profile.interview_date, profile.new_cards_per_day) == (day, 7)


def test_set_a_date_see_the_plan_review_it_and_watch_recall_move(page, alice, small_deck):
    learnt_a_week_ago(alice, small_deck)
    schedules = list(CardState.objects.filter(user=alice).order_by("id").values())
    log_in(page)

    page.goto("/study/plan/")
    expect(page.get_by_text("No interview date is set, so there is no plan")).to_be_visible()

    page.goto("/accounts/profile/")
    # alice's tomorrow (her time zone, tests/e2e/conftest.py), not the test process's (UTC)
    tomorrow = profile_for(alice).local_today() + timedelta(days=1)
    page.get_by_label("Interview date").fill(tomorrow.isoformat())
    page.get_by_label("Daily budget minutes").fill("10")
    page.get_by_label("Target recall").fill("99")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Profile saved.")).to_be_visible()

    page.goto("/")
    expect(page.locator("#interview-next")).to_contain_text("in 1 day")
    page.get_by_role("link", name="Today's interview plan").click()
    expect(page.get_by_role("heading", name="Your interview plan")).to_be_visible()
    expect(page.locator("#plan-card .eyebrow")).to_contain_text("for your interview")
    expect(page.locator("#plan-sections")).to_contain_text("Ray core")
    now = page.locator("#recall-now")
    before = now.inner_text()

    reviewed = 0
    while page.locator("#plan-card").count() and reviewed < 5:
        card = page.locator("#plan-card").get_attribute("data-card")
        page.get_by_text("Show answer").click()
        page.get_by_role("button", name="Good").click()
        expect(page.locator(f'#plan-card[data-card="{card}"]')).to_have_count(0)
        reviewed += 1
        expect(now).not_to_have_text(before)  # the prediction moved with the first review
    expect(page.locator("#plan-done")).to_be_visible()

    assert reviewed == 5
    assert int(now.inner_text().rstrip("%")) > int(before.rstrip("%"))
    assert set(
        ReviewLog.objects.filter(user=alice, kind="plan").values_list("grade", flat=True)
    ) == {4}
    # plan mode: a ReviewLog each, and SM-2's schedules exactly as they were
    assert list(CardState.objects.filter(user=alice).order_by("id").values()) == schedules
