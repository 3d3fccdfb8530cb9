"""Browser tests: Playwright's sync API driving Debian's Chromium against live_server
(the fixtures `browser`, `page` and `phone_page` live in tests/browser.py)."""

import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)
