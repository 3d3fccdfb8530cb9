"""The first load of each page a learner opens costs under 100 KB of CSS and JavaScript, on a
laptop and on a phone (counted uncompressed, as the browser parses it, from its resource
timing; over the wire whitenoise sends them gzipped, see bench/README-ux.md)."""

import pytest
from playwright.sync_api import expect

from apps.teams.services import team_create

pytestmark = pytest.mark.django_db(transaction=True)

BUDGET = 100 * 1024
# The review page also carries the device's own queue and offline review (issue 32: SM-2, the
# IndexedDB store, the sync, the service worker's registration), minified into one file that
# tests/review/test_device_bundle.py keeps under 26 KB (8 KB gzipped).
ALLOWANCE = {"/study/review/ray-basics/": 26 * 1024}
PAGES = [
    "/", "/decks/ray-basics/ray-core/", "/study/", "/study/review/ray-basics/", "/study/stats/",
    "/quizzes/core-check/", "/demos/", "/demos/tasks-vs-actors/", "/teams/cohort/",
    "/accounts/profile/",
]  # fmt: skip


def first_load_assets(browser, live_server, storage_state, url) -> dict[str, int]:
    """CSS and JS a fresh visit to `url` downloads (a new context: nothing cached), by URL, with
    their decoded sizes as the browser's resource timing reports them."""
    context = browser.new_context(base_url=live_server.url, storage_state=storage_state)
    page = context.new_page()
    try:
        page.goto(url, wait_until="load")
        entries = page.evaluate(
            """() => performance.getEntriesByType("resource")
                 .filter(e => /\\.(css|js)(\\?|$)/.test(e.name))
                 .map(e => [e.name, e.decodedBodySize])"""
        )
    finally:
        context.close()
    return dict(entries)


def test_first_load_css_and_js_stay_under_100_kb(
    person, browser, live_server, alice, small_deck, core_check
):
    team_create(user=alice, name="Cohort", deck=small_deck)
    page = person
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("pw-alice-123")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Decks")).to_be_visible()
    state = page.context.storage_state()
    for url in PAGES:
        assets = first_load_assets(browser, live_server, state, url)
        raw = sum(assets.values())
        print(f"{page.size} {url}: {len(assets)} files, {raw} B")
        assert assets, url
        assert raw < BUDGET + ALLOWANCE.get(url, 0), (
            f"{url}: {raw} bytes of CSS+JS on first load: {sorted(assets)}"
        )
