"""`manage.py backup dump` then `restore` gives back every row of every table; a file that is
broken, from another migration state, or aimed at a database with content is refused, and the
database is left as it was."""

import gzip
import hashlib
import io
import json
from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.authtoken.models import Token

from apps.authoring import services as authoring
from apps.decks.models import Card, Deck
from apps.demos.models import DemoPoint, DemoRun
from apps.operations.management.commands.backup import backed_up_models
from apps.quizzes import services as quiz_services
from apps.quizzes.models import Quiz
from apps.study import services as study_services
from apps.study.models import ReviewLog
from apps.teams import services as team_services
from tests.quizzes.conftest import right_answers


def _call(*args) -> str:
    out = io.StringIO()
    call_command("backup", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def world(seeded, alice, bob, charlie, staff):
    """The shipped content and a cohort using it in every way that leaves rows."""
    deck = Deck.objects.get()
    cards = list(deck.cards.order_by("id")[:6])
    for user, grades in [(alice, [5, 4, 2, 0]), (bob, [3, 5]), (charlie, [1])]:
        for card, grade in zip(cards, grades, strict=False):
            study_services.review_record(user=user, card=card, grade=grade, duration_ms=1200)
    study_services.review_undo(user=charlie)
    study_services.card_suspend(user=alice, card=cards[5])
    quiz = Quiz.objects.get(slug="knowledge-check-ray-core")
    for user, answers in [(alice, right_answers(quiz)), (bob, {})]:
        attempt = quiz_services.attempt_start(user=user, quiz=quiz)
        quiz_services.attempt_submit(attempt=attempt, answers=answers)
    quiz_services.attempt_start(user=charlie, quiz=quiz)
    for user, status in [(alice, "succeeded"), (bob, "failed")]:
        run = DemoRun.objects.create(
            user=user, demo="tasks", params={"n": 4}, status=status, progress=1.0,
            summary={"speedup": 2.25}, error="boom" if status == "failed" else "",
            started_at=timezone.now() - timedelta(seconds=9), finished_at=timezone.now(),
        )  # fmt: skip
        DemoPoint.objects.bulk_create(
            DemoPoint(run=run, seq=i, data={"t": i / 3, "label": "ü"}) for i in range(1, 30)
        )
    team = team_services.team_create(user=alice, name="Cohort 7", deck=deck)
    invite = team_services.invite_create(team=team, by=alice, max_uses=5)
    team_services.team_join(user=bob, token=invite.token)
    team_services.membership_set_hidden(team=team, user=bob, hidden=True)
    team_services.invite_create(team=team, by=alice)
    authoring.deck_author_grant(deck=deck, by=staff, username="charlie")
    authoring.card_update(card=cards[0], author=staff, note="clearer", back="A new back **text**.")
    authoring.card_update(card=cards[0], author=charlie, front="A new front?")
    Token.objects.create(user=alice)
    editors = Group.objects.create(name="editors")
    editors.permissions.add(Permission.objects.get(codename="change_card"))
    bob.groups.add(editors)
    alice.user_permissions.add(Permission.objects.get(codename="view_reviewlog"))
    return deck


def _natural(model, pk):
    """A permission or content type as its natural key: migrate makes them under other ids."""
    if model is Permission:
        return list(Permission.objects.get(pk=pk).natural_key())
    return pk


def snapshot() -> dict[str, tuple[int, str]]:
    """Per table: row count and a hash of every row's values in id order (many-to-many link
    tables by what they link, since their own ids are not content)."""
    tables = {}
    for model in backed_up_models():
        columns = [f.attname for f in model._meta.local_concrete_fields]
        rows = list(model._base_manager.order_by("pk").values_list(*columns))
        tables[model._meta.label_lower] = rows
        for field in model._meta.many_to_many:
            through = field.remote_field.through
            source, target = field.m2m_field_name() + "_id", field.m2m_reverse_field_name() + "_id"
            links = sorted(
                (a, _natural(field.remote_field.model, b))
                for a, b in through.objects.values_list(source, target)
            )
            tables[through._meta.label_lower] = links
    return {
        label: (len(rows), hashlib.sha256(json.dumps(rows, default=str, sort_keys=True).encode())
                .hexdigest())
        for label, rows in tables.items()
    }  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_round_trip_gives_back_every_row_and_new_rows_get_new_ids(world, alice, tmp_path):
    before = snapshot()
    assert all(before[label][0] for label in ["study.reviewlog", "demos.demopoint",
               "teams.inviteuse", "authoring.revision", "authtoken.token",
               "auth.user_user_permissions", "auth.group_permissions"])  # fmt: skip
    path = tmp_path / "raydeck.backup.gz"
    assert "Wrote" in _call("dump", str(path))

    call_command("flush", interactive=False, verbosity=0)
    assert snapshot()["study.reviewlog"][0] == 0
    rows = sum(before[m._meta.label_lower][0] for m in backed_up_models())
    assert _call("restore", str(path)).startswith(f"Restored {rows} rows")

    assert snapshot() == before
    # The ids came from the file; new rows must not collide with them (sequence reset).
    alice = type(alice).objects.get(username="alice")
    fresh = Card.objects.exclude(states__user=alice).first()
    log, created = study_services.review_record(user=alice, card=fresh, grade=4)
    assert created
    assert log.pk > max(ReviewLog.objects.exclude(pk=log.pk).values_list("pk", flat=True))
    team_services.team_create(user=alice, name="After the restore")


@pytest.mark.django_db
def test_a_database_with_content_is_refused_unless_flushed(small_deck, alice, tmp_path):
    path = tmp_path / "b.gz"
    _call("dump", str(path))
    with pytest.raises(CommandError, match=r"not empty \(rows in auth\.user.*--flush"):
        _call("restore", str(path))
    assert Deck.objects.count() == 1 and Card.objects.count() == 5


def _rewrite(path, change) -> None:
    with gzip.open(path, "rt") as f:
        lines = f.read().splitlines()
    with gzip.open(path, "wt") as f:
        f.write("\n".join(change(lines)) + "\n")


@pytest.fixture
def backup_file(small_deck, alice, tmp_path):
    study_services.review_record(user=alice, card=small_deck.cards.first(), grade=3)
    path = tmp_path / "b.gz"
    _call("dump", str(path))
    return path


def _empty() -> None:
    """Delete every row a backup holds (an ORM delete: TRUNCATE cannot run on PostgreSQL in the
    test's transaction after its inserts)."""
    for model in reversed(backed_up_models()):
        model._base_manager.all().delete()


def _header(change):
    def edit(lines):
        header = json.loads(lines[0])
        change(header)
        return [json.dumps(header), *lines[1:]]

    return edit


@pytest.mark.django_db
@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda p: p.write_bytes(b"hello"), "is not gzip'd"),
        (lambda p: p.write_bytes(p.read_bytes()[:-40]), "cut short or damaged"),
        (lambda p: p.write_bytes(gzip.compress(b"")), "is empty"),
        (lambda p: _rewrite(p, lambda ls: ["[1, 2]", *ls[1:]]), "line 1 is not a RayDeck backup"),
        (lambda p: _rewrite(p, _header(lambda h: h.update(version=2))),
         "format version 2; this RayDeck reads version 1"),
        (lambda p: _rewrite(p, _header(lambda h: h["models"].append("shop.order"))),
         "models this code does not have: shop.order"),
        (lambda p: _rewrite(p, _header(lambda h: h["migrations"]["study"].append("0099_later"))),
         r"another migration state .*study: the backup has 0099_later, this database has not"),
        (lambda p: _rewrite(p, _header(lambda h: h["migrations"]["quizzes"].remove(
            "0004_attempt_passed"))),
         "quizzes: this database has 0004_attempt_passed, the backup has not"),
        (lambda p: _rewrite(p, lambda ls: [*ls[:4], "{not json", *ls[4:]]), "line 5 is not JSON"),
        (lambda p: _rewrite(p, lambda ls: ls[:-1]), "without its closing line: it was cut short"),
        (lambda p: _rewrite(p, lambda ls: [*ls[:3], *ls[4:]]),
         "rows do not match its closing line"),
        (lambda p: _rewrite(p, lambda ls: [x.replace('"grade": 3', '"grade": "x"') for x in ls]),
         r"line \d+ \(field grade\): .*value must be an integer"),
        (lambda p: _rewrite(p, lambda ls: [x.replace('"card": ', '"card": 999') for x in ls]),
         "do not hold together|do not fit this database"),
    ],
)  # fmt: skip
def test_a_broken_file_is_refused_naming_the_problem_and_nothing_changes(
    backup_file, damage, message
):
    damage(backup_file)
    _empty()
    with pytest.raises(CommandError, match=message):
        _call("restore", str(backup_file))
    assert all(not model._base_manager.exists() for model in backed_up_models()), (
        "a refused restore left rows behind"
    )


