"""static/js/sm2.js, the review page's SM-2 (issue 32), run in Chromium against the Python
scheduler (apps/study/scheduler.py): the next state, the buttons' intervals, the ease changes
and their labels must be identical for generated histories in several time zones, and for the
check vectors of tests/study/test_scheduler.py."""

import math
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.study import scheduler
from apps.study.scheduler import CardSchedule, new_state, review
from tests.study.test_scheduler import T0

SM2_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "sm2.js"
ZONES = ["UTC", "Europe/London", "America/New_York", "Asia/Kolkata", "Pacific/Chatham",
         "Australia/Lord_Howe", "Etc/GMT-14", "Etc/GMT+12"]  # fmt: skip

# What the page runs for one step: the state after, the six buttons' days and labels, the ease
# changes and their labels, whether the card is due.
STEP_JS = """(steps) => steps.map(([before, grade, now, zone]) => {
  const S = window.RayDeckSM2, state = S.fromJson(before), at = Date.parse(now);
  const days = S.preview(state, at, zone), eases = S.previewEase(state, at);
  return {
    after: S.toJson(S.review(state, grade, at)),
    days: S.GRADES.map((g) => days[g]), labels: S.GRADES.map((g) => S.formatDays(days[g])),
    eases: S.GRADES.map((g) => S.formatEaseChange(eases[g])),
    due: S.isDue(state, at, zone),
  };
})"""


@pytest.fixture(scope="module")
def sm2(browser):
    page = browser.new_page()
    page.set_content("<!doctype html><title>sm2</title>")
    page.add_script_tag(content=SM2_JS.read_text())
    yield page
    page.close()


