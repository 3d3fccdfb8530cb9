"""Object-level access on every route, for every kind of user (issue 8, part 3).

Every URL pattern the app serves is listed in MATRIX (a new route without an entry fails
test_every_route_is_classified). Each entry holds one or more probes: a request on alice's
objects (tests/access/world.py) and what each role must get:

- owner: alice, who owns the run, the attempts, the card state, the team and the draft deck;
- stranger: bob, a learner with no part in any of it;
- member: charlie, a member (not an owner) of alice's team and nothing else;
- staff: staff, who authors every deck but is nobody's team-mate nor owner of learner data;
- anon: not logged in.

The rules (DESIGN.md and README "Teams" / "Authoring"): learner data (runs, attempts, card
states, reviews) is its owner's only, anyone else gets 404 (so ids do not leak), staff included;
a team is seen by its members only (404 for anyone else) and managed by its owners only (403 for
members); authoring is for staff and the deck's authors (403 for anyone else); drafts are read
by staff only; anonymous visitors are sent to log in (pages) or refused with 401/403 (API).

A refused request must change nothing at all in the database, and no request by anyone but alice
may change alice's rows (unless the probe says the role shares them, e.g. staff editing a deck).
Every request runs inside a savepoint that is rolled back, so one world serves all five roles.
"""

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from tests.access.world import (
    ALICE_CODE,
    DRAFT_FRONT,
    DRAFT_TITLE,
    HIDDEN_TEST,
    OWN_FRONT,
    OWN_TITLE,
    PRIVATE,
    TEAM_NAME,
    World,
    exercise_doc,
    png_bytes,
    world_build,
)

pytestmark = pytest.mark.django_db

ROLES = ("owner", "stranger", "member", "staff", "anon")
USER_OF = {"owner": "alice", "stranger": "bob", "member": "charlie", "staff": "staff"}
OK = "ok"  # 2xx or 3xx, but not a redirect to the log-in page
LOGIN = "login"  # 302 to the log-in page
DENY = "deny"  # 401 or 403 from the API for an anonymous caller
PROBE = "probe"  # a health probe: 200, or 503 naming what is down (no user, no object)


def E(owner, stranger, member, staff, anon) -> dict:
    return dict(zip(ROLES, (owner, stranger, member, staff, anon), strict=True))


# Pages
PUBLIC = E(OK, OK, OK, OK, OK)
SELF = E(OK, OK, OK, OK, LOGIN)  # everyone signed in acts on their own data
OWN = E(OK, 404, 404, 404, LOGIN)  # alice's learner data: nobody else, staff included
TEAM = E(OK, 404, OK, 404, LOGIN)  # members read the team
MANAGE = E(OK, 404, 403, 404, LOGIN)  # owners manage it
AUTHOR = E(OK, 403, 403, OK, LOGIN)  # the deck's authors and staff
STAFF_ONLY = E(403, 403, 403, OK, LOGIN)
DRAFT = E(404, 404, 404, OK, 404)  # a draft deck read as a learner: staff only
DRAFT_SELF = E(404, 404, 404, OK, LOGIN)
# API: the same, with 401/403 for anonymous callers
A_PUBLIC = PUBLIC
A_SELF = E(OK, OK, OK, OK, DENY)
A_OWN = E(OK, 404, 404, 404, DENY)
A_TEAM = E(OK, 404, OK, 404, DENY)
A_MANAGE = E(OK, 404, 403, 404, DENY)
A_AUTHOR = E(OK, 403, 403, OK, DENY)
A_STAFF_ONLY = E(403, 403, 403, OK, DENY)
A_DRAFT = E(404, 404, 404, OK, 404)
A_DRAFT_SELF = E(404, 404, 404, OK, DENY)


@dataclass
class Probe:
    method: str
    url: Callable[[World], str]
    expect: dict
    data: Callable[[World], dict] | None = None
    # Roles besides the owner whose allowed request may change alice's rows (staff authoring
    # her deck, a member leaving her team, anyone joining by her invite link).
    shares: tuple = ()
    # Text that must not appear in the response of anyone but these roles (default: the owner).
    secrets: Callable[[World], list[str]] | None = None
    seen_by: tuple = ("owner",)
    api: bool = False
    fmt: str = "json"
    notes: str = ""


def P(method, url, expect, data=None, **kw) -> Probe:
    return Probe(method, url, expect, data, **kw)


def A(method, url, expect, data=None, **kw) -> Probe:
    return Probe(method, url, expect, data, api=True, **kw)


def r(name, *args) -> Callable[[World], str]:
    """A URL by name; arguments are world attribute paths ("run.pk") or literals."""

    def build(w: World) -> str:
        values = []
        for arg in args:
            if isinstance(arg, str) and "." in arg and not arg.startswith("/"):
                obj = w
                for part in arg.split("."):
                    obj = obj[part] if isinstance(obj, dict) else getattr(obj, part)
                values.append(obj)
            else:
                values.append(arg)
        return reverse(name, args=values)

    return build


def q(build, query: Callable[[World], str]):
    return lambda w: f"{build(w)}?{query(w)}"


def _private(w: World) -> list[str]:
    return list(PRIVATE)


def _run_link(w: World) -> list[str]:
    return [f"/demos/runs/{w.run.pk}/"]


def _alice_data(w: World) -> list[str]:
    return ['"alice"', DRAFT_TITLE]


def _hidden(w: World) -> list[str]:
    return [HIDDEN_TEST]


def _alice_code(w: World) -> list[str]:
    return [ALICE_CODE]


def _code(w: World) -> dict:
    return {"code": "def add(a, b):\n    return a + b\n", "mode": "submit"}


def _exercise_doc(w: World) -> dict:
    doc = vars(exercise_doc("draft-add", ["quasar"], "drafting"))
    return {**doc, "title": "A retitled draft exercise"}


def _exercise_file(w: World) -> dict:
    return {"deck": "alice-draft", "exercises": [_exercise_doc(w)]}


def _exercise_form(w: World) -> dict:
    doc = _exercise_doc(w)
    form = {k: v for k, v in doc.items() if k not in ("cards", "wrong")}
    form["cards"] = "quasar"
    form["wrong_1_mistake"], form["wrong_1_code"] = (
        doc["wrong"][0]["mistake"],
        doc["wrong"][0]["code"],
    )
    return form


TEAM_SEEN = ("owner", "member")
CSV = b"front,back,section,tags\nWhat is a quasar?,A bright core,drafting,\n"


def _upload(w: World) -> dict:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return {"file": SimpleUploadedFile("cards.csv", CSV, "text/csv"), "deck": "alice-draft"}


def _own(w: World) -> list[str]:
    return [OWN_TITLE, OWN_FRONT]


def _image(w: World) -> dict:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return {"image": SimpleUploadedFile("new.png", png_bytes((9, 9, 9)), "image/png")}


