"""The interview plan's settings: an optional date (the learner's local day), a daily budget and a
target recall, in the profile page and GET/PATCH /api/me/profile/; bad input changes nothing."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from apps.accounts.models import Profile

pytestmark = pytest.mark.django_db
URL = "/api/me/profile/"


def local_today(zone: str):
    return datetime.now(UTC).astimezone(ZoneInfo(zone)).date()


def form(**changes):
    data = {"time_zone": "UTC", "new_cards_per_day": 20, "reviews_per_day": 200,
            "interview_date": "", "interview_mode": "on", "daily_budget_minutes": "",
            "target_recall": 90}  # fmt: skip
    return data | changes


def test_a_new_profile_has_no_plan_and_a_90_percent_target(alice, api_client):
    api_client.force_authenticate(alice)
    body = api_client.get(URL).json()
    assert body == {
        "time_zone": "UTC", "new_cards_per_day": alice.profile.new_cards_per_day,
        "reviews_per_day": alice.profile.reviews_per_day,
        "interview_date": None, "interview_mode": True, "daily_budget_minutes": None,
        "target_recall": 90,
    }  # fmt: skip


def test_the_api_sets_a_date_budget_and_target_and_removes_the_date(alice, api_client):
    api_client.force_authenticate(alice)
    day = local_today("UTC") + timedelta(days=14)
    response = api_client.patch(
        URL, {"interview_date": day.isoformat(), "daily_budget_minutes": 25, "target_recall": 85},
        format="json",
    )  # fmt: skip
    assert response.status_code == 200, response.json()
    assert response.json()["interview_date"] == day.isoformat()
    profile = Profile.objects.get(user=alice)
    assert (profile.interview_date, profile.daily_budget_minutes, profile.target_recall) == (
        day,
        25,
        85,
    )
    response = api_client.patch(URL, {"interview_date": None}, format="json")
    assert response.status_code == 200 and response.json()["interview_date"] is None
    assert Profile.objects.get(user=alice).daily_budget_minutes == 25  # untouched


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"interview_date": "past"}, "interview_date", "is in the past"),
        ({"daily_budget_minutes": 0}, "daily_budget_minutes", "greater than or equal to 1"),
        ({"daily_budget_minutes": 601}, "daily_budget_minutes", "less than or equal to 600"),
        ({"target_recall": 49}, "target_recall", "greater than or equal to 50"),
        ({"target_recall": 100}, "target_recall", "less than or equal to 99"),
        ({"interview_date": "next week"}, "interview_date", "wrong format"),
        ({"interview_date": "far"}, "interview_date", "more than two years ahead"),
    ],
)
def test_bad_plan_settings_are_a_400_that_changes_nothing(alice, api_client, change, field, words):
    if change.get("interview_date") == "past":
        change = {"interview_date": (local_today("UTC") - timedelta(days=1)).isoformat()}
    if change.get("interview_date") == "far":
        change = {"interview_date": (local_today("UTC") + timedelta(days=732)).isoformat()}
    api_client.force_authenticate(alice)
    before = Profile.objects.filter(user=alice).values().get()
    response = api_client.patch(URL, {**change, "new_cards_per_day": 3}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert field in body and words in body["error"], body
    assert Profile.objects.filter(user=alice).values().get() == before


def test_the_past_is_judged_in_the_learners_time_zone(alice, api_client):
    """In Kiritimati (UTC+14) today is often UTC's tomorrow: that day is allowed, the one before
    it is not, whatever UTC says."""
    api_client.force_authenticate(alice)
    today = local_today("Pacific/Kiritimati")
    ok = api_client.patch(
        URL, {"time_zone": "Pacific/Kiritimati", "interview_date": today.isoformat()},
        format="json",
    )  # fmt: skip
    assert ok.status_code == 200, ok.json()
    day_before = (today - timedelta(days=1)).isoformat()
    refused = api_client.patch(URL, {"interview_date": day_before}, format="json")
    assert refused.status_code == 400 and "is in the past" in refused.json()["error"]


def test_the_api_needs_a_signed_in_caller(api_client):
    assert api_client.get(URL).status_code in (401, 403)


def test_the_profile_page_saves_the_plan_settings(alice, client):
    client.force_login(alice)
    day = local_today("UTC") + timedelta(days=10)
    response = client.post(
        reverse("accounts:profile"),
        form(interview_date=day.isoformat(), daily_budget_minutes=30, target_recall=80),
    )
    assert response.status_code == 302
    profile = Profile.objects.get(user=alice)
    assert (profile.interview_date, profile.daily_budget_minutes, profile.target_recall) == (
        day,
        30,
        80,
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"interview_date": "past"}, "is in the past"),
        ({"daily_budget_minutes": 0}, "greater than or equal to 1"),
        ({"daily_budget_minutes": 10_000}, "less than or equal to 600"),
        ({"target_recall": 30}, "greater than or equal to 50"),
        ({"interview_date": "far"}, "more than two years ahead"),
    ],
)
def test_the_profile_page_shows_a_form_error_and_saves_nothing(alice, client, change, message):
    if change.get("interview_date") == "past":
        change = {"interview_date": (local_today("UTC") - timedelta(days=3)).isoformat()}
    if change.get("interview_date") == "far":
        change = {"interview_date": (local_today("UTC") + timedelta(days=800)).isoformat()}
    client.force_login(alice)
    before = Profile.objects.filter(user=alice).values().get()
    response = client.post(reverse("accounts:profile"), form(new_cards_per_day=4, **change))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert Profile.objects.filter(user=alice).values().get() == before


def test_the_profile_page_shows_the_saved_date_as_iso_and_a_second_save_keeps_it(alice, client):
    """<input type="date"> reads only ISO dates: the page must not render the site's en-gb
    "11/12/2026", or the browser shows an empty field and the next save deletes the date."""
    client.force_login(alice)
    day = local_today("UTC") + timedelta(days=40)
    client.post(reverse("accounts:profile"), form(interview_date=day.isoformat()))
    page = client.get(reverse("accounts:profile")).content.decode()
    assert f'type="date" name="interview_date" value="{day.isoformat()}"' in page
    # what the browser posts back: the fields as the page rendered them, one other one changed
    client.post(
        reverse("accounts:profile"), form(interview_date=day.isoformat(), new_cards_per_day=7)
    )
    profile = Profile.objects.get(user=alice)
    assert (profile.interview_date, profile.new_cards_per_day) == (day, 7)
