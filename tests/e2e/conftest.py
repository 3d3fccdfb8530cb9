"""Browser tests: Playwright's sync API driving Debian's Chromium against live_server
(the fixtures `browser`, `page` and `phone_page` live in tests/browser.py)."""

from datetime import UTC, datetime

import pytest

from tests.browser import settle

SIZES = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def pytest_collection_modifyitems(items):
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


def zone_near_noon(now: datetime | None = None) -> str:
    """The fixed-offset zone (Etc/GMT-N is N hours ahead of UTC) whose local time is nearest
    noon at `now`: there local midnight is at least 11.5 hours away."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    ahead = round(12 - now.hour - now.minute / 60)  # -12 to +12 hours, all Etc zones
    return f"Etc/GMT{-ahead:+d}" if ahead else "Etc/GMT"


@pytest.fixture
def learner_zone() -> str:
    """The learners' time zone in browser tests. The live server runs on the real clock (another
    thread: no frozen time), and "today", new-card limits, burying and the interview's "in 1 day"
    follow the learner's local day: in UTC a test started near midnight UTC could see the day
    change between two steps. Local midnight is half a day away from any test of this run."""
    return zone_near_noon()


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
    settle(context)
    context.close()
    cache.clear()