def _own_card_form(w: World) -> dict:
    return {"section": "cards", "slug": "nebula", "kind": "basic", "front": OWN_FRONT,
            "back": "Edited gas.", "why": "", "tags": ""}  # fmt: skip


def _card_form(w: World) -> dict:
    return {"section": "drafting", "slug": "quasar", "front": DRAFT_FRONT, "back": "Edited.",
            "why": "", "tags": ""}  # fmt: skip


def _question_form(w: World) -> dict:
    return {"slug": "draft-q", "kind": "single", "prompt": "Draft prompt?", "explanation": "E",
            "points": "1", "options": "[x] Yes\n[ ] No", "cards": ["quasar"]}  # fmt: skip


# Every named route (namespace:name, or the API's api-* names). Admin pages are covered by the
# "admin" rule below: Django's admin admits active staff only and checks model permissions.
MATRIX: dict[str, list[Probe]] = {
    "home": [P("get", r("home"), PUBLIC, secrets=_private, seen_by=())],
    "healthz": [P("get", r("healthz"), PUBLIC)],
    "service-worker": [P("get", r("service-worker"), PUBLIC)],  # static code, no one's data
    "readyz": [P("get", r("readyz"), E(PROBE, PROBE, PROBE, PROBE, PROBE))],
    "decks:deck": [
        P("get", r("decks:deck", "ray-basics"), PUBLIC),
        P("get", r("decks:deck", "alice-draft"), DRAFT),
    ],
    # a deck's images: to whoever may see the deck (a private deck's: its owner only)
    "decks:media": [
        P("get", lambda w: reverse("decks:media", args=["ray-basics", "ray.png"]), PUBLIC),
        P("get", lambda w: reverse("decks:media", args=["alice-draft", "quasar.png"]), DRAFT),
        P(
            "get",
            lambda w: reverse("decks:media", args=[w.own.slug, "nebula.png"]),
            E(OK, 404, 404, 404, 404),
        ),
    ],  # fmt: skip
    "decks:section": [
        P("get", r("decks:section", "ray-basics", "ray-core"), PUBLIC),
        P("get", r("decks:section", "alice-draft", "drafting"), DRAFT),
    ],
    # accounts
    "accounts:signup": [P("get", r("accounts:signup"), PUBLIC)],
    "accounts:login": [P("get", r("accounts:login"), PUBLIC)],
    "accounts:logout": [P("post", r("accounts:logout"), PUBLIC)],
    # Password reset: public by nature; a bad link says so (200) and changes nothing.
    "accounts:password_reset": [P("get", r("accounts:password_reset"), PUBLIC)],
    "accounts:password_reset_done": [P("get", r("accounts:password_reset_done"), PUBLIC)],
    "accounts:password_reset_confirm": [
        P("get", r("accounts:password_reset_confirm", "MQ", "not-a-token"), PUBLIC)
    ],
    "accounts:password_reset_complete": [P("get", r("accounts:password_reset_complete"), PUBLIC)],
    "accounts:password_change": [P("get", r("accounts:password_change"), SELF)],
    "accounts:password_change_done": [P("get", r("accounts:password_change_done"), SELF)],
    "accounts:profile": [
        P("get", r("accounts:profile"), SELF),
        P(
            "post",
            r("accounts:profile"),
            SELF,
            lambda w: {"time_zone": "UTC", "new_cards_per_day": 5, "reviews_per_day": 50},
        ),
    ],  # fmt: skip
    # A learner's export holds their own data only.
    "accounts:export_json": [P("get", r("accounts:export_json"), SELF, secrets=_alice_data)],
    "accounts:export_csv": [P("get", r("accounts:export_csv"), SELF)],
    # study: each learner's own schedule; a card id names a shared card, never a state
    "study:index": [P("get", r("study:index"), SELF)],
    "study:review": [
        P("get", r("study:review"), SELF),
        P(
            "post",
            r("study:review"),
            SELF,
            lambda w: {"card": w.deck.cards.get(slug="ray-actor").pk, "grade": "4"},
        ),
        P(
            "post",
            r("study:review"),
            DRAFT_SELF,
            lambda w: {"card": w.draft_card.pk, "grade": "4"},
            shares=("staff",),
        ),
    ],  # fmt: skip
    "study:review-deck": [
        P("get", r("study:review-deck", "ray-basics"), SELF),
        P("get", r("study:review-deck", "alice-draft"), DRAFT_SELF),
    ],
    "study:undo": [P("post", r("study:undo"), SELF)],
    "study:learn-more": [
        P("post", r("study:learn-more"), SELF, lambda w: {"count": "5", "deck": "ray-basics"}),
        P(
            "post",
            r("study:learn-more"),
            DRAFT_SELF,
            lambda w: {"count": "5", "deck": "alice-draft"},
        ),
    ],
    "study:cram": [
        P("get", r("study:cram", "ray-basics"), SELF),
        P("get", r("study:cram", "alice-draft"), DRAFT_SELF),
    ],
    "study:stats": [P("get", r("study:stats"), SELF)],
    # GET only: the plan's cards are graded in the one queue (study:review)
    "study:plan": [P("get", r("study:plan"), SELF)],
    "study:suspend": [
        P("post", r("study:suspend", "card.pk"), SELF),
        P("post", r("study:suspend", "draft_card.pk"), DRAFT_SELF),
    ],
    # the card browser lists visible cards with the caller's own schedule
    "study:browse": [P("get", r("study:browse"), SELF)],
    "study:browse-card": [
        P("get", r("study:browse-card", "card.pk"), SELF),
        P("get", r("study:browse-card", "draft_card.pk"), DRAFT_SELF),
        P("get", r("study:browse-card", "own_card.pk"), OWN),
    ],
    # the browser's bulk actions touch the caller's own schedule, of cards the caller may see
    "study:browse-bulk": [
        P(
            "post",
            r("study:browse-bulk"),
            SELF,
            lambda w: {"action": "suspend", "cards": [w.card.pk, w.own_card.pk, w.draft_card.pk]},
        ),
        P(
            "post",
            r("study:browse-bulk"),
            SELF,
            lambda w: {"action": "forget", "cards": [w.card.pk, w.own_card.pk]},
        ),
    ],  # fmt: skip
    "study:typed": [
        P("post", r("study:typed", "card.pk"), SELF, lambda w: {"typed": "a task"}),
        P("post", r("study:typed", "own_card.pk"), OWN, lambda w: {"typed": "gas"}),
        P("post", r("study:typed", "draft_card.pk"), DRAFT_SELF, lambda w: {"typed": "x"}),
    ],
    # my cards: a learner's private decks are theirs alone (404 for anyone else, staff included)
    "mine:index": [P("get", r("mine:index"), SELF, secrets=_own)],
    "mine:deck-create": [P("post", r("mine:deck-create"), SELF, lambda w: {"title": "Another"})],
    "mine:deck": [
        P("get", r("mine:deck", "own.slug"), OWN, secrets=_own),
        P("post", r("mine:deck", "own.slug"), OWN, lambda w: {"title": "Renamed"}),
    ],
    "mine:deck-delete": [
        P("post", r("mine:deck-delete", "own.slug"), OWN, lambda w: {"confirm": "on"})
    ],
    "mine:card-new": [
        P("get", r("mine:card-new", "own.slug"), OWN),
        P(
            "post",
            r("mine:card-new", "own.slug"),
            OWN,
            lambda w: {"kind": "basic", "front": "Pulsar?", "back": "A star."},
        ),
    ],  # fmt: skip
    "mine:import": [
        P("get", r("mine:import", "own.slug"), OWN),
        P("post", r("mine:import", "own.slug"), OWN, _upload),
    ],
    "mine:export": [
        P("get", r("mine:export", "own.slug", fmt), OWN, secrets=_own) for fmt in ("csv", "apkg")
    ],
    "mine:media-upload": [P("post", r("mine:media-upload", "own.slug"), OWN, _image)],
    "mine:card": [
        P("get", r("mine:card", "own_card.pk"), OWN, secrets=_own),
        P("post", r("mine:card", "own_card.pk"), OWN, _own_card_form),
    ],
    "mine:card-retire": [P("post", r("mine:card-retire", "own_card.pk"), OWN)],
    "mine:card-history": [P("get", r("mine:card-history", "own_card.pk"), OWN, secrets=_own)],
    "mine:revision-restore": [P("post", r("mine:revision-restore", "own_revision.pk"), OWN)],
    # tags and moves only the caller's own cards: anyone may ask, nobody changes alice's
    "mine:cards-bulk": [
        P(
            "post",
            r("mine:cards-bulk"),
            SELF,
            lambda w: {"action": "tag", "cards": [w.own_card.pk, w.card.pk], "tag": "t"},
        ),
        P(
            "post",
            r("mine:cards-bulk"),
            SELF,
            lambda w: {"action": "move", "cards": [w.own_card.pk], "deck": w.own.slug},
        ),
    ],  # fmt: skip
    # E on the review page: the owner's card opens its editor; a card anyone may see, "suggest
    # an edit"; a draft's card, only for staff
    "mine:review-edit": [
        P("get", r("mine:review-edit", "own_card.pk"), OWN, secrets=_own),
        P("get", r("mine:review-edit", "card.pk"), SELF),
        P("get", r("mine:review-edit", "draft_card.pk"), DRAFT_SELF),
    ],
    "mine:suggest": [
        P(
            "post",
            r("mine:suggest", "card.pk"),
            SELF,
            lambda w: {"front": "What is a Ray task?", "back": "A remote call.", "note": "n"},
        ),
        P(
            "post",
            r("mine:suggest", "own_card.pk"),
            E(404, 404, 404, 404, LOGIN),
            lambda w: {"front": "x", "note": "n"},
            notes="one's own card is edited, not suggested",
        ),
        P(
            "post",
            r("mine:suggest", "draft_card.pk"),
            DRAFT_SELF,
            lambda w: {"front": "x", "note": "n"},
            shares=("staff",),
        ),
    ],  # fmt: skip
    # quizzes: an attempt is its learner's only
    "quizzes:index": [P("get", r("quizzes:index"), PUBLIC)],
    "quizzes:quiz": [
        P("get", r("quizzes:quiz", "core-check"), PUBLIC),
        P("get", r("quizzes:quiz", "draft-check"), DRAFT),
    ],
    "quizzes:start": [
        P("post", r("quizzes:start", "core-check"), SELF),
        P("post", r("quizzes:start", "draft-check"), DRAFT_SELF),
    ],
    "quizzes:attempt": [
        P("get", r("quizzes:attempt", "attempt.pk"), OWN),
        P("get", r("quizzes:attempt", "open_attempt.pk"), OWN),
        P("post", r("quizzes:attempt", "open_attempt.pk"), OWN),
    ],
    "quizzes:attempt-save": [P("post", r("quizzes:attempt-save", "open_attempt.pk"), OWN)],
    "quizzes:review": [P("post", r("quizzes:review", "attempt.pk"), OWN)],
    "quizzes:checkpoint-check": [
        P(
            "post",
            lambda w: reverse(
                "quizzes:checkpoint-check",
                args=["core-checkpoint", w.checkpoint.questions.get().key],
            ),
            PUBLIC,
        ),
        P(
            "post",
            lambda w: reverse(
                "quizzes:checkpoint-check", args=["draft-check", w.draft_question.key]
            ),
            E(404, 404, 404, 404, 404),
            notes="not a checkpoint: knowledge checks are never checked inline",
        ),
    ],  # fmt: skip
    # demos: a run is its learner's only
    "demos:index": [P("get", r("demos:index"), PUBLIC)],
    "demos:demo": [
        P("get", r("demos:demo", "tasks-vs-actors"), PUBLIC, secrets=_run_link),
        P("post", r("demos:demo", "tasks-vs-actors"), SELF),
    ],
    "demos:runs": [P("get", r("demos:runs"), SELF, secrets=_run_link)],
    "demos:run": [P("get", r("demos:run", "run.pk"), OWN)],
    "demos:cancel": [P("post", r("demos:cancel", "run.pk"), OWN)],
    # exercises: a submission is its learner's only; hidden tests reach no page of a learner
    "exercises:index": [P("get", r("exercises:index"), PUBLIC)],
    "exercises:exercise": [
        P("get", r("exercises:exercise", "core-add"), PUBLIC, secrets=_hidden, seen_by=()),
        P("post", r("exercises:exercise", "core-add"), SELF, _code),
        P("get", r("exercises:exercise", "draft-add"), DRAFT),
    ],
    "exercises:submission": [
        P("get", r("exercises:submission", "submission.pk"), OWN, secrets=_alice_code)
    ],
    "demos:compare": [P("get", q(r("demos:compare"), lambda w: f"a={w.run.pk}&b={w.run.pk}"), OWN)],
    # teams (tests/teams/test_access.py covers hidden members and the 403 wording)
    "teams:index": [
        P("get", r("teams:index"), SELF, secrets=lambda w: [TEAM_NAME], seen_by=TEAM_SEEN)
    ],
    # An invite link shows its team to whoever holds it: that is what the link is for.
    "teams:join": [
        P("get", r("teams:join", "invite.token"), SELF),
        P("post", r("teams:join", "invite.token"), SELF, shares=("stranger", "staff")),
        P(
            "get",
            r("teams:join", "not-a-token"),
            E(410, 410, 410, 410, LOGIN),
            secrets=lambda w: [TEAM_NAME],
            seen_by=(),
        ),
    ],
    "teams:dashboard": [P("get", r("teams:dashboard", "team.slug"), TEAM)],
    "teams:export": [P("get", r("teams:export", "team.slug"), TEAM)],
    "teams:manage": [
        P("get", r("teams:manage", "team.slug"), MANAGE),
        P(
            "post",
            r("teams:manage", "team.slug"),
            MANAGE,
            lambda w: {"uses": "single", "expires_in_days": "7"},
        ),
    ],  # fmt: skip
    "teams:invite-revoke": [P("post", r("teams:invite-revoke", "team.slug", "invite.pk"), MANAGE)],
    "teams:member-remove": [
        P(
            "post",
            r("teams:member-remove", "team.slug", "users.charlie.pk"),
            MANAGE,
            notes="charlie may not remove himself here: leaving is teams:leave",
        )
    ],
    "teams:ownership-transfer": [
        P("post", r("teams:ownership-transfer", "team.slug", "users.charlie.pk"), MANAGE)
    ],
    "teams:leave": [P("post", r("teams:leave", "team.slug"), TEAM, shares=("member",))],
    "teams:privacy": [P("post", r("teams:privacy", "team.slug"), TEAM, shares=("member",))],
    "teams:delete": [P("post", r("teams:delete", "team.slug"), MANAGE)],
    # authoring: alice authors alice-draft; staff author everything
    "authoring:index": [P("get", r("authoring:index"), AUTHOR, shares=("staff",))],
    "authoring:deck-create": [
        P("post", r("authoring:deck-create"), STAFF_ONLY, lambda w: {"slug": "new", "title": "N"})
    ],
    # The preview renders what the caller sends (learners write their own cards too); a deck's
    # images only for a deck the caller may edit.
    "authoring:preview": [
        P("post", r("authoring:preview"), SELF, lambda w: {"front": "*hi*"}),
        P(
            "post",
            r("authoring:preview"),
            SELF,
            lambda w: {"front": "![](<media:nebula.png>)", "preview_deck": w.own.slug},
            secrets=lambda w: [f"/decks/{w.own.slug}/media/"],
        ),
    ],
    "authoring:media-upload": [
        P("post", r("authoring:media-upload", "alice-draft"), AUTHOR, _image, shares=("staff",))
    ],
    "authoring:suggestions": [
        P(
            "get",
            r("authoring:suggestions"),
            AUTHOR,
            secrets=lambda w: ["An edited draft answer."],
            seen_by=("owner", "staff"),
        )
    ],  # fmt: skip
    "authoring:suggestion-decide": [
        P(
            "post",
            r("authoring:suggestion-decide", "suggestion.pk"),
            AUTHOR,
            lambda w: {"decision": "reject", "reply": "no"},
            shares=("staff",),
        )
    ],
    "authoring:import": [
        P("get", r("authoring:import"), AUTHOR),
        P("post", r("authoring:import"), AUTHOR, _upload, shares=("staff",)),
    ],
    # An import job is its uploader's alone: other authors (staff included) get 404.
    "authoring:import-job": [
        P("get", r("authoring:import-job", "import_job.pk"), E(OK, 404, 404, 404, LOGIN))
    ],
    "authoring:import-job-commit": [
        P("post", r("authoring:import-job-commit", "import_job.pk"), E(OK, 404, 404, 404, LOGIN))
    ],
    "authoring:deck": [
        P("get", r("authoring:deck", "alice-draft"), AUTHOR),
        P(
            "post",
            r("authoring:deck", "alice-draft"),
            AUTHOR,
            lambda w: {"title": "Renamed", "description": "", "objectives": "One"},
            shares=("staff",),
        ),
    ],  # fmt: skip
    "authoring:deck-publish": [
        P(
            "post",
            r("authoring:deck-publish", "alice-draft"),
            AUTHOR,
            lambda w: {"publish": "1"},
            shares=("staff",),
        )
    ],
    "authoring:deck-authors": [
        P(
            "post",
            r("authoring:deck-authors", "alice-draft"),
            STAFF_ONLY,
            lambda w: {"username": "bob"},
            shares=("staff",),
        )
    ],
    "authoring:section-create": [
        P(
            "post",
            r("authoring:section-create", "alice-draft"),
            AUTHOR,
            lambda w: {"slug": "tune", "title": "Tune"},
            shares=("staff",),
        )
    ],
    "authoring:card-new": [
        P("get", r("authoring:card-new", "alice-draft"), AUTHOR),
        P(
            "post",
            r("authoring:card-new", "alice-draft"),
            AUTHOR,
            lambda w: {"section": "drafting", "slug": "nova", "front": "F", "back": "B"},
            shares=("staff",),
        ),
    ],
    "authoring:export": [
        P("get", r("authoring:export", "alice-draft", fmt), AUTHOR)
        for fmt in ("yaml", "json", "csv", "apkg")
    ],
    "authoring:section": [
        P("get", r("authoring:section", "draft_section.pk"), AUTHOR),
        P(
            "post",
            r("authoring:section", "draft_section.pk"),
            AUTHOR,
            lambda w: {"slug": "drafting", "title": "Renamed", "summary": ""},
            shares=("staff",),
        ),
    ],
    "authoring:section-move": [
        P(
            "post",
            r("authoring:section-move", "draft_section.pk"),
            AUTHOR,
            lambda w: {"direction": "down"},
            shares=("staff",),
        )
    ],
    "authoring:card": [
        # a private deck's card is not on the author pages, for staff either
        P("get", r("authoring:card", "own_card.pk"), E(404, 403, 403, 404, LOGIN)),
        P("get", r("authoring:card", "draft_card.pk"), AUTHOR),
        P("post", r("authoring:card", "draft_card.pk"), AUTHOR, _card_form, shares=("staff",)),
    ],
    "authoring:card-move": [
        P(
            "post",
            r("authoring:card-move", "draft_card.pk"),
            AUTHOR,
            lambda w: {"direction": "down"},
            shares=("staff",),
        )
    ],
    "authoring:card-delete": [
        P("post", r("authoring:card-delete", "draft_card.pk"), AUTHOR, shares=("staff",))
    ],
    "authoring:card-history": [P("get", r("authoring:card-history", "draft_card.pk"), AUTHOR)],
    "authoring:revision-restore": [
        P("post", r("authoring:revision-restore", "revision.pk"), AUTHOR, shares=("staff",))
    ],
    "authoring:quiz-create": [
        P(
            "post",
            r("authoring:quiz-create", "alice-draft"),
            AUTHOR,
            lambda w: {
                "slug": "new-check",
                "title": "New",
                "kind": "knowledge_check",
                "pass_percent": "70",
            },
            shares=("staff",),
        )
    ],  # fmt: skip
    "authoring:quiz": [
        P("get", r("authoring:quiz", "draft-check"), AUTHOR),
        P(
            "post",
            r("authoring:quiz", "draft-check"),
            AUTHOR,
            lambda w: {
                "slug": "draft-check",
                "title": "Renamed",
                "kind": "knowledge_check",
                "pass_percent": "80",
            },
            shares=("staff",),
        ),
    ],  # fmt: skip
    "authoring:question-new": [
        P("get", r("authoring:question-new", "draft-check"), AUTHOR),
        P(
            "post",
            r("authoring:question-new", "draft-check"),
            AUTHOR,
            lambda w: {**_question_form(w), "slug": "draft-q3"},
            shares=("staff",),
        ),
    ],
    "authoring:question": [
        P("get", r("authoring:question", "draft_question.pk"), AUTHOR),
        P(
            "post",
            r("authoring:question", "draft_question.pk"),
            AUTHOR,
            _question_form,
            shares=("staff",),
        ),
    ],
    "authoring:question-move": [
        P(
            "post",
            r("authoring:question-move", "draft_question.pk"),
            AUTHOR,
            lambda w: {"direction": "down"},
            shares=("staff",),
        )
    ],
    "authoring:question-history": [
        P("get", r("authoring:question-history", "draft_question.pk"), AUTHOR)
    ],
    "authoring:exercises": [P("get", r("authoring:exercises", "alice-draft"), AUTHOR)],
    "authoring:exercise-new": [P("get", r("authoring:exercise-new", "alice-draft"), AUTHOR)],
    "authoring:exercise": [
        P(
            "get",
            r("authoring:exercise", "draft-add"),
            AUTHOR,
            secrets=_hidden,
            seen_by=("owner", "staff"),
        ),
        P("post", r("authoring:exercise", "draft-add"), AUTHOR, _exercise_form, shares=("staff",)),
    ],
    "authoring:exercise-recheck": [
        P(
            "post",
            r("authoring:exercise-recheck", "draft_exercise.current.pk"),
            AUTHOR,
            shares=("staff",),
        )
    ],
    "authoring:exercise-restore": [
        P(
            "post",
            r("authoring:exercise-restore", "draft_exercise.current.pk"),
            AUTHOR,
            shares=("staff",),
        )
    ],
    "authoring:exercise-import": [
        P("post", r("authoring:exercise-import", "alice-draft"), AUTHOR, shares=("staff",))
    ],
    "authoring:exercise-import-batch": [
        P("get", r("authoring:exercise-import-batch", "draft_exercise.current.batch"), AUTHOR)
    ],
    "authoring:exercise-export": [
        P("get", r("authoring:exercise-export", "alice-draft", "json"), AUTHOR)
    ],
    "authoring:question-delete": [
        P("post", r("authoring:question-delete", "draft_question.pk"), AUTHOR, shares=("staff",))
    ],
    # API: decks
    "api-deck-list": [
        A("get", r("api-deck-list"), A_PUBLIC, secrets=lambda w: [DRAFT_TITLE], seen_by=("staff",)),
        A("get", r("api-deck-list"), A_PUBLIC, secrets=lambda w: [OWN_TITLE]),  # hers alone
    ],
    "api-deck-detail": [
        A("get", r("api-deck-detail", "ray-basics"), A_PUBLIC),
        A("get", r("api-deck-detail", "alice-draft"), A_DRAFT),
        A("get", r("api-deck-detail", "own.slug"), E(OK, 404, 404, 404, 404), secrets=_own),
    ],
    # API: study
    "api-study-device-pack": [A("get", r("api-study-device-pack"), A_SELF)],  # one's own pack
    "api-study-queue": [
        A("get", r("api-study-queue"), A_SELF),
        A("get", q(r("api-study-queue"), lambda w: "deck=alice-draft"), A_DRAFT_SELF),
        A("get", q(r("api-study-queue"), lambda w: f"deck={w.own.slug}"), A_OWN, secrets=_own),
    ],
    "api-review-create": [
        A(
            "post",
            r("api-review-create"),
            A_SELF,
            lambda w: {"card": w.deck.cards.get(slug="ray-actor").pk, "grade": 4},
        ),
        # A card of a draft is no card at all to a learner: 400 "no card with id", as for any
        # unknown id (the body names only the id the caller sent).
        A(
            "post",
            r("api-review-create"),
            E(400, 400, 400, OK, DENY),
            lambda w: {"card": w.draft_card.pk, "grade": 4},
            shares=("staff",),
        ),
    ],  # fmt: skip
    "api-review-undo": [A("post", r("api-review-undo"), E(OK, 409, 409, 409, DENY))],
    "api-card-state": [
        A("get", r("api-card-state", "card.pk"), A_SELF),
        A("get", r("api-card-state", "draft_card.pk"), A_DRAFT_SELF),
        A("get", r("api-card-state", "own_card.pk"), A_OWN),
        A("patch", r("api-card-state", "card.pk"), A_SELF, lambda w: {"suspended": True}),
        A("patch", r("api-card-state", "own_card.pk"), A_OWN, lambda w: {"suspended": True}),
        A(
            "patch",
            r("api-card-state", "draft_card.pk"),
            A_DRAFT_SELF,
            lambda w: {"suspended": True},
        ),  # fmt: skip
    ],
    "api-card-search": [
        A("get", r("api-card-search"), A_SELF),
        A("get", q(r("api-card-search"), lambda w: "q=nebula"), A_SELF, secrets=_own),
    ],
    # API: quizzes
    "api-quiz-list": [A("get", r("api-quiz-list"), A_PUBLIC)],
    "api-quiz-detail": [
        A("get", r("api-quiz-detail", "core-check"), A_PUBLIC),
        A("get", r("api-quiz-detail", "final-check"), A_PUBLIC),  # starts the caller's own clock
        A("get", r("api-quiz-detail", "draft-check"), A_DRAFT),
    ],
    "api-quiz-attempts": [
        A("post", r("api-quiz-attempts", "core-check"), A_SELF, lambda w: {"answers": {}}),
        A("post", r("api-quiz-attempts", "draft-check"), A_DRAFT_SELF, lambda w: {"answers": {}}),
    ],
    # API: demos
    "api-demos": [A("get", r("api-demos"), A_PUBLIC)],
    "api-demo-runs": [
        A("post", r("api-demo-runs"), A_SELF, lambda w: {"demo": "tasks-vs-actors", "params": {}})
    ],
    "api-demo-run": [A("get", r("api-demo-run", "run.pk"), A_OWN)],
    "api-demo-run-cancel": [A("post", r("api-demo-run-cancel", "run.pk"), A_OWN)],
    # API: exercises (the hidden tests and the reference reach nobody through them)
    "api-exercise-list": [A("get", r("api-exercise-list"), A_PUBLIC)],
    "api-exercise-due": [A("get", r("api-exercise-due"), A_SELF)],
    "api-exercise-detail": [
        A("get", r("api-exercise-detail", "core-add"), A_PUBLIC, secrets=_hidden, seen_by=()),
        A("get", r("api-exercise-detail", "draft-add"), A_DRAFT),
    ],
    "api-exercise-submissions": [
        A("post", r("api-exercise-submissions", "core-add"), A_SELF, _code),
        A("post", r("api-exercise-submissions", "draft-add"), A_DRAFT_SELF, _code),
    ],
    "api-exercise-submission": [
        A("get", r("api-exercise-submission", "submission.pk"), A_OWN, secrets=_alice_code)
    ],
    # API: teams
    "api-team-list": [
        A("get", r("api-team-list"), A_SELF, secrets=lambda w: [TEAM_NAME], seen_by=TEAM_SEEN),
        A("post", r("api-team-list"), A_SELF, lambda w: {"name": "Another team"}),
    ],
    "api-team-join": [
        A(
            "post",
            r("api-team-join"),
            E(409, OK, 409, OK, DENY),
            lambda w: {"token": w.invite.token},
            shares=("stranger", "staff"),
        ),
    ],  # fmt: skip
    "api-team-progress": [A("get", r("api-team-progress", "team.slug"), A_TEAM)],
    "api-team-invites": [A("post", r("api-team-invites", "team.slug"), A_MANAGE, lambda w: {})],
    "api-team-member": [
        # charlie removing himself is leaving, which any member may do.
        A(
            "delete",
            r("api-team-member", "team.slug", "users.charlie.pk"),
            E(OK, 404, OK, 404, DENY),
            shares=("member",),
        ),
        # The owner's own id: the last owner cannot leave (400); anyone else is refused as above.
        A(
            "delete",
            r("api-team-member", "team.slug", "users.alice.pk"),
            E(400, 404, 403, 404, DENY),
        ),
    ],  # fmt: skip
    # API: authoring
    "api-author-decks": [
        A("get", r("api-author-decks"), A_AUTHOR),
        A("post", r("api-author-decks"), A_STAFF_ONLY, lambda w: {"slug": "new", "title": "N"}),
    ],
    "api-author-deck": [
        A("get", r("api-author-deck", "alice-draft"), A_AUTHOR),
        A(
            "patch",
            r("api-author-deck", "alice-draft"),
            A_AUTHOR,
            lambda w: {"title": "Renamed"},
            shares=("staff",),
        ),
        A(
            "put",
            r("api-author-deck", "alice-draft"),
            A_AUTHOR,
            lambda w: {"slug": "alice-draft", "title": "Renamed"},
            shares=("staff",),
        ),
        A("delete", r("api-author-deck", "alice-draft"), A_STAFF_ONLY, shares=("staff",)),
    ],
    "api-author-sections": [
        A("get", r("api-author-sections", "alice-draft"), A_AUTHOR),
        A(
            "post",
            r("api-author-sections", "alice-draft"),
            A_AUTHOR,
            lambda w: {"slug": "tune", "title": "Tune"},
            shares=("staff",),
        ),
    ],
    "api-author-cards": [
        A("get", r("api-author-cards", "alice-draft"), A_AUTHOR),
        A(
            "post",
            r("api-author-cards", "alice-draft"),
            A_AUTHOR,
            lambda w: {"section": "drafting", "slug": "nova", "front": "F", "back": "B"},
            shares=("staff",),
        ),
    ],
    "api-author-quizzes": [
        A("get", r("api-author-quizzes", "alice-draft"), A_AUTHOR),
        A(
            "post",
            r("api-author-quizzes", "alice-draft"),
            A_AUTHOR,
            lambda w: {"slug": "another", "title": "Another", "kind": "knowledge_check"},
            shares=("staff",),
        ),
    ],
    "api-author-export": [
        A("get", r("api-author-export", "alice-draft", fmt), A_AUTHOR)
        for fmt in ("yaml", "json", "csv", "apkg")
    ],
    "api-author-section": [
        A("get", r("api-author-section", "draft_section.pk"), A_AUTHOR),
        A(
            "patch",
            r("api-author-section", "draft_section.pk"),
            A_AUTHOR,
            lambda w: {"title": "Renamed"},
            shares=("staff",),
        ),
        A(
            "put",
            r("api-author-section", "draft_section.pk"),
            A_AUTHOR,
            lambda w: {"slug": "drafting", "title": "Renamed"},
            shares=("staff",),
        ),
        A("delete", r("api-author-section", "draft_empty_section.pk"), A_AUTHOR, shares=("staff",)),
    ],
    "api-author-section-move": [
        A(
            "post",
            r("api-author-section-move", "draft_section.pk"),
            A_AUTHOR,
            lambda w: {"direction": "down"},
            shares=("staff",),
        )
    ],
    "api-author-card": [
        A("get", r("api-author-card", "draft_card.pk"), A_AUTHOR),
        A(
            "patch",
            r("api-author-card", "draft_card.pk"),
            A_AUTHOR,
            lambda w: {"back": "Edited"},
            shares=("staff",),
        ),
        A(
            "put",
            r("api-author-card", "draft_card.pk"),
            A_AUTHOR,
            lambda w: {"section": "drafting", "slug": "quasar", "front": "F", "back": "B"},
            shares=("staff",),
        ),
        A("delete", r("api-author-card", "draft_card.pk"), A_AUTHOR, shares=("staff",)),
    ],
    "api-author-card-move": [
        A(
            "post",
            r("api-author-card-move", "draft_card.pk"),
            A_AUTHOR,
            lambda w: {"direction": "down"},
            shares=("staff",),
        )
    ],
    "api-author-card-revisions": [
        A("get", r("api-author-card-revisions", "draft_card.pk"), A_AUTHOR)
    ],
    "api-author-revision-restore": [
        A(
            "post",
            r("api-author-revision-restore", "revision.pk"),
            A_AUTHOR,
            lambda w: {},
            shares=("staff",),
        )
    ],
    "api-author-quiz": [
        A("get", r("api-author-quiz", "draft-check"), A_AUTHOR),
        A(
            "patch",
            r("api-author-quiz", "draft-check"),
            A_AUTHOR,
            lambda w: {"title": "Renamed"},
            shares=("staff",),
        ),
        A(
            "put",
            r("api-author-quiz", "draft-check"),
            A_AUTHOR,
            lambda w: {"slug": "draft-check", "title": "Renamed", "kind": "knowledge_check"},
            shares=("staff",),
        ),
        A("delete", r("api-author-quiz", "draft-check"), A_AUTHOR, shares=("staff",)),
    ],
    "api-author-questions": [
        A("get", r("api-author-questions", "draft-check"), A_AUTHOR),
        A(
            "post",
            r("api-author-questions", "draft-check"),
            A_AUTHOR,
            lambda w: {
                "slug": "q3",
                "kind": "true_false",
                "prompt": "P",
                "explanation": "E",
                "cards": ["quasar"],
                "statements": [{"text": "S", "answer": False}],
            },
            shares=("staff",),
        ),
    ],  # fmt: skip
    "api-author-question": [
        A("get", r("api-author-question", "draft_question.pk"), A_AUTHOR),
        A(
            "patch",
            r("api-author-question", "draft_question.pk"),
            A_AUTHOR,
            lambda w: {"points": 2},
            shares=("staff",),
        ),
        A(
            "put",
            r("api-author-question", "draft_question.pk"),
            A_AUTHOR,
            lambda w: {
                "slug": "draft-q",
                "kind": "single",
                "prompt": "P",
                "explanation": "E",
                "cards": ["quasar"],
                "choices": [{"text": "Yes", "correct": True}, {"text": "No"}],
            },
            shares=("staff",),
        ),
        A("delete", r("api-author-question", "draft_question.pk"), A_AUTHOR, shares=("staff",)),
    ],  # fmt: skip
    "api-author-question-revisions": [
        A("get", r("api-author-question-revisions", "draft_question.pk"), A_AUTHOR)
    ],
    "api-author-import": [
        A(
            "post",
            q(r("api-author-import"), lambda w: "dry_run=1"),
            A_AUTHOR,
            _upload,
            fmt="multipart",
        ),
        A("post", r("api-author-import"), A_AUTHOR, _upload, fmt="multipart", shares=("staff",)),
    ],
    "api-author-import-jobs": [
        A(
            "post",
            q(r("api-author-import-jobs"), lambda w: "dry_run=1"),
            A_AUTHOR,
            _upload,
            fmt="multipart",
        ),
    ],
    # A job is its uploader's alone: other authors (staff included) get 404.
    # API: a learner's own decks (/api/my/): each on their own only, another's is 404
    "api-my-decks": [
        A("get", r("api-my-decks"), A_SELF, secrets=_own),
        A("post", r("api-my-decks"), A_SELF, lambda w: {"title": "Another"}),
    ],
    "api-my-deck": [
        A("get", r("api-my-deck", "own.slug"), A_OWN, secrets=_own),
        A("patch", r("api-my-deck", "own.slug"), A_OWN, lambda w: {"title": "Renamed"}),
        A("delete", q(r("api-my-deck", "own.slug"), lambda w: f"confirm={w.own.slug}"), A_OWN),
    ],
    "api-my-cards": [
        A("get", r("api-my-cards", "own.slug"), A_OWN, secrets=_own),
        A(
            "post",
            r("api-my-cards", "own.slug"),
            A_OWN,
            lambda w: {"front": "What is a pulsar?", "back": "A spinning star."},
        ),
    ],
    "api-my-card": [
        A("get", r("api-my-card", "own_card.pk"), A_OWN, secrets=_own),
        A("patch", r("api-my-card", "own_card.pk"), A_OWN, lambda w: {"back": "Edited gas."}),
        A("delete", r("api-my-card", "own_card.pk"), A_OWN),
    ],
    "api-my-card-revisions": [
        A("get", r("api-my-card-revisions", "own_card.pk"), A_OWN, secrets=_own)
    ],
    "api-my-restore": [A("post", r("api-my-restore", "own_revision.pk"), A_OWN, lambda w: {})],
    "api-my-media": [A("post", r("api-my-media", "own.slug"), A_OWN, _image, fmt="multipart")],
    "api-my-import": [A("post", r("api-my-import", "own.slug"), A_OWN, _upload, fmt="multipart")],
    "api-my-export": [
        A("get", r("api-my-export", "own.slug", fmt), A_OWN, secrets=_own)
        for fmt in ("csv", "apkg")
    ],
    "api-my-import-job": [A("get", r("api-my-import-job", "import_job.pk"), A_OWN)],
    "api-my-usage": [A("get", r("api-my-usage"), A_SELF)],
    # the browser's bulk actions: anyone may ask; only the caller's schedule and own cards change
    "api-cards-bulk": [
        A(
            "post",
            r("api-cards-bulk"),
            A_SELF,
            lambda w: {"action": "suspend", "cards": [w.card.pk, w.own_card.pk, w.draft_card.pk]},
        ),
        A(
            "post",
            r("api-cards-bulk"),
            A_SELF,
            lambda w: {"action": "forget", "cards": [w.card.pk, w.own_card.pk]},
        ),
        A(
            "post",
            r("api-cards-bulk"),
            A_SELF,
            lambda w: {"action": "tag", "cards": [w.own_card.pk, w.card.pk], "tag": "t"},
        ),
        # into alice's deck: anyone else is told to choose a deck of their own, as for a deck
        # that does not exist
        A(
            "post",
            r("api-cards-bulk"),
            E(OK, 400, 400, 400, DENY),
            lambda w: {"action": "move", "cards": [w.own_card.pk], "deck": w.own.slug},
        ),
    ],  # fmt: skip
    "api-author-import-job": [
        A("get", r("api-author-import-job", "import_job.pk"), E(OK, 403, 403, 404, DENY))
    ],
    "api-author-exercises": [
        A("get", r("api-author-exercises", "alice-draft"), A_AUTHOR),
        A(
            "post",
            r("api-author-exercises", "alice-draft"),
            A_AUTHOR,
            _exercise_doc,
            fmt="json",
            shares=("staff",),
        ),
    ],
    "api-author-exercise": [
        A(
            "get",
            r("api-author-exercise", "draft-add"),
            A_AUTHOR,
            secrets=_hidden,
            seen_by=("owner", "staff"),
        ),
        A(
            "put",
            r("api-author-exercise", "draft-add"),
            A_AUTHOR,
            _exercise_doc,
            fmt="json",
            shares=("staff",),
        ),
    ],
    "api-author-exercise-import": [
        A(
            "post",
            r("api-author-exercise-import", "alice-draft"),
            A_AUTHOR,
            _exercise_file,
            fmt="json",
            shares=("staff",),
        ),
    ],
    "api-author-exercise-revision-restore": [
        A(
            "post",
            r("api-author-exercise-revision-restore", "draft_exercise.current.pk"),
            A_AUTHOR,
            shares=("staff",),
        )
    ],
    "api-author-exercise-import-batch": [
        A("get", r("api-author-exercise-import-batch", "draft_exercise.current.batch"), A_AUTHOR)
    ],
    "api-author-exercise-export": [
        A("get", r("api-author-exercise-export", "alice-draft", "yaml"), A_AUTHOR)
    ],
    "api-author-preview": [
        A("post", r("api-author-preview"), A_AUTHOR, lambda w: {"text": "*hi*"})
    ],
    "api-export-json": [A("get", r("api-export-json"), A_SELF, secrets=_alice_data)],
    "api-export-zip": [A("get", r("api-export-zip"), A_SELF)],
    # nobody in the world has an interview date, so every signed-in caller gets 404 "no plan";
    # a plan is only ever the caller's own (tests/interview/test_interview_mode.py)
    "api-study-plan": [A("get", r("api-study-plan"), E(404, 404, 404, 404, DENY))],
    "api-profile": [
        A("get", r("api-profile"), A_SELF),
        A("patch", r("api-profile"), A_SELF, lambda w: {"target_recall": 80}),
    ],
    # the caller's own token: made for whoever asks, never anyone else's
    "api-auth-token": [
        A("post", r("api-auth-token"), A_SELF, lambda w: {}),
        A("delete", r("api-auth-token"), A_SELF),
    ],
    "api-schema": [A("get", r("api-schema"), A_PUBLIC)],
    "api-docs": [A("get", r("api-docs"), A_PUBLIC)],
}


