"""A newcomer signs up on a laptop or a phone whose clock is in Berlin: the account takes an
e-mail address and the browser's time zone, and a timed quiz's deadline shows in that zone;
later they forget the password and reset it through the e-mailed link."""

import re
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from playwright.sync_api import expect

from apps.quizzes.models import Attempt

pytestmark = pytest.mark.django_db(transaction=True)

ZONE = "Europe/Berlin"


@pytest.fixture
def time_zone():
    return ZONE


def test_sign_up_takes_the_browsers_time_zone_for_deadlines(person, core_check):
    page = person
    page.goto("/accounts/signup/")
    expect(page.locator("#time-zone-name")).to_have_text(ZONE)
    page.get_by_label("Username").fill("dora")
    page.get_by_label("E-mail").fill("dora@example.com")
    page.get_by_label("Password", exact=True).fill("a-long-pass-phrase")
    page.get_by_label("Password confirmation").fill("a-long-pass-phrase")
    page.screenshot(path=f"/tmp/ux-{page.size}-signup.png", full_page=True)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_text("Welcome, dora")).to_be_visible()

    page.goto("/accounts/profile/")
    expect(page.get_by_label("Time zone")).to_have_value(ZONE)

    page.goto("/quizzes/final-check/")  # a timed check (60 s)
    page.get_by_role("button", name="Start").click()
    deadline = page.locator("#deadline")
    expect(deadline).to_be_visible()
    attempt = Attempt.objects.get(user__username="dora")
    local = attempt.deadline.astimezone(ZoneInfo(ZONE)).strftime("%H:%M:%S")
    expect(deadline).to_have_text(f"{local} {ZONE}")


def test_a_forgotten_password_is_reset_by_e_mail(person, alice):
    alice.email = "alice@example.com"
    alice.save()
    mail.outbox = []
    page = person
    page.goto("/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("Email").fill("alice@example.com")
    page.get_by_role("button", name="Send the link").click()
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()
    [message] = mail.outbox
    link = re.search(r"https?://\S+/accounts/reset/\S+/", message.body).group(0)
    page.goto("/accounts/" + link.split("/accounts/", 1)[1])
    expect(page.get_by_role("heading", name="Choose a new password")).to_be_visible()
    page.get_by_label("New password", exact=True).fill("another-long-phrase")
    page.get_by_label("New password confirmation").fill("another-long-phrase")
    page.screenshot(path=f"/tmp/ux-{page.size}-reset.png", full_page=True)
    page.get_by_role("button", name="Save the new password").click()
    expect(page.get_by_role("heading", name="Password changed")).to_be_visible()
    page.get_by_role("link", name="Log in", exact=True).last.click()
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("another-long-phrase")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Decks")).to_be_visible()
