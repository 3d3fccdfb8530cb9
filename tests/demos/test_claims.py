"""The claim/verdict contract: pure, no Ray, no Django."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.demos.ray_demos import DEMOS
from apps.demos.ray_demos.claims import (
    INCONCLUSIVE,
    NOT_SHOWN,
    SHOWN,
    Check,
    Claim,
    Conditions,
    Figures,
    conclude,
    consistent,
    spread,
    verdict,
)

QUIET = Conditions(load_1m=0.2, machine_cpus=2, ray_cpus=2, cold=False)
CLAIM = Claim(
    "tasks finish >= 1.5x faster",
    (Check("speedup", at_least=1.5),),
    hidden_by=lambda p: "work_ms=1: too short" if p.get("work_ms") == 1 else None,
    needs_cpus=2,
)


def figures(*trials):
    return {"speedup": spread(list(trials), "speed-up", "x")}


def test_spread_is_min_median_max_of_the_trials():
    assert spread([3.0, 1.0, 2.0], "t", "s") == {
        "label": "t", "unit": "s", "trials": [3.0, 1.0, 2.0], "min": 1.0, "median": 2.0,
        "max": 3.0,
    }  # fmt: skip
    assert spread([])["median"] is None


def test_a_median_that_meets_the_check_is_shown():
    result = verdict(CLAIM, figures(1.4, 1.8, 1.9), {}, QUIET)
    assert result["verdict"] == SHOWN and "median 1.8 >= 1.5" in result["reason"]


def test_a_parameter_that_hides_the_effect_is_named():
    result = verdict(CLAIM, figures(1.0, 1.1, 1.0), {"work_ms": 1}, QUIET)
    assert result == {"verdict": NOT_SHOWN, "reason": result["reason"]}
    assert result["reason"].startswith("work_ms=1: too short")


def test_busy_cpus_make_a_miss_inconclusive_and_say_the_load():
    busy = Conditions(load_1m=3.1, machine_cpus=2, ray_cpus=2, cold=False)
    result = verdict(CLAIM, figures(1.0, 1.1, 1.0), {}, busy)
    assert result["verdict"] == INCONCLUSIVE
    assert "load average was 3.10 on 2 CPUs (Ray had 2)" in result["reason"]


def test_a_cold_first_run_is_inconclusive_and_too_few_cpus_not_shown():
    cold = Conditions(load_1m=0.1, machine_cpus=2, ray_cpus=2, cold=True)
    assert verdict(CLAIM, figures(1.0), {}, cold)["verdict"] == INCONCLUSIVE
    one = Conditions(load_1m=0.1, machine_cpus=1, ray_cpus=1, cold=False)
    result = verdict(CLAIM, figures(1.0), {}, one)
    assert result["verdict"] == NOT_SHOWN and "Ray had 1 CPUs" in result["reason"]


def test_trials_that_disagree_are_inconclusive_and_a_clear_miss_is_not_shown():
    result = verdict(CLAIM, figures(1.6, 1.1, 1.2), {}, QUIET)
    assert result["verdict"] == INCONCLUSIVE and "1 of 3 met it" in result["reason"]
    assert verdict(CLAIM, figures(1.0, 1.1, 1.2), {}, QUIET)["verdict"] == NOT_SHOWN


def test_a_figure_never_measured_is_not_shown():
    assert verdict(CLAIM, {}, {}, QUIET)["verdict"] == NOT_SHOWN


def test_a_check_has_exactly_one_bound():
    with pytest.raises(ValueError):
        Check("x")
    with pytest.raises(ValueError):
        Check("x", at_least=1, at_most=2)


@given(
    trials=st.lists(st.floats(0, 5, allow_nan=False), min_size=1, max_size=7),
    load=st.floats(0, 8),
    cold=st.booleans(),
    cpus=st.sampled_from([1, 2, 4]),
)
def test_shown_exactly_when_the_median_meets_the_check(trials, load, cold, cpus):
    conditions = Conditions(load_1m=load, machine_cpus=cpus, ray_cpus=cpus, cold=cold)
    summary = conclude(CLAIM, {"figures": {"speedup": spread(trials)}}, {}, conditions)
    assert consistent(CLAIM, summary)
    assert summary["claim"]["reason"]


def test_conclude_turns_figures_into_json_with_the_claim_first():
    f = Figures()
    f.define("speedup", "speed-up", "x")
    f.add("speedup", 2)
    summary = conclude(CLAIM, {"figures": f, "effect": "it ran"}, {}, QUIET)
    assert list(summary)[:3] == ["claim", "figures", "conditions"]
    assert summary["claim"]["verdict"] == SHOWN and summary["effect"] == "it ran"
    assert summary["conditions"] == {
        "load_1m": 0.2, "machine_cpus": 2, "ray_cpus": 2, "cold": False, "busy": False,
        "ray_cpus_free": None,
    }  # fmt: skip


def test_cpus_another_run_still_held_make_a_miss_inconclusive():
    held = Conditions(load_1m=0.4, machine_cpus=2, ray_cpus=2, cold=False, ray_cpus_free=1.5)
    result = verdict(CLAIM, figures(1.0, 1.1, 1.0), {}, held)
    assert result["verdict"] == INCONCLUSIVE
    assert "only 1.5 of Ray's 2 CPUs were free when the run started" in result["reason"]


@pytest.mark.parametrize("spec", DEMOS, ids=lambda s: s.slug)
def test_every_demo_claims_a_check_on_a_figure_and_hides_nothing_at_defaults(spec):
    assert spec.claim.hidden_by(spec.defaults()) is None
    assert all(c.figure for c in spec.claim.checks)