def _routes(patterns, prefix="", namespace=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            ns = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern), ns)
        elif isinstance(pattern, URLPattern):
            route = prefix + str(pattern.pattern)
            yield route, f"{namespace}{pattern.name}" if pattern.name else route


def all_routes() -> dict[str, str]:
    """name -> route for every URL pattern, admin's own pages aside."""
    return {name: route for route, name in _routes(get_resolver().url_patterns)
            if not route.startswith("admin/")}  # fmt: skip


def test_every_route_is_classified():
    routes = all_routes()
    missing = sorted(f"{name} ({route})" for name, route in routes.items() if name not in MATRIX)
    assert not missing, (
        "Routes with no entry in tests/access/test_matrix.py MATRIX: say who may use them: "
        + ", ".join(missing)
    )
    stale = sorted(set(MATRIX) - set(routes))
    assert not stale, f"MATRIX entries for routes that no longer exist: {stale}"


OURS = {"accounts", "decks", "study", "practice", "interview", "quizzes", "demos", "teams",
        "authoring", "authtoken", "exercises"}  # fmt: skip


def _rows(model, **filters) -> list[tuple]:
    fields = [f.attname for f in model._meta.concrete_fields if f.attname != "last_login"]
    return list(model.objects.filter(**filters).order_by("pk").values_list(*fields))


