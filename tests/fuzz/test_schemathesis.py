"""The API against its own OpenAPI description, fuzzed by schemathesis (issue 8, part 4).

Every operation of /api/schema/ gets generated requests, valid and invalid, sent in-process to
the WSGI app as alice (token auth), who owns one of everything (tests/access/world.py), and
every check schemathesis has runs on every response: no 5xx, only documented status codes and
content types, bodies and headers matching their schemas, invalid input refused and valid input
accepted, a deleted resource gone, a created one reachable, no operation that works without its
credentials. A failure prints the request as a curl command.

Generated ids would almost never name a real row, so a before_call hook swaps most path ids and
slugs (and a few body fields) for alice's real ones: the fuzzer reaches the code behind the 404.

Bounded for CI: FUZZ_EXAMPLES (default 12) fuzzed cases per operation besides the schema's
explicit examples and the coverage phase's boundary cases. By hand, for a deeper run:
    FUZZ_EXAMPLES=300 .venv/bin/pytest tests/fuzz -q -p no:cacheprovider
The requests run on the test's own database connection inside its transaction, so on_commit
never fires: a demo run POSTed here is a row, never a Celery task.
"""

import os
import zlib

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import positive_data_acceptance

from config.wsgi import application
from tests.access.world import World, world_build

MAX_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "12"))

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)

_world: World | None = None  # set by the `world` fixture while a fuzz test runs
ALICE = "alice-token"  # stands for alice's real token key until a request is sent


def _pick(value, choices: list):
    """Most generated values become a real one (chosen by the value, so shrinking is stable)."""
    digest = zlib.crc32(repr(value).encode())
    if digest % 4 == 0:
        return value  # a quarter stay as generated: unknown ids must 404 cleanly too
    return choices[digest % len(choices)]


def _real_path_values(path: str, w: World) -> dict[str, list]:
    ids = {
        "/api/author/sections/": [w.draft_section.pk, w.draft_empty_section.pk],
        "/api/author/cards/": [w.draft_card.pk],
        "/api/author/questions/": [w.draft_question.pk],
        "/api/author/revisions/": [w.revision.pk],
        "/api/author/imports/": [w.import_job.pk],
        "/api/exercise-submissions/": [w.submission.pk],
        "/api/author/exercise-revisions/": [w.draft_exercise.current.pk],
        "/api/cards/": [w.card.pk, w.draft_card.pk],
        "/api/my/cards/": [w.own_card.pk],
        "/api/my/revisions/": [w.own_revision.pk],
        "/api/my/imports/": [w.import_job.pk],
    }
    slugs = {
        "/api/decks/": ["ray-basics", "alice-draft"],
        "/api/quizzes/": ["core-check", "final-check", "core-checkpoint"],
        "/api/teams/": [w.team.slug],
        "/api/author/decks/": ["alice-draft", "ray-basics"],
        "/api/author/quizzes/": ["draft-check", "core-check"],
        "/api/exercises/": ["core-add", "draft-add"],
        "/api/author/exercises/": ["draft-add", "core-add"],
        "/api/my/decks/": [w.own.slug],
    }
    real = {
        "run_id": [w.run.pk],
        "card_id": [w.card.pk, w.draft_card.pk],
        "user_id": [w.users["alice"].pk, w.users["charlie"].pk],
        "fmt": ["yaml", "json", "csv", "apkg"],
        "batch": [str(w.draft_exercise.current.batch)],
    }
    for prefix, values in ids.items():
        if path.startswith(prefix):
            real["id"] = values
    for prefix, values in slugs.items():
        if path.startswith(prefix):
            real["slug"] = values
    return real


def _real_body_values(w: World) -> dict[str, list]:
    return {
        "card": [w.card.pk, w.deck.cards.get(slug="ray-actor").pk, w.draft_card.pk],
        "demo": ["tasks-vs-actors", "object-store"],
        "token": [w.invite.token],
        "deck": ["ray-basics"],
        "section": ["drafting"],
    }


