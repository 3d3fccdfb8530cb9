"""alice reads her stats page and her team's dashboard, on a laptop and on a phone: the same
learned, retention and readiness on both, each with its formula a tap away; with nothing learned
both say 0 readiness and no retention."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.study.services import review_record
from apps.teams.services import team_create

pytestmark = pytest.mark.django_db(transaction=True)


def log_in(page):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw-alice-123")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Decks")).to_be_visible()


def stats_row(page):
    page.goto("/study/stats/")
    row = page.locator(".readiness-table tbody tr").first
    return row.locator(".readiness").inner_text(), row.locator(".retention").inner_text()


def member_row(page):
    page.goto("/teams/ray-cohort/")
    row = page.locator(".member-table tbody tr", has_text="alice")
    cells = row.locator("td")
    return cells.nth(0).inner_text(), cells.nth(6).inner_text()  # readiness, retention


def test_the_same_figures_on_the_stats_page_and_the_dashboard(person, alice, small_deck):
    team_create(user=alice, name="Ray cohort", deck=small_deck)
    now = timezone.now()
    task, actor = small_deck.cards.get(slug="ray-task"), small_deck.cards.get(slug="ray-actor")
    review_record(user=alice, card=task, grade=4, now=now - timedelta(days=2))
    review_record(user=alice, card=task, grade=4, now=now)  # a due review, passed
    review_record(user=alice, card=actor, grade=5, now=now)
    page = person
    log_in(page)
    # learned: the task (two passes); the actor has had one pass only
    assert stats_row(page) == ("30%", "100%")  # 0.5 x 1/5 + 0.3 x 0 + 0.2 x 1
    details = page.locator(".how-computed")
    details.locator("summary").click()
    expect(details).to_contain_text("0.5 × share of the deck's cards learned")
    page.screenshot(path=f"/tmp/ux-{page.size}-stats.png", full_page=True)
    # every table scrolls inside its own box: the page itself never scrolls sideways
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert member_row(page) == ("30%", "100%")
    expect(page.locator(".definitions")).to_contain_text("0 while no card is learned")
    width = page.locator(".member-table").evaluate("el => el.getBoundingClientRect().width")
    if page.size == "laptop":
        assert width <= 1280 - 40, f"the members table is {width}px wide at 1280"
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    page.screenshot(path=f"/tmp/ux-{page.size}-dashboard.png", full_page=True)


def test_nothing_learned_is_zero_readiness_and_no_retention_on_both(person, alice, small_deck):
    team_create(user=alice, name="Ray cohort", deck=small_deck)
    for slug in ("ray-task", "ray-actor"):
        review_record(user=alice, card=small_deck.cards.get(slug=slug), grade=1)
    page = person
    log_in(page)
    page.goto("/study/stats/")
    expect(page.locator("#retention-all")).to_have_text("—")
    expect(page.locator(".readiness-table")).to_contain_text("readiness is 0")
    assert member_row(page) == ("0%", "—")