def snapshot() -> dict:
    """Every row of every model of ours (and users): a refused request must change none."""
    models = [m for m in apps.get_models() if m._meta.app_label in OURS]
    return {m._meta.label: _rows(m) for m in [*models, get_user_model()]}


def alice_rows(w: World) -> dict:
    """alice's rows: nobody else's request may change them (bar the probe's `shares`)."""
    from apps.authoring.models import DeckAuthor, EditSuggestion, Revision
    from apps.decks.models import Card, Deck, Media, Section
    from apps.demos.models import DemoRun
    from apps.quizzes.models import Attempt, Question, Quiz
    from apps.study.models import CardState, ReviewLog
    from apps.teams.models import Invite, Membership, Team

    alice = w.users["alice"]
    return {
        "states": _rows(CardState, user=alice),
        "reviews": _rows(ReviewLog, user=alice),
        "attempts": _rows(Attempt, user=alice),
        "runs": _rows(DemoRun, user=alice),
        "team": _rows(Team, pk=w.team.pk),
        "memberships": _rows(Membership, team=w.team),
        "invites": _rows(Invite, team=w.team),
        "draft": _rows(Deck, pk=w.draft.pk),
        "sections": _rows(Section, deck=w.draft),
        "cards": _rows(Card, deck=w.draft),
        "quizzes": _rows(Quiz, deck=w.draft),
        "questions": _rows(Question, quiz__deck=w.draft),
        "revisions": _rows(Revision, card__deck=w.draft)
                     + _rows(Revision, question__quiz__deck=w.draft),
        "authors": _rows(DeckAuthor, deck=w.draft),
        "own_decks": _rows(Deck, owner=alice),
        "own_cards": _rows(Card, deck__owner=alice),
        "own_media": _rows(Media, deck__owner=alice),
        "own_revisions": _rows(Revision, card__deck__owner=alice),
        "suggestions": _rows(EditSuggestion, user=alice)
                       + _rows(EditSuggestion, card__deck=w.draft),
    }  # fmt: skip


