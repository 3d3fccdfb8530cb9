"""The browser tests' learners live where it is about noon, whatever the hour the suite runs."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from tests.e2e.conftest import zone_near_noon


def test_local_midnight_is_at_least_eleven_and_a_half_hours_away_all_day():
    start = datetime(2026, 12, 1, tzinfo=UTC)
    for minute in range(0, 24 * 60, 7):
        now = start + timedelta(minutes=minute, seconds=59)
        local = now.astimezone(ZoneInfo(zone_near_noon(now)))
        hours = local.hour + local.minute / 60 + local.second / 3600
        assert 11.5 - 1 / 60 <= hours <= 12.5 + 1 / 60, (now, local)