def iso(moment: datetime | None) -> str | None:
    """As the page's toJson writes a moment: UTC, milliseconds, Z."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def as_page_json(state: CardSchedule) -> dict:
    data = state.as_json()
    for name in ("due_at", "redrill_anchor", "last_reviewed_at"):
        data[name] = iso(getattr(state, name))
    return data


def python_step(state: CardSchedule, grade: int, now: datetime, zone: str) -> dict:
    from zoneinfo import ZoneInfo

    tz = ZoneInfo(zone)
    days = scheduler.preview(state, now, tz)
    eases = scheduler.preview_ease(state, now)
    return {
        "after": as_page_json(review(state, grade, now)),
        "days": [days[g] for g in scheduler.GRADES],
        "labels": [scheduler.format_days(days[g]) for g in scheduler.GRADES],
        "eases": [scheduler.format_ease_change(eases[g]) for g in scheduler.GRADES],
        "due": scheduler.is_due(state, now, tz),
    }


def compare(sm2, steps: list[tuple[CardSchedule, int, datetime, str]]) -> None:
    sent = [[as_page_json(s), g, iso(now), zone] for s, g, now, zone in steps]
    got = sm2.evaluate(STEP_JS, sent)
    for (state, grade, now, zone), page_step in zip(steps, got, strict=True):
        assert page_step == python_step(state, grade, now, zone), (state, grade, now, zone)


def history(grades, gaps_ms, zone, start=T0, on_due_days=False):
    """The steps of grading a new card with `grades`, each `gap` after it fell due (or after the
    previous review, when it is not due yet and `on_due_days` is false)."""
    state, now, steps = new_state(start), start, []
    for grade, gap in zip(grades, gaps_ms, strict=True):
        now = (max(now, state.due_at) if on_due_days else now) + timedelta(milliseconds=gap)
        steps.append((state, grade, now, zone))
        state = review(state, grade, now)
    return steps


def test_the_design_check_vectors_give_the_same_days_in_the_browser(sm2):
    for grades in ([4, 3, 3, 4, 5, 3, 0, 1, 3, 3, 4, 5, 3], [5] * 6, [0, 5, 5, 1, 4, 4, 4]):
        for zone in ZONES:
            compare(sm2, history(grades, [0] * len(grades), zone, on_due_days=True))


def test_the_ease_floor_the_interval_cap_and_float_drift_cases(sm2):
    floor = CardSchedule(repetitions=3, ease_factor=Decimal("1.30"), interval_days=10, due_at=T0)
    cap = CardSchedule(repetitions=9, ease_factor=Decimal("2.90"), interval_days=36000, due_at=T0)
    drift = CardSchedule(repetitions=5, ease_factor=Decimal("3.00"), interval_days=150, due_at=T0)
    redrill = CardSchedule(repetitions=2, ease_factor=Decimal("2.36"), interval_days=6, due_at=T0,
                           needs_redrill=True, redrill_anchor=T0 - timedelta(hours=3),
                           last_grade=3, last_reviewed_at=T0 - timedelta(hours=3))  # fmt: skip
    steps = [(s, g, T0 + timedelta(minutes=1), z) for s in (floor, cap, drift, redrill)
             for g in scheduler.GRADES for z in ("UTC", "Pacific/Chatham")]  # fmt: skip
    compare(sm2, steps)


def float_drift_cases(count=60):
    """(interval, ease in hundredths) where binary floats' ceil(I x EF) is one day too many,
    e.g. 25 x 2.20 = 55.000000000000007: grade 4 keeps the ease, so the next interval shows it."""
    found = []
    for interval in range(7, 5000):
        for ease in range(130, 400):
            if math.ceil(interval * (ease / 100)) != -(-interval * ease // 100):
                found.append((interval, ease))
                break
        if len(found) >= count:
            return found
    return found


def test_intervals_where_binary_floats_drift_are_exact_in_the_browser(sm2):
    cases = float_drift_cases()
    assert len(cases) == 60
    steps = [
        (CardSchedule(repetitions=4, ease_factor=Decimal(e) / 100, interval_days=i, due_at=T0),
         4, T0, "UTC")
        for i, e in cases
    ]  # fmt: skip
    compare(sm2, steps)


# Gaps from a second to two years, in milliseconds (the device's clock); 0 = at once.
gaps = st.one_of(st.just(0), st.integers(1_000, 2 * 365 * 86_400_000))
late = st.integers(0, 3 * 86_400_000)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    grades=st.lists(st.integers(0, 5), min_size=1, max_size=25),
    data=st.data(),
    zone=st.sampled_from(ZONES),
    start_ms=st.integers(0, 20 * 365 * 86_400_000),
    on_due=st.booleans(),
)
def test_generated_histories_give_identical_states_buttons_and_labels(
    sm2, grades, data, zone, start_ms, on_due
):
    spread = data.draw(st.lists(late if on_due else gaps, min_size=len(grades),
                                max_size=len(grades)))  # fmt: skip
    start = datetime(2015, 1, 1, tzinfo=UTC) + timedelta(milliseconds=start_ms)
    compare(sm2, history(grades, spread, zone, start=start, on_due_days=on_due))


@settings(max_examples=100, deadline=None)
@given(
    repetitions=st.integers(0, 30),
    ease=st.integers(130, 600),
    interval=st.integers(0, 36500),
    redrill=st.booleans(),
    lapses=st.integers(0, 50),
    zone=st.sampled_from(ZONES),
    offset_ms=st.integers(-40 * 86_400_000, 40 * 86_400_000),
)
def test_any_stored_state_is_graded_alike(
    sm2, repetitions, ease, interval, redrill, lapses, zone, offset_ms
):
    now = T0 + timedelta(days=3)
    due = now + timedelta(milliseconds=offset_ms)
    state = CardSchedule(
        repetitions=repetitions, ease_factor=Decimal(ease) / 100, interval_days=interval,
        due_at=due, needs_redrill=redrill, redrill_anchor=due if redrill else None,
        lapses=lapses, last_grade=3 if redrill else 4, last_reviewed_at=due,
    )  # fmt: skip
    compare(sm2, [(state, g, now, zone) for g in scheduler.GRADES])
