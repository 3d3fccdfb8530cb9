""" "Download my data": alice gets everything of hers, as JSON and as CSV, and nothing of bob's."""

import csv
import io
import json
import zipfile
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from apps.demos.models import DemoPoint, DemoRun
from apps.operations.export import KINDS
from apps.quizzes import services as quiz_services
from apps.study import services as study_services
from apps.study.models import ReviewLog
from apps.teams import services as team_services
from config.csv_safety import cell_defuse
from tests.quizzes.conftest import core_check, quiz_path, quizzes, right_answers  # noqa: F401

pytestmark = pytest.mark.django_db


def _run(user, demo="tasks", n_points=2, **fields) -> DemoRun:
    run = DemoRun.objects.create(user=user, demo=demo, params={"n": 3}, **fields)
    DemoPoint.objects.bulk_create(
        DemoPoint(run=run, seq=i, data={"x": i, "y": i * 0.5}) for i in range(1, n_points + 1)
    )
    return run


@pytest.fixture
def world(alice, bob, small_deck, core_check):  # noqa: F811
    cards = {c.slug: c for c in small_deck.cards.all()}
    for slug, grade in [("ray-task", 4), ("ray-actor", 2), ("object-store", 5)]:
        study_services.review_record(user=alice, card=cards[slug], grade=grade, duration_ms=900)
    study_services.card_suspend(user=alice, card=cards["object-store"])
    study_services.review_record(user=bob, card=cards["env-runner"], grade=1)
    quiz_services.attempt_record(user=alice, quiz=core_check, answers=right_answers(core_check))
    quiz_services.attempt_record(user=bob, quiz=core_check, answers={})
    run = _run(alice, status="succeeded", summary={"speedup": 3.5})
    _run(bob, n_points=5)
    team = team_services.team_create(user=bob, name='=HYPERLINK("http://x") cohort')
    invite = team_services.invite_create(team=team, by=bob)
    team_services.team_join(user=alice, token=invite.token)
    Token.objects.create(user=alice)
    return {"cards": cards, "run": run, "team": team}


def _json(response) -> dict:
    return json.loads(b"".join(response.streaming_content))


def _csvs(response) -> dict[str, list[dict]]:
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    return {
        name.removesuffix(".csv"): list(csv.DictReader(io.StringIO(archive.read(name).decode())))
        for name in archive.namelist()
    }


def test_json_holds_exactly_alices_records(client, alice, world):
    client.force_login(alice)
    response = client.get(reverse("accounts:export_json"))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    today = timezone.localdate().isoformat()
    assert response["Content-Disposition"] == f'attachment; filename="raydeck-alice-{today}.json"'
    doc = _json(response)
    alice.refresh_from_db()

    assert doc["format"] == "raydeck-export" and doc["version"] == 1
    assert doc["profile"] == {
        "username": "alice", "email": "", "first_name": "", "last_name": "",
        "date_joined": alice.date_joined.isoformat(),
        "last_login": alice.last_login.isoformat(),
        "time_zone": "UTC", "new_cards_per_day": alice.profile.new_cards_per_day,
        "reviews_per_day": alice.profile.reviews_per_day,
        "interview_date": None, "daily_budget_minutes": None, "target_recall": 90,
    }  # fmt: skip
    logs = list(ReviewLog.objects.filter(user=alice).order_by("id"))
    assert doc["reviews"] == [
        {
            "id": log.id, "deck": "ray-basics", "card": log.card.slug, "grade": log.grade,
            "kind": log.kind, "reviewed_at": log.reviewed_at.isoformat(), "duration_ms": 900,
            "state_before": log.state_before, "state_after": log.state_after,
            "client_id": None, "undone_at": None,
        }
        for log in logs
    ]  # fmt: skip
    assert [r["grade"] for r in doc["reviews"]] == [4, 2, 5]
    states = {s["card"]: s for s in doc["card_states"]}
    assert set(states) == {"ray-task", "ray-actor", "object-store"}
    assert states["object-store"]["suspended"] is True
    assert states["ray-task"]["ease_factor"] == 2.5 and states["ray-task"]["repetitions"] == 1
    assert states["ray-actor"]["repetitions"] == 0 and states["ray-actor"]["lapses"] == 0

    [attempt] = doc["quiz_attempts"]
    assert attempt["quiz"] == "core-check" and attempt["passed"] is True
    assert attempt["score"] == attempt["max_score"] == 7
    answers = {a["question"]: a for a in doc["quiz_answers"]}
    assert set(answers) == {"actor-single", "store-multi", "task-tf", "core-match-scored"}
    assert answers["store-multi"]["points"] == answers["store-multi"]["max_points"] == 3
    assert answers["store-multi"]["answer"] == answers["store-multi"]["correct_answer"]

    run = world["run"]
    assert doc["demo_runs"] == [
        {
            "id": run.id, "demo": "tasks", "params": {"n": 3}, "status": "succeeded",
            "progress": 0.0, "summary": {"speedup": 3.5}, "error": "",
            "created_at": run.created_at.isoformat(), "started_at": None, "finished_at": None,
            "cluster_nodes": None, "cluster_cpus": None,
        }
    ]  # fmt: skip
    assert doc["demo_points"] == [
        {"run": run.id, "seq": 1, "data": {"x": 1, "y": 0.5}},
        {"run": run.id, "seq": 2, "data": {"x": 2, "y": 1.0}},
    ]
    [membership] = doc["team_memberships"]
    assert membership["team"] == world["team"].name and membership["role"] == "member"


