"""Playwright fixtures shared by every test directory (tests/e2e, tests/failure): ONE session
browser, since a second sync_playwright() inside the first one's event loop refuses to start."""

import contextlib
import os
import shutil
import time

import pytest

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# How long a browser test waits for what the page should show. Waits end as soon as it shows, so
# this is only the bound on a busy machine (2 cores running two suites), never a pause.
WAIT_MS = int(os.environ.get("E2E_WAIT_MS", "45000"))


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )  # fmt: skip
        yield browser
        browser.close()


def settle(context) -> None:
    """Before a test's browser closes: wait (a little) for the grades a review page is still
    sending in the background (issue 32), so no request reaches the live server while the test
    database is being flushed."""
    for page in context.pages:
        with contextlib.suppress(Exception):  # a closed or crashed page has nothing to send
            for _ in range(50):  # polled: wait_for_function's string would be eval, refused by CSP
                if page.evaluate(
                    "(() => { const p = document.querySelector('.review-page');"
                    " return !p || p.dataset.waiting === '0' || !navigator.onLine; })()"
                ):
                    break
                time.sleep(0.1)


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1100, "height": 900})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    yield page
    settle(context)
    context.close()


@pytest.fixture
def phone_page(browser, live_server):
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 390, "height": 844}, is_mobile=True,
        has_touch=True,
    )  # fmt: skip
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    yield page
    settle(context)
    context.close()
