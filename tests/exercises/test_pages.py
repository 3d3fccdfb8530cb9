"""Exercises where learners meet them besides their own page: the section page, the review
page's "What next?" (their own kind, never mixed into the card queue), the stats page, the team
dashboard and the learner's data export."""

import json

import pytest
from django.urls import reverse

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.exercises.models import Submission
from apps.study import services as study
from apps.teams import services as teams

pytestmark = pytest.mark.django_db


def passed(user, exercise) -> Submission:
    """A passing Submit, stored as the worker stores one (the sandbox runs elsewhere in tests)."""
    return Submission.objects.create(
        user=user, exercise=exercise, revision=exercise.current, mode="submit", code="x",
        status="passed", tests=[{"name": "test_a", "suite": "hidden", "passed": True,
                                 "message": "", "ms": 1.0}],
    )  # fmt: skip


def test_the_section_page_lists_its_exercises(client, alice, adder):
    client.force_login(alice)
    page = client.get("/decks/ray-basics/ray-core/").content.decode()
    assert "Write it out: code exercises" in page and "/exercises/add-two/" in page
    assert "/exercises/add-two/" not in client.get("/decks/ray-basics/rllib/").content.decode()


def test_the_review_page_offers_the_exercises_whose_cards_were_begun(client, alice, adder):
    profile = profile_for(alice)
    profile.new_cards_per_day = 1
    profile.save()
    client.force_login(alice)
    assert "code exercise" not in client.get("/study/review/").content.decode()
    study.review_record(user=alice, card=Card.objects.get(slug="ray-task"), grade=5)
    page = client.get("/study/review/").content.decode()
    assert "Nothing due right now" in page or "Session complete" in page
    assert "1 code exercise to write today" in page and "/exercises/add-two/" in page
    api = client.get("/api/exercises/due/").json()
    assert api == [{"slug": "add-two", "title": "Add two numbers", "new": True, "due_at": None,
                    "url": "/exercises/add-two/"}]  # fmt: skip


def test_stats_and_the_export_include_exercises(client, alice, adder):
    passed(alice, adder)
    client.force_login(alice)
    stats = client.get("/study/stats/").content.decode()
    assert "Code exercises" in stats and "Add two numbers" in stats
    doc = json.loads(b"".join(client.get(reverse("accounts:export_json")).streaming_content))
    [row] = doc["exercise_submissions"]
    assert row["exercise"] == "add-two" and row["revision"] == 1 and row["status"] == "passed"
    assert "practice_states" in doc and "practice_logs" in doc


def test_the_team_dashboard_counts_exercises_passed(client, alice, adder):
    team = teams.team_create(user=alice, name="Cohort", deck=adder.deck)
    passed(alice, adder)
    client.force_login(alice)
    body = client.get(f"/api/teams/{team.slug}/progress/").json()
    [me] = [m for m in body["members"] if m["username"] == "alice"]
    assert me["exercises_passed"] == 1
    page = client.get(f"/teams/{team.slug}/").content.decode()
    assert 'title="of 1 code exercises">1<' in page
