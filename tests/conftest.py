"""A small named world the tests tell stories about: alice and bob study, staff authors."""

import io
import os

import pytest
from django.core.cache import cache
from django.core.management import call_command
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient

from apps.accounts.models import profile_for
from apps.decks.models import Card, Deck, Section

pytest_plugins = ["tests.browser"]  # Playwright: browser, page, phone_page

# Hypothesis draws the same examples on every run of `make test` (seeded from each test's source),
# so CI on a fresh clone passes or fails exactly as it did here, and a failure reproduces at once;
# no deadline, as a loaded 2-core CI machine is slow at random. To look for new failing inputs:
# `make test PYTEST_ARGS="--hypothesis-profile=explore tests/charts"` (random, 10x the examples);
# pin what it finds with @example.
hypothesis_settings.register_profile("raydeck", derandomize=True, deadline=None, print_blob=True)
hypothesis_settings.register_profile("explore", deadline=None, max_examples=1000, print_blob=True)
hypothesis_settings.load_profile("raydeck")

# CI's second pass (.ci/run) runs the suite again against PostgreSQL, Redis and a Ray cluster. A
# test that reaches none of them ran identically in the first pass (same commit, same packages,
# same Chromium), so that pass leaves it out and says how many it left out.
SERVICES_PASS = os.environ.get("RAYDECK_CI_SERVICES_PASS") == "1"
# What gives a test the database: pytest-django's fixtures (live_server's server shares the test
# database), and a test client, whose requests go through the throttles' cache (Redis there).
# (Not django_db_blocker: an autouse fixture of pytest-django's takes it for every test.)
SERVICE_FIXTURES = {
    "_django_db_helper", "db", "transactional_db", "django_db_reset_sequences",
    "django_db_serialized_rollback", "live_server",
    "client", "admin_client", "async_client", "api_client",
}  # fmt: skip
# Modules that pass CACHE_URL or CELERY_BROKER_URL on to settings read in a subprocess: what they
# check differs with the services set, so they run again. (tests/deploy's gunicorn and make-run
# tests pin their own SQLite, broker and cache: the same in both passes.)
READS_SERVICE_ENV = ("tests/test_settings.py", "tests/security/test_settings_secrets.py",
                     "tests/deploy/test_health.py")  # fmt: skip


def uses_services(item: pytest.Item) -> bool:
    if item.get_closest_marker("django_db"):
        return True
    if SERVICE_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    return item.nodeid.startswith(READS_SERVICE_ENV)


# `make test` runs the suite on two xdist workers, then these on their own (`-m serial`): tests
# that measure time or speed-ups (Ray demos, the sandbox's wall clock), start Ray or a cluster,
# kill or restart workers and databases, or start `make run` and gunicorn. Sharing the two cores
# with another test would make their timings lie, or their restarts cut the other test off.
SERIAL_PATHS = (
    "tests/demos/", "tests/cluster/", "tests/failure/", "tests/deploy/",
    "tests/e2e/test_demo_worker.py", "tests/exercises/test_attacks.py",
    "tests/hardening/test_import_reaper.py",
)  # fmt: skip


@pytest.hookimpl(tryfirst=True)  # before -m selects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.startswith(SERIAL_PATHS) or item.get_closest_marker("ray"):
            item.add_marker(pytest.mark.serial)
    if not SERVICES_PASS:
        return
    kept, left_out = [], []
    for item in items:
        (kept if uses_services(item) else left_out).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept
    config._raydeck_left_out = len(left_out)  # for the summary line


def pytest_report_collectionfinish(config, start_path, items):
    if SERVICES_PASS:
        return (
            f"RAYDECK_CI_SERVICES_PASS=1: {getattr(config, '_raydeck_left_out', 0)} tests that use"
            " no database, test client or service setting deselected (pure cores, hypothesis"
            " properties, Ray demos on a local Ray, file checks): they ran identically in the"
            " fresh-clone pass"
        )
    return None


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    """Hashing test users' passwords with PBKDF2 would dominate the suite and tests nothing."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_cache(settings, tmp_path_factory):
    """API throttle counts live in the cache: each test starts from none, and with no CACHE_URL
    the file cache sits in this run's own directory, so runs side by side do not count together."""
    if settings.CACHES["default"]["BACKEND"].endswith("FileBasedCache"):
        location = str(tmp_path_factory.getbasetemp() / "cache")
        settings.CACHES = {"default": {**settings.CACHES["default"], "LOCATION": location}}
    cache.clear()


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path_factory):
    """Deck images (Django's default storage) go to this run's own directory, never var/."""
    settings.MEDIA_ROOT = str(tmp_path_factory.getbasetemp() / "media")
    return settings.MEDIA_ROOT