def test_csv_zip_holds_the_same_records_as_the_json(client, alice, world):
    client.force_login(alice)
    doc = _json(client.get(reverse("accounts:export_json")))
    response = client.get(reverse("accounts:export_csv"))
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].endswith(f'-{timezone.localdate():%Y-%m-%d}.zip"')
    files = _csvs(response)
    assert set(files) == {kind.name for kind in KINDS}

    def cell(value, as_json):
        if value is None:
            return ""
        if as_json:
            return json.dumps(value, ensure_ascii=False)
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, dict | list):
            return cell_defuse(json.dumps(value, ensure_ascii=False))
        # a random answer key may start with "-": defused like any text
        return cell_defuse(value) if isinstance(value, str) else str(value)

    answers = {(r["attempt"], r["question"]): r for r in files["quiz_answers"]}
    attempt = str(doc["quiz_attempts"][0]["id"])
    assert answers[(attempt, "actor-single")]["answer"].startswith('"')  # JSON, even a string

    for kind in KINDS:
        records = [doc[kind.name]] if kind.single else doc[kind.name]
        rows = files[kind.name]
        assert len(rows) == len(records), kind.name
        for row, record in zip(rows, records, strict=True):
            assert list(row) == list(kind.columns)
            for column in kind.columns:
                expected = record[column]
                if column in ("ease_factor", "score"):  # Decimal in the CSV, number in JSON
                    assert float(row[column]) == expected
                else:
                    assert row[column] == cell(expected, column in kind.json), (kind.name, column)
    # bob named the team like a spreadsheet formula: alice's CSV must not run it.
    assert files["team_memberships"][0]["team"] == "'" + world["team"].name


def test_nothing_of_bobs_and_no_secret(client, alice, bob, world):
    client.force_login(alice)
    raw_json = b"".join(client.get(reverse("accounts:export_json")).streaming_content).decode()
    files = _csvs(client.get(reverse("accounts:export_csv")))
    bob_run = DemoRun.objects.get(user=bob)
    for text in [raw_json, json.dumps(files)]:
        assert "bob" not in text
        assert "env-runner" not in text  # bob's only review
        assert alice.password not in text
        assert Token.objects.get(user=alice).key not in text
    doc = json.loads(raw_json)
    assert bob_run.id not in {r["id"] for r in doc["demo_runs"]}
    assert {p["run"] for p in doc["demo_points"]} == {world["run"].id}
    assert len(doc["quiz_attempts"]) == 1


def test_anonymous_is_sent_to_log_in_and_the_api_says_401(client, api_client, world):
    for name in ["accounts:export_json", "accounts:export_csv"]:
        response = client.get(reverse(name))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("accounts:login"))
    for path in ["/api/me/export.json", "/api/me/export.zip"]:
        response = api_client.get(path, HTTP_ACCEPT="application/zip")
        assert response.status_code in (401, 403)
        assert response["Content-Type"] == "application/json"
        assert response.json()["error"]


def test_api_with_a_token_gives_the_same_download(api_client, alice, world):
    token = Token.objects.get(user=alice)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = api_client.get("/api/me/export.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert [r["grade"] for r in _json(response)["reviews"]] == [4, 2, 5]
    response = api_client.get("/api/me/export.zip", HTTP_ACCEPT="application/zip")
    assert response.status_code == 200
    assert len(_csvs(response)["reviews"]) == 3


def test_an_open_attempt_lists_its_saved_answers_unscored(client, alice, world, core_check):  # noqa: F811
    attempt = quiz_services.attempt_start(user=alice, quiz=core_check)
    question = core_check.questions.get(slug="actor-single")
    wrong = question.choices.get(correct=False, text="A task").key
    quiz_services.attempt_save(attempt=attempt, answers={question.key: wrong})
    client.force_login(alice)
    doc = _json(client.get(reverse("accounts:export_json")))
    open_rows = [a for a in doc["quiz_answers"] if a["attempt"] == attempt.id]
    assert open_rows == [
        {"attempt": attempt.id, "quiz": "core-check", "question": "actor-single",
         "answer": wrong, "points": None, "max_points": None, "correct_answer": None}
    ]  # fmt: skip


def _grow(alice, world, n: int) -> None:
    """n more of every kind of record, so that only row counts differ between two sizes."""
    card = world["cards"]["env-runner"]
    now = timezone.now()
    ReviewLog.objects.bulk_create(
        ReviewLog(user=alice, card=card, grade=3, kind="review", state_after={},
                  reviewed_at=now - timedelta(minutes=i))
        for i in range(n)
    )  # fmt: skip
    for _ in range(n):
        _run(alice, n_points=3)


@pytest.mark.parametrize("fmt", ["export_json", "export_csv"])
def test_query_count_does_not_grow_with_the_rows(
    client, alice, world, fmt, django_assert_num_queries
):
    client.force_login(alice)
    # session, user and profile (its time zone), then one query per kind and one for the quiz
    # questions' slugs
    queries = 3 + len(KINDS) + 1
    for n in (1, 40):
        _grow(alice, world, n)
        with django_assert_num_queries(queries):
            response = client.get(reverse(f"accounts:{fmt}"))
            assert len(b"".join(response.streaming_content)) > 1000


def test_the_profile_page_links_both_downloads(client, charlie):
    client.force_login(charlie)
    page = client.get(reverse("accounts:profile")).content.decode()
    assert "Your data" in page
    assert f'href="{reverse("accounts:export_json")}"' in page
    assert f'href="{reverse("accounts:export_csv")}"' in page


def test_a_new_learner_gets_empty_lists_and_header_only_csvs(client, charlie):
    client.force_login(charlie)
    doc = _json(client.get(reverse("accounts:export_json")))
    assert doc["profile"]["username"] == "charlie"
    assert all(doc[kind.name] == [] for kind in KINDS if not kind.single)
    files = _csvs(client.get(reverse("accounts:export_csv")))
    assert all(files[kind.name] == [] for kind in KINDS if not kind.single)
