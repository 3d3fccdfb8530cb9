"""The claim/verdict contract: pure, no Ray, no Django."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.demos.ray_demos import DEMOS
from apps.demos.ray_demos.claims import (
    INCONCLUSIVE,
    NOT_SHOWN,
    SHOWN,
    YES_NO,
    Bound,
    Check,
    Claim,
    Conditions,
    Figures,
    conclude,
    consistent,
    number,
    quantity,
    spread,
    verdict,
)

QUIET = Conditions(load_1m=0.2, machine_cpus=2, ray_cpus=2, cold=False)
CLAIM = Claim(
    "tasks finish at least 1.5x faster",
    (Check("speedup", at_least=1.5, part="tasks at least 1.5x faster"),),
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


def test_numbers_are_written_one_way_with_their_units():
    assert [number(v) for v in (0, 1.5, 1.934, 0.11834, 1234.5, 2.9e-4)] == [
        "0", "1.5", "1.93", "0.118", "1,234", "2.90e-04"
    ]  # fmt: skip
    assert quantity(1.934, "x") == "1.93x" and quantity(0.412, "s") == "0.412 s"
    assert quantity(1, "copies") == "1 copy" and quantity(3, "copies") == "3 copies"
    assert quantity(1, YES_NO) == "yes" and quantity(0, YES_NO) == "no"
    assert quantity(None, "s") == "not measured"


def test_a_median_that_meets_the_check_is_shown_part_by_part():
    result = verdict(CLAIM, figures(1.4, 1.8, 1.9), {}, QUIET)
    assert result["verdict"] == SHOWN
    assert result["reason"] == "The claim held, over 3 trials of this run."
    assert result["parts"][0]["sentence"] == (
        "Tasks at least 1.5x faster: 1.8x (median of 3 trials); the claim needs at least 1.5x, "
        "so it holds."
    )


def test_a_ratio_of_two_medians_says_both():
    claim = Claim("t", (Check("serial_s", over="tasks_s", at_least=1.5, part="tasks faster"),))
    figs = {"serial_s": spread([0.8, 0.82], "one at a time", "s"),
            "tasks_s": spread([0.4, 0.42], "in parallel", "s")}  # fmt: skip
    part = verdict(claim, figs, {}, QUIET)["parts"][0]
    assert part["holds"] and part["value"] == 1.976
    assert part["sentence"] == (
        "Tasks faster: 1.98x, from the medians of 2 trials (one at a time: 0.81 s; in "
        "parallel: 0.41 s); the claim needs at least 1.5x, so it holds."
    )


def test_every_part_is_checked_and_each_says_its_outcome():
    claim = Claim("two parts", (Check("speedup", at_least=1.5, part="fast"),
                                Check("exact", at_least=1, part="exact")))  # fmt: skip
    figs = {**figures(1.8, 1.9, 2.0), "exact": spread([1, 0, 0], "exact", YES_NO)}
    result = verdict(claim, figs, {}, QUIET)
    assert result["verdict"] == INCONCLUSIVE  # the second part met in 1 of 3 trials
    assert [p["holds"] for p in result["parts"]] == [True, False]
    assert result["parts"][1]["sentence"] == (
        "Exact: yes in 1 of 3 trials; the claim needs yes, so it does not hold."
    )


def test_a_parameter_that_hides_the_effect_is_named():
    result = verdict(CLAIM, figures(1.0, 1.1, 1.0), {"work_ms": 1}, QUIET)
    assert result["verdict"] == NOT_SHOWN
    assert result["reason"] == "This run's parameters hide the effect: work_ms=1: too short."


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
    assert result["verdict"] == INCONCLUSIVE and "1 of 3 met this part" in result["reason"]
    missed = verdict(CLAIM, figures(1.0, 1.1, 1.2), {}, QUIET)
    assert (
        missed["verdict"] == NOT_SHOWN and missed["reason"] == "Missed: tasks at least 1.5x faster."
    )


def test_a_figure_never_measured_is_inconclusive_not_a_miss():
    result = verdict(CLAIM, {}, {}, QUIET)
    assert result["verdict"] == INCONCLUSIVE
    assert result["parts"][0]["sentence"] == (
        "Tasks at least 1.5x faster: not measured in this run, so this part was not tested."
    )


def test_a_check_has_exactly_one_threshold():
    with pytest.raises(ValueError):
        Check("x")
    with pytest.raises(ValueError):
        Check("x", at_least=1, at_most=2)


BOUNDED = Claim(
    "an actor is not faster than its work",
    (Check("speedup", at_least=1.5),),
    bounds=(Bound("actor_s", lambda p, c: p["n"] * p["ms"] / 1000, "{n} calls of {ms} ms"),),
)


def test_a_trial_beyond_a_physical_bound_is_never_shown():
    figs = {**figures(2.0, 2.1, 2.2), "actor_s": spread([0.81, 0.118, 0.9], "one actor", "s")}
    result = verdict(BOUNDED, figs, {"n": 8, "ms": 100}, QUIET)
    assert result["verdict"] == INCONCLUSIVE and result["parts"][0]["holds"]
    assert result["reason"] == (
        "The measurement is not trustworthy: one actor: 0.118 s in trial 2, under the limit of "
        "0.8 s (8 calls of 100 ms)."
    )


@given(
    trials=st.lists(st.floats(0, 5, allow_nan=False), min_size=1, max_size=7),
    actor=st.lists(st.floats(0, 2, allow_nan=False), min_size=1, max_size=7),
    load=st.floats(0, 8),
    cold=st.booleans(),
    cpus=st.sampled_from([1, 2, 4]),
    stopped=st.sampled_from([None, "out of budget"]),
)
def test_shown_exactly_when_every_part_holds_no_bound_breaks_and_the_run_ended(
    trials, actor, load, cold, cpus, stopped
):
    conditions = Conditions(load_1m=load, machine_cpus=cpus, ray_cpus=cpus, cold=cold)
    figs = {"speedup": spread(trials), "actor_s": spread(actor, "one actor", "s")}
    summary = {"figures": figs, **({"stopped": stopped} if stopped else {})}
    params = {"n": 8, "ms": 100}
    result = conclude(BOUNDED, summary, params, conditions)
    assert consistent(BOUNDED, result, params, conditions)
    assert result["claim"]["reason"]
    if any(a < 0.8 * 0.98 for a in actor):
        assert result["claim"]["verdict"] == INCONCLUSIVE and result["claim"]["breaches"]


def test_figures_report_each_charted_trial_as_the_same_number_they_store():
    points = []
    f = Figures(points.append)
    f.define("tasks_s", "parallel tasks", "s", series="tasks")
    f.define("count", "the actor's count", "calls")
    assert f.add("tasks_s", 0.4123456, x=1) == 0.4123
    f.add("count", 8)
    f.point("tasks", 0, 0.5, warmup=True)
    assert points == [
        {"series": "tasks", "x": 1, "y": 0.4123, "figure": "tasks_s"},
        {"series": "tasks", "x": 0, "y": 0.5, "warmup": True},
    ]
    assert f.as_dict()["tasks_s"]["trials"] == [0.4123] and f.as_dict()["tasks_s"]["series"]
    assert f.trials_done == 1


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
def test_every_demo_checks_each_part_in_words_and_hides_nothing_at_defaults(spec):
    assert spec.claim.hidden_by(spec.defaults()) is None
    assert all(c.figure and c.part for c in spec.claim.checks)
    assert spec.claim.bounds, "each demo declares the physical bounds of its figures"