@pytest.fixture(autouse=True)
def celery_left_as_found():
    """A test that points the shared Celery app at another broker must put it back: otherwise
    every later test enqueues to the wrong place, and only when it happens to run later."""
    from config.celery import app

    before = app.conf.broker_url
    yield
    assert app.conf.broker_url == before, (
        f"this test left Celery's broker_url at {app.conf.broker_url!r} (was {before!r})"
    )


def _user(django_user_model, username: str, zone: str | None, **extra):
    user = django_user_model.objects.create_user(
        username=username, password=f"pw-{username}-123", **extra
    )
    profile = profile_for(user)
    if zone is not None:
        profile.time_zone = zone
        profile.save(update_fields=["time_zone"])
    return user


@pytest.fixture
def learner_zone() -> str | None:
    """The named users' time zone; None keeps the default (UTC). tests/e2e overrides it."""
    return None


@pytest.fixture
def alice(django_user_model, learner_zone):
    return _user(django_user_model, "alice", learner_zone)


@pytest.fixture
def bob(django_user_model, learner_zone):
    return _user(django_user_model, "bob", learner_zone)


@pytest.fixture
def charlie(django_user_model, learner_zone):
    return _user(django_user_model, "charlie", learner_zone)


@pytest.fixture
def staff(django_user_model, learner_zone):
    return _user(django_user_model, "staff", learner_zone, is_staff=True)


@pytest.fixture
def small_deck(db) -> Deck:
    """Two sections, five cards: enough for queues, quizzes and pages without the shipped deck."""
    deck = Deck.objects.create(
        slug="ray-basics", title="Ray basics", description="The *core* of Ray.",
        objectives=["Tell a task from an actor", "Name RLlib's parts"],
    )  # fmt: skip
    core = Section.objects.create(deck=deck, slug="ray-core", order=0, title="Ray core")
    rllib = Section.objects.create(deck=deck, slug="rllib", order=1, title="RLlib")
    cards = [
        (core, "ray-task", "What is a Ray task?", "A stateless remote function call."),
        (core, "ray-actor", "What is a Ray actor?", "A stateful worker process."),
        (core, "object-store", "What does the object store hold?", "Immutable shared objects."),
        (rllib, "rllib-algorithm", "What does an RLlib Algorithm do?", "Coordinates training."),
        (rllib, "env-runner", "What does an EnvRunner do?", "Steps environments."),
    ]
    for order, (section, slug, front, back) in enumerate(cards):
        Card.objects.create(
            deck=deck, section=section, slug=slug, order=order, front=front, back=back
        )
    return deck


# The rows `manage.py seed` wrote the first time a test of this process asked for them.
_seed_rows: list[tuple[type, list[dict]]] | None = None


def _row_counts() -> dict[type, int]:
    from django.apps import apps

    models = apps.get_models(include_auto_created=True)
    return {m: m._base_manager.count() for m in models if m._meta.managed and not m._meta.proxy}


def _seed_restore(rows: list[tuple[type, list[dict]]]) -> None:
    from django.core.management.color import no_style
    from django.db import connection, transaction

    with transaction.atomic():  # foreign keys are checked at the end, whatever the order
        for model, values in rows:
            model._base_manager.bulk_create([model(**row) for row in values])
    # PostgreSQL: the next id of each table past the restored ones (SQLite keeps track itself).
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), [m for m, _ in rows]):
            cursor.execute(sql)


@pytest.fixture
def seeded(db):
    """The shipped lesson, as `manage.py seed` loads it. The command parses and validates every
    YAML file and renders every card each time; so it runs once per test process, and each later
    test gets the very rows it wrote, inserted again in bulk (when those tables start empty)."""
    global _seed_rows
    before = _row_counts()
    if _seed_rows is not None and all(before[m] == 0 for m, _ in _seed_rows):
        _seed_restore(_seed_rows)
        return
    call_command("seed", stdout=io.StringIO())
    if _seed_rows is None:
        after = _row_counts()
        written = [m for m in after if after[m] != before[m]]
        if all(before[m] == 0 for m in written):
            _seed_rows = [
                (m, list(m._base_manager.order_by("pk").values(
                    *[f.attname for f in m._meta.concrete_fields]
                )))
                for m in written
            ]  # fmt: skip


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()