def _client(probe: Probe, role: str, w: World, client):
    if probe.api:
        api = APIClient()
        if role != "anon":
            api.credentials(HTTP_AUTHORIZATION=f"Token {w.tokens[USER_OF[role]]}")
        return api
    client.logout()
    if role != "anon":
        client.force_login(w.users[USER_OF[role]])
    return client


def _send(probe: Probe, client, w: World):
    url = probe.url(w)
    data = probe.data(w) if probe.data else None
    if probe.api:
        if probe.method == "get":
            return client.get(url)
        return getattr(client, probe.method)(url, data or {}, format=probe.fmt)
    return getattr(client, probe.method)(url, data or {})


def _check_status(expected, response, probe: Probe) -> None:
    code = response.status_code
    location = response.get("Location", "")
    body = b"(streamed)" if getattr(response, "streaming", False) else response.content[:300]
    if expected == OK:
        assert 200 <= code < 400 and not location.startswith("/accounts/login/"), (code, body)
    elif expected == LOGIN:
        assert code == 302 and location.startswith("/accounts/login/?next="), (code, location)
    elif expected == PROBE:
        assert code in (200, 503), (code, body)
    elif expected == DENY:
        assert code in (401, 403), (code, body)
    else:
        assert code == expected, (code, body)
    if probe.api and code >= 400:
        assert response.json()["error"], body  # a sentence a person can act on


