"""A small named world the tests tell stories about: alice and bob study, staff authors."""

import io

import pytest
from django.core.cache import cache
from django.core.management import call_command
from rest_framework.test import APIClient

from apps.accounts.models import profile_for
from apps.decks.models import Card, Deck, Section

pytest_plugins = ["tests.browser"]  # Playwright: browser, page, phone_page


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
def celery_left_as_found():
    """A test that points the shared Celery app at another broker must put it back: otherwise
    every later test enqueues to the wrong place, and only when it happens to run later."""
    from config.celery import app

    before = app.conf.broker_url
    yield
    assert app.conf.broker_url == before, (
        f"this test left Celery's broker_url at {app.conf.broker_url!r} (was {before!r})"
    )


def _user(django_user_model, username: str, **extra):
    user = django_user_model.objects.create_user(
        username=username, password=f"pw-{username}-123", **extra
    )
    profile_for(user)
    return user


@pytest.fixture
def alice(django_user_model):
    return _user(django_user_model, "alice")


@pytest.fixture
def bob(django_user_model):
    return _user(django_user_model, "bob")


@pytest.fixture
def charlie(django_user_model):
    return _user(django_user_model, "charlie")


@pytest.fixture
def staff(django_user_model):
    return _user(django_user_model, "staff", is_staff=True)


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


@pytest.fixture
def seeded(db):
    call_command("seed", stdout=io.StringIO())


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()
