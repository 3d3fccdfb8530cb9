"""Browser tests: Playwright's sync API driving Debian's Chromium against live_server
(the fixtures `browser`, `page` and `phone_page` live in tests/browser.py)."""

import pytest

SIZES = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def pytest_collection_modifyitems(items):
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture
def core_check(small_deck, tmp_path):
    """The test quizzes (a knowledge check and its checkpoints) over the small deck."""
    from apps.quizzes.content import quiz_file_load
    from tests.quizzes.conftest import QUIZ_FILE

    path = tmp_path / "ray-basics.yaml"
    path.write_text(QUIZ_FILE)
    quiz_file_load(path)


@pytest.fixture
def time_zone() -> str | None:
    """The browser's time zone for `person` (None: the machine's); a test module may override it."""
    return None


@pytest.fixture(params=list(SIZES))
def person(request, browser, live_server, time_zone):
    """A page in a fresh browser on a laptop (1280x800) and, in a second run, on a phone (390x844,
    touch); `page.size` says which. The shared cache is cleared afterwards."""
    from django.core.cache import cache

    phone = request.param == "phone"
    context = browser.new_context(
        base_url=live_server.url, viewport=SIZES[request.param], is_mobile=phone,
        has_touch=phone, timezone_id=time_zone,
    )  # fmt: skip
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.size = request.param
    yield page
    context.close()
    cache.clear()