def _body(response) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode(errors="replace")
    return response.content.decode(errors="replace")


CASES = [
    pytest.param(name, i, id=f"{name}-{i}-{probe.method}")
    for name, probes in MATRIX.items()
    for i, probe in enumerate(probes)
]


@pytest.mark.parametrize(("name", "index"), CASES)
def test_access(client, name, index):
    probe = MATRIX[name][index]
    w = world_build()
    before, mine = snapshot(), alice_rows(w)  # each role's request is rolled back after it
    for role in ROLES:
        expected = probe.expect[role]
        http = _client(probe, role, w, client)
        with transaction.atomic():
            response = _send(probe, http, w)
            refused = expected not in (OK,) or response.status_code >= 400
            if refused:
                assert snapshot() == before, f"{role}'s refused {probe.method} changed the database"
            elif role != "owner" and role not in probe.shares:
                assert alice_rows(w) == mine, f"{role}'s {probe.method} changed alice's rows"
            transaction.set_rollback(True)
        try:
            _check_status(expected, response, probe)
        except AssertionError as exc:
            raise AssertionError(f"{role}: {exc}") from None
        if probe.secrets and role not in probe.seen_by:
            body = _body(response)
            for secret in probe.secrets(w):
                assert secret not in body, f"{role} was shown {secret!r}"
        if role in ("stranger", "member", "staff", "anon") and response.status_code == 404:
            body = _body(response)
            for secret in PRIVATE:
                assert secret not in body, f"{role}'s 404 names {secret!r}"


ADMIN = [
    ("anon", "/admin/", 302),
    ("stranger", "/admin/", 302),
    ("staff", "/admin/", 200),
    ("stranger", "/admin/study/reviewlog/", 302),
    ("staff", "/admin/study/reviewlog/", 403),
]


@pytest.mark.parametrize(("role", "url", "status"), ADMIN)
def test_admin_is_for_staff_with_permissions(client, django_user_model, role, url, status):
    """Django's admin: staff only, and each model needs its permission (staff without it: 403)."""
    users = {"stranger": ("bob", {}), "staff": ("staff", {"is_staff": True})}
    if role in users:
        name, extra = users[role]
        client.force_login(django_user_model.objects.create_user(username=name, **extra))
    response = client.get(url)
    assert response.status_code == status
    if status == 302:
        assert response["Location"].startswith("/admin/login/")