# Schema-valid requests the server must still refuse, because what decides is a row or a file's
# content that no schema can describe. For these operations positive_data_acceptance (a valid
# request is not refused) is replaced by the same check allowing just these statuses.
ACCEPTABLE = {401, 403, 404, 409, 429}  # what positive_data_acceptance allows besides 2xx/3xx
SEMANTIC_REFUSALS = {
    # DESIGN.md: a card id that names no card the caller can study is a 400 ("bad card").
    "POST /api/reviews/": {400},
    # The section slug must name a section of the card's deck.
    "POST /api/author/decks/{slug}/cards/": {400},
    "PUT /api/author/cards/{id}/": {400},
    "PATCH /api/author/cards/{id}/": {400},
    # A slug must be free in its deck (a section's, a card's).
    "POST /api/author/decks/{slug}/sections/": {400},
    "PUT /api/author/sections/{id}/": {400},
    "PATCH /api/author/sections/{id}/": {400},
    # A question's cards must be card slugs of the quiz's deck, and it carries only its own
    # kind's options (choices, statements or pairs): one schema per kind would be needed.
    "POST /api/author/quizzes/{slug}/questions/": {400},
    "PUT /api/author/questions/{id}/": {400},
    "PATCH /api/author/questions/{id}/": {400},
    # A checkpoint needs a section of the deck; a quiz slug must be free.
    "POST /api/author/decks/{slug}/quizzes/": {400},
    "PUT /api/author/quizzes/{slug}/": {400},
    "PATCH /api/author/quizzes/{slug}/": {400},
    # The uploaded file's content is checked whole (encoding, format, entries).
    "POST /api/author/import/": {400},
    "POST /api/author/imports/": {400},
    # Each demo has its own parameters (GET /api/demos/); the body's params object cannot say
    # which names and bounds apply without one schema per demo.
    "POST /api/demo-runs/": {400},
    # The interview date must be the caller's local today or later (a schema cannot say "not
    # before today in this time zone"), and the time zone an IANA name.
    "PATCH /api/me/profile/": {400},
    # README: a token that names no live invite is a 410 (expired, revoked or used up).
    "POST /api/teams/join/": {410},
    # A team follows a published deck, named by its slug.
    "POST /api/teams/": {400},
    # README: the last owner cannot leave (400) until ownership is handed over.
    "DELETE /api/teams/{slug}/members/{user_id}/": {400},
    # A quiz's answers are keyed by its own questions' ids.
    "POST /api/quizzes/{slug}/attempts/": {400},
    # Code that is blank, too large or holds a NUL cannot be run.
    "POST /api/exercises/{slug}/submissions/": {400},
    # An exercise's code must compile, its tests define test_ functions, its cards and section
    # be its deck's: a file's content, checked whole.
    "POST /api/author/decks/{slug}/exercises/": {400},
    "PUT /api/author/exercises/{slug}/": {400},
    "POST /api/author/decks/{slug}/exercises/import/": {400},
    # A learner's own cards: the same rules as the author's (a section of the deck, a free slug);
    # an image's and an import file's content is checked whole.
    "POST /api/my/decks/{slug}/cards/": {400},
    "PUT /api/my/cards/{id}/": {400},
    "PATCH /api/my/cards/{id}/": {400},
    "POST /api/my/decks/{slug}/import/": {400},
    "POST /api/my/decks/{slug}/media/": {400},
    # A move needs a deck of the caller's own, a tag a tag's name.
    "POST /api/cards/bulk/": {400},
    # A username and password must match an account (generated ones do not).
    "POST /api/auth/token/": {400},
}


def _negative(case, location) -> bool:
    return case.meta is not None and case.meta.is_negative_at(ParameterLocation(location))


@schemathesis.hook
def before_call(context, case, kwargs):
    """Aim at alice's rows (a global hook: it does nothing outside this module's tests)."""
    if _world is None:
        return
    # GZipMiddleware answers the "Accept-Encoding: gzip" schemathesis sends; over HTTP the client
    # would undo it, but the WSGI transport hands the checks the compressed bytes.
    case.headers = {**(case.headers or {}), "Accept-Encoding": "identity"}
    if (case.headers or {}).get("Authorization") == f"Token {ALICE}":
        case.headers["Authorization"] = f"Token {_world.tokens['alice']}"
    # Only values generated as valid are aimed: a deliberately wrong one (null, a word for an
    # id) stays wrong, or the request would be valid while its case says it is not.
    real = _real_path_values(case.path, _world)
    if not _negative(case, ParameterLocation.PATH):
        for name, value in (case.path_parameters or {}).items():
            if name in real:
                case.path_parameters[name] = _pick(value, real[name])
    query = case.query if isinstance(case.query, dict) else {}
    if case.path == "/api/study/queue/" and "deck" in query and not _negative(case, "query"):
        case.query["deck"] = _pick(case.query["deck"], ["ray-basics", "alice-draft"])
    if isinstance(case.body, dict) and not _negative(case, ParameterLocation.BODY):
        body_real = _real_body_values(_world)
        for name in list(case.body):
            if name in body_real and not isinstance(case.body[name], dict | list):
                case.body[name] = _pick(case.body[name], body_real[name])


@schema.auth(refresh_interval=None)
class AliceToken:
    """alice's token, declared as the schema's tokenAuth so the ignored_auth check knows it is
    real and tries the request without it and with a wrong one (both must be refused)."""

    def get(self, case, context):
        return ALICE  # cases can be built before the world exists: before_call swaps the key in

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Token {data}"}


@pytest.fixture
def world(db, settings):
    global _world
    # Throttles answer 429 once a rate is spent: right in production, noise for a fuzzer that
    # sends hundreds of requests a minute from one user (config.security reads rates per request).
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": None, "user": None, "write": None},
    }
    # The app runs as production does, through its WSGI handler, which closes the database
    # connection around each request: that would end the test's transaction on PostgreSQL.
    # Django's own test client unhooks the same handler for the same reason.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    _world = world_build()
    try:
        yield _world
    finally:
        _world = None
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,  # one world per operation, shared by its examples
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)
def test_api(case, world):
    semantic = SEMANTIC_REFUSALS.get(case.operation.label)
    if semantic is None:
        case.call_and_validate()
        return
    response = case.call_and_validate(excluded_checks=[positive_data_acceptance])
    if case.meta is not None and case.meta.generation.mode.is_positive:
        code = response.status_code
        assert code < 400 or code in ACCEPTABLE | semantic, (
            f"{case.operation.label}: schema-valid request refused with {code}: "
            f"{response.text[:300]}\n{case.as_curl_command()}"
        )
