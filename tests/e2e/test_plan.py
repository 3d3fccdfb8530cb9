"""alice, on a phone with a keyboard too, sets an interview date, saves her profile twice (the
date survives: the field gets ISO, not the site's en-gb 11/12/2026), studies today's interview
queue by keyboard and by tapping, sees her predicted recall on the day move, then turns interview
mode off and gets SM-2's queue back, with SM-2's schedules as her reviews left them."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.accounts.models import Profile, profile_for
from apps.study import services
from apps.study.models import CardState, ReviewLog
from tests.e2e.test_review import log_in

pytestmark = pytest.mark.django_db(transaction=True)


def percent(locator) -> int:
    return int(locator.inner_text().rstrip("%"))


def test_set_a_date_study_the_interview_queue_then_turn_the_mode_off(phone_page, alice, small_deck):
    page = phone_page
    then = timezone.now() - timedelta(days=9)
    for slug in ("ray-task", "ray-actor"):  # known a while, not due again until long after
        services.review_record(user=alice, card=small_deck.cards.get(slug=slug), grade=5, now=then)
    CardState.objects.filter(user=alice).update(due_at=timezone.now() + timedelta(days=40))
    log_in(page)

    # 1. the date, saved twice: once with it, once for another setting
    page.goto("/accounts/profile/")
    day = profile_for(alice).local_today() + timedelta(days=1)  # her day, not the test's (UTC)
    page.get_by_label("Interview date").fill(day.isoformat())
    page.get_by_label("Daily budget minutes").fill("1")  # 5 reviews a day at 12 s
    page.get_by_label("Target recall").fill("99")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Profile saved.")).to_be_visible()
    expect(page.get_by_label("Interview date")).to_have_value(day.isoformat())
    page.get_by_label("New cards per day").fill("1")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Profile saved.")).to_be_visible()
    page.goto("/accounts/profile/")
    expect(page.get_by_label("Interview date")).to_have_value(day.isoformat())
    assert Profile.objects.get(user=alice).interview_date == day

    # 2. home's one next step is today's interview cards, in the one queue; the plan's line says
    # what to study today and how ready on the day
    page.goto("/")
    expect(page.locator("#next-step-box")).to_contain_text("interview in 1 day")
    expect(page.locator("#next-step")).to_contain_text("for your interview (in 1 day)")
    expect(page.locator("#next-step")).to_have_attribute("href", "/study/review/")
    expect(page.locator("#today-line")).to_contain_text("Today: study")
    page.goto("/study/plan/")
    expect(page.locator("#today-line")).to_contain_text("Today: study")
    expect(page.locator("#what-if")).to_contain_text("+10 min a day")
    page.screenshot(path="/tmp/ux-phone-plan.png", full_page=True)
    now = percent(page.locator("#recall-now"))

    # 3. today's interview queue, past the 1-a-day new-card limit: a key, then a tap
    expect(page.locator("#plan-study")).to_have_attribute("href", "/study/review/")
    page.goto("/study/review/")  # (a tap on the link could land on the next page's card too)
    expect(page.locator("#queue-scheduler")).to_have_text("interview mode")
    first = page.locator("#review-card").get_attribute("data-card")
    page.keyboard.press("Space")
    expect(page.locator("#review-back")).to_be_visible()
    page.keyboard.press("3")  # Good
    expect(page.locator(f'#review-card[data-card="{first}"]')).to_have_count(0)
    expect(page.locator("#review-card")).to_be_visible()
    second = page.locator("#review-card").get_attribute("data-card")
    page.locator("#review-front").tap()
    expect(page.locator("#review-back")).to_be_visible()
    page.locator(".grade-buttons button.grade-good").tap()
    expect(page.locator(f'#review-card[data-card="{second}"]')).to_have_count(0)
    page.screenshot(path="/tmp/ux-phone-interview-queue.png", full_page=True)
    studied = set(
        ReviewLog.objects.filter(user=alice, reviewed_at__gte=then + timedelta(days=1))
        .values_list("card_id", flat=True)
    )  # fmt: skip
    assert studied == {int(first), int(second)}

    # 4. the prediction on the day moved with those reviews
    page.goto("/study/plan/")
    expect(page.locator("#recall-now")).not_to_have_text(f"{now}%")
    assert percent(page.locator("#recall-now")) > now

    # 5. interview mode off: SM-2's own queue, and its schedules as the reviews left them
    schedules = {s.card_id: s.schedule for s in CardState.objects.filter(user=alice)}
    page.goto("/accounts/profile/")
    page.get_by_label("Interview mode").uncheck()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Profile saved.")).to_be_visible()
    expect(page.get_by_label("Interview date")).to_have_value(day.isoformat())
    page.goto("/study/review/")
    expect(page.locator("#review .review-counts")).to_be_visible()  # SM-2's counts
    expect(page.locator("#queue-scheduler")).to_have_count(0)
    page.goto("/study/plan/")
    expect(page.locator("#plan-mode-off")).to_be_visible()
    assert {s.card_id: s.schedule for s in CardState.objects.filter(user=alice)} == schedules
