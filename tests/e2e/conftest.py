"""Browser tests: Playwright's sync API driving Debian's Chromium against live_server
(the fixtures `browser`, `page` and `phone_page` live in tests/browser.py)."""

import pytest


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