@pytest.mark.django_db(transaction=True)
def test_a_failed_restore_with_flush_keeps_what_was_there(backup_file, small_deck):
    _rewrite(backup_file, lambda ls: ls[:-1])
    before = snapshot()
    with pytest.raises(CommandError, match="cut short"):
        _call("restore", "--flush", str(backup_file))
    assert snapshot() == before


@pytest.mark.django_db(transaction=True)
def test_flush_replaces_the_content(bob, backup_file, small_deck):
    before = snapshot()
    small_deck.cards.first().delete()
    bob.delete()
    assert snapshot() != before
    _call("restore", "--flush", str(backup_file))
    assert snapshot() == before


def test_every_model_is_backed_up_or_skipped_for_a_stated_reason():
    from apps.operations.management.commands.backup import SKIPPED

    backed_up = set(backed_up_models())
    for model in apps.get_models():
        meta = model._meta
        if meta.proxy or not meta.managed:
            continue
        assert model in backed_up or meta.app_label in SKIPPED or meta.label_lower in SKIPPED
    assert {m._meta.app_label for m in backed_up} >= {
        "auth", "authtoken", "accounts", "decks", "study", "practice", "interview", "quizzes",
        "demos", "teams", "authoring",
    }  # fmt: skip
    labels = [m._meta.label_lower for m in backed_up_models()]  # a row after what it points at
    assert labels.index("auth.user") < labels.index("study.reviewlog")
    assert labels.index("decks.card") < labels.index("study.reviewlog")


@pytest.mark.django_db
def test_a_dump_that_cannot_be_written_says_where_and_leaves_no_file(small_deck, tmp_path):
    with pytest.raises(CommandError, match="cannot write the backup to .*missing/b.gz"):
        _call("dump", str(tmp_path / "missing" / "b.gz"))
    assert list(tmp_path.iterdir()) == []
