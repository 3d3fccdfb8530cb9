"""An owner creates a team and an invite; a second person joins through the link in their own
browser; both review; the dashboard shows both, in a real Chromium."""

import pytest
from django.core.cache import cache
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


def log_in(page, username: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"pw-{username}-123")
    page.get_by_role("button", name="Log in").click()
    # the login page's header has a Teams link too: wait for the page after the log-in
    expect(page.get_by_role("heading", name="Decks")).to_be_visible()


def review(page, keys: list[str]) -> None:
    """Reveal and grade the next cards of the small deck (1 Again, 3 Good)."""
    page.goto("/study/review/ray-basics/")
    for number, key in enumerate(keys, start=2):
        page.locator("#review-back").wait_for(state="hidden")
        page.keyboard.press("Space")
        page.keyboard.press(key)
        page.locator("#review-status", has_text=f"Card {number} of").wait_for(state="attached")


def test_owner_invites_a_second_user_who_joins_and_both_show_on_the_dashboard(
    page, browser, live_server, alice, bob, small_deck
):
    log_in(page, "alice")
    page.get_by_role("link", name="Teams").click()
    page.get_by_label("Name").fill("Ray cohort")
    page.get_by_role("button", name="Create team").click()
    page.get_by_role("heading", name="Ray cohort").wait_for()

    page.get_by_role("link", name="Manage members & invites").click()
    page.get_by_label("Single use: one person").check()
    page.get_by_role("button", name="Create invite link").click()
    link = page.get_by_label("Invite link", exact=True).first.input_value()
    assert "/teams/join/" in link

    context = browser.new_context(base_url=live_server.url)
    bobs_page = context.new_page()
    try:
        log_in(bobs_page, "bob")
        bobs_page.goto(link)
        bobs_page.get_by_role("heading", name="Join Ray cohort").wait_for()
        bobs_page.get_by_role("button", name="Join Ray cohort").click()
        # a click waits for the next page to start loading, not for its text: wait for it
        expect(bobs_page.get_by_text("Welcome to Ray cohort")).to_be_visible()

        # Both review on the review page, with the keyboard: bob Good then Again.
        review(bobs_page, ["3", "1"])
        review(page, ["3"])

        # Joining showed bob the dashboard before anyone reviewed; its figures are cached for
        # TEAMS_PROGRESS_CACHE_S (a minute), so a minute later is when the reviews show.
        cache.clear()
        bobs_page.goto("/teams/ray-cohort/")
        table = bobs_page.locator("#member-table")
        expect(table.locator("th[scope=row]", has_text="alice")).to_be_visible()
        expect(table.locator("th[scope=row]", has_text="bob")).to_be_visible()
    finally:
        context.close()

    page.goto("/teams/ray-cohort/")
    rows = page.locator("#member-table tbody tr")
    bob_row = rows.filter(has=page.locator("th", has_text="bob"))
    alice_row = rows.filter(has=page.locator("th", has_text="alice"))
    assert bob_row.locator("td").nth(4).inner_text() == "2"  # reviews in 7 days
    # retention: both were first sightings of new cards, which retention leaves aside (study's
    # progress.retention, the same dash as on bob's stats page)
    assert bob_row.locator("td").nth(6).inner_text() == "—"
    assert alice_row.locator("td").nth(4).inner_text() == "1"
    assert page.locator(".heatmap td.heat").count() == 3 * 2  # alice, bob, average x 2 sections

    # Sorting by name with the keyboard swaps only the table.
    page.get_by_role("link", name="Member", exact=True).focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**sort=username")
    names = page.locator("#member-table tbody th[scope=row]").all_inner_texts()
    assert [n.split()[0] for n in names] == ["alice", "bob", "Team"]


def test_the_dashboard_fits_a_phone(phone_page, alice, small_deck):
    from apps.teams.services import team_create

    team_create(user=alice, name="Ray cohort", deck=small_deck)
    log_in(phone_page, "alice")
    phone_page.goto("/teams/ray-cohort/")
    phone_page.locator(".heatmap").wait_for()
    phone_page.screenshot(path="/tmp/teams-phone.png", full_page=True)
    width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "the dashboard scrolls sideways on a phone; only its tables may"
