"""Logging out deletes what the review page keeps on the device (issue 32's privacy rule), so it
must not silently delete grades that never reached the server: online on the review page it sends
them first; otherwise it names how many would be lost and the learner chooses."""

import pytest
from playwright.sync_api import expect

from apps.study.models import ReviewLog
from tests.e2e.test_offline_review import DECK, deck, device_rows, grade, outbox, ready, waiting
from tests.e2e.test_review import log_in

pytestmark = pytest.mark.django_db(transaction=True)
__all__ = ["deck"]  # the fixture, used by name


def log_out(page):
    menu = page.get_by_role("button", name="Menu")
    if menu.is_visible() and menu.get_attribute("aria-expanded") != "true":
        menu.click()  # at phone size the header folds its links behind "Menu"
    page.get_by_role("button", name="Log out").click()


def logged_out(page):
    nav = page.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="Log in")).to_be_visible()


def test_offline_a_logout_says_it_needs_the_server_and_keeps_the_grades(person, alice, deck):
    page = person
    log_in(page)
    page.goto(DECK)
    ready(page)
    page.context.set_offline(True)
    grade(page, "3")
    grade(page, "4")
    waiting(page, 2)
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    log_out(page)
    expect(page.get_by_role("button", name="Log out")).to_be_enabled()
    assert asked == [
        "You are offline, and logging out needs the server: try again once online. The 2 "
        "reviews given on this device stay on it until they are sent."
    ]
    assert len(outbox(page)) == 2  # still on the device, still logged in
    page.context.set_offline(False)
    waiting(page, 0)
    assert ReviewLog.objects.filter(user=alice).count() == 2


def test_grades_the_server_cannot_take_are_named_and_the_learner_chooses(page, alice, deck):
    log_in(page)
    page.goto(DECK)
    ready(page)
    page.route("**/api/reviews/", lambda route: route.abort())  # online, but they cannot go
    grade(page, "3")
    expect(page.locator("#offline-banner")).to_contain_text("1 review waiting")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    log_out(page)
    expect(page.get_by_role("button", name="Log out")).to_be_enabled()
    assert asked == [
        "1 review given on this device has not reached the server yet. Logging out deletes it "
        "from this device. Cancel to keep it and try again later, or OK to log out anyway."
    ]
    assert len(outbox(page)) == 1  # cancelled: kept, and still logged in
    page.once("dialog", lambda dialog: dialog.accept())
    log_out(page)  # OK: the learner chose to lose it
    logged_out(page)
    assert device_rows(page, "outbox") == []
    assert not ReviewLog.objects.filter(user=alice).exists()


def test_online_a_logout_sends_the_waiting_grades_first_and_asks_nothing(page, alice, deck):
    log_in(page)
    page.goto(DECK)
    ready(page)
    page.route("**/api/reviews/", lambda route: route.abort())  # the grades cannot go yet
    grade(page, "3")
    grade(page, "3")
    expect(page.locator("#offline-banner")).to_contain_text("2 reviews waiting")
    page.unroute("**/api/reviews/")
    asked = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    log_out(page)
    logged_out(page)
    assert asked == []
    assert ReviewLog.objects.filter(user=alice).count() == 2  # sent before the device was cleared


def test_a_logout_with_nothing_waiting_asks_nothing(page, alice, deck):
    log_in(page)
    page.goto("/")
    asked = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    log_out(page)
    logged_out(page)
    assert asked == []
