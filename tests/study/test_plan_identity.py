"""The cheaper plan decides exactly what the plan decided before: `plan_build` and the memory
model's replay against their reference copies (tests/study/plan_reference.py, the code at
816885c), on many generated decks, histories, budgets and dates, with the memos cold and warm."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from apps.study import memory, plan
from apps.study.memory import MemoryModel, Review
from apps.study.plan import PlanCard, plan_build
from apps.study.scheduler import CardSchedule
from tests.study.plan_reference import reference_memory, reference_plan_build

T0 = datetime(2026, 3, 2, 0, 0, tzinfo=UTC)
# A learner's own parameters (a real fit's shape): the memos must tell them from the defaults.
OWN = (0.3, 1.1, 2.9, 14.0, 7.0, 0.6, 1.9, 0.01, 1.4, 0.14, 0.9, 1.9, 0.1, 0.3, 2.2, 0.2, 2.9,
       0.5, 0.6, 0.1, 0.4)  # fmt: skip
MODELS = [MemoryModel(), MemoryModel(OWN)]

steps = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 60 * 24 * 30)), min_size=0, max_size=8)
card_spec = st.tuples(
    st.sampled_from(["a", "b", "c"]),
    steps,
    st.integers(-10, 40),  # SM-2's due day (from T0), for a card seen
    st.booleans(),  # a pending re-drill
)


def _reviews(card_id, history, origin):
    at, out = origin, []
    for grade, minutes in history:
        at += timedelta(minutes=minutes)
        out.append(Review(card_id, grade, at))
    return out


def _deck(model, specs, origin, memory):
    cards = []
    for i, (section, history, due_day, redrill) in enumerate(specs, start=1):
        reviews = _reviews(i, history, origin)
        if not reviews:
            cards.append(PlanCard(i, section, None))
            continue
        due = T0 + timedelta(days=due_day, hours=9)
        schedule = CardSchedule(
            repetitions=len(reviews) % 4,
            ease_factor=Decimal("2.50") - Decimal("0.10") * (len(reviews) % 5),
            interval_days=max(0, due_day),
            due_at=due,
            needs_redrill=redrill,
            redrill_anchor=due - timedelta(days=1) if redrill else None,
            last_reviewed_at=reviews[-1].at,
        )
        cards.append(PlanCard(i, section, memory(model, reviews, i), schedule))
    return cards


@given(
    st.lists(card_spec, min_size=1, max_size=30),
    st.integers(0, 45),
    st.integers(0, 15),
    st.integers(0, 6),
    st.floats(0.5, 0.99),
    st.sampled_from(["card", None, "total"]),
    st.sampled_from([0, 1]),
    st.sampled_from(["UTC", "Europe/Paris", "America/Los_Angeles"]),
)
@settings(max_examples=300, deadline=None)
def test_plan_build_decides_what_the_reference_decided(
    specs, days_until, per_day, done_today, target, defer, which, zone
):
    model = MODELS[which]
    origin = T0 - timedelta(days=45)
    # The learner's midnight in their zone (the planner's day boundaries follow it).
    start = datetime(2026, 3, 20, tzinfo=ZoneInfo(zone)) if zone != "UTC" else T0
    day = {"model": model, "today_start": start, "days_until": days_until, "per_day": per_day,
           "target": target, "done_today": done_today, "defer": defer}  # fmt: skip
    expected = reference_plan_build(cards=_deck(model, specs, origin, reference_memory), **day)
    for _ in range(2):  # cold, then with every memo warm
        memories = _deck(model, specs, origin, lambda m, r, i: m.memory(r, card_id=i))
        assert plan_build(cards=memories, **day) == expected


@given(st.lists(steps, min_size=1, max_size=10), st.sampled_from([0, 1]))
@settings(max_examples=200, deadline=None)
def test_the_memory_of_a_card_is_the_reference_replay(histories, which):
    model = MODELS[which]
    for card_id, history in enumerate(histories, start=1):
        reviews = _reviews(card_id, history, T0)
        expected = reference_memory(model, reviews, card_id=card_id)
        for _ in range(2):
            got = model.memory(reviews, card_id=card_id)
            assert got == expected


def test_the_same_history_under_other_parameters_is_not_mixed_up():
    reviews = _reviews(1, [(4, 0), (4, 60 * 24 * 3), (1, 60 * 24 * 9)], T0)
    default, own = (m.memory(reviews) for m in MODELS)
    assert default == reference_memory(MODELS[0], reviews)
    assert own == reference_memory(MODELS[1], reviews)
    assert default.stability != own.stability


def test_the_memos_stay_bounded(monkeypatch):
    monkeypatch.setattr(plan, "MEMO_SIZE", 20)
    monkeypatch.setattr(memory, "MEMO_SIZE", 5)
    model = MODELS[0]
    for i in range(30):
        reviews = [Review(1, 4, T0 - timedelta(days=3, minutes=i))]
        cards = [PlanCard(1, "a", model.memory(reviews)), PlanCard(2, "a", None)]
        plan_build(cards=cards, model=model, today_start=T0, days_until=9, per_day=2, target=0.9)
        assert len(plan._PREDICTED) <= 20 and len(memory._MEMORIES) <= 5
