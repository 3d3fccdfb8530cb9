"""The catalogue and parameter validation: pure, no Ray, no Django."""

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.demos.ray_demos import DEMOS, Deadline, ParamError, get_demo, validate_params
from apps.demos.ray_demos.base import DeadlineExceeded, DemoCancelled


def test_catalogue_has_the_ten_demos_of_the_design_and_four_for_a_cluster():
    assert len(DEMOS) == 14
    assert len({d.slug for d in DEMOS}) == 14
    assert sum(d.slug.startswith("cluster-") for d in DEMOS) == 4


@pytest.mark.parametrize("spec", DEMOS, ids=lambda s: s.slug)
def test_each_demo_is_described_and_its_defaults_validate(spec):
    assert spec.title and spec.description
    assert 2 <= spec.what_to_see.count(". ") + 1 <= 4
    # What to look for, never what will happen: the outcome is the run's verdict.
    assert " will " not in f" {spec.what_to_see} " and "usually" not in spec.what_to_see
    assert spec.claim.text and spec.claim.checks
    assert validate_params(spec, {}) == spec.defaults()
    for p in spec.params:
        if p.type != "bool":
            assert p.min <= p.default <= p.max, p.name
        assert p.help, p.name
    assert spec.chart.series


def test_out_of_bounds_names_the_parameter_the_bounds_and_the_value():
    with pytest.raises(ParamError) as err:
        validate_params(get_demo("tasks-vs-actors"), {"n_items": 500})
    assert str(err.value) == "n_items must be between 1 and 64, got 500"
    assert set(err.value.errors) == {"n_items"}


def test_unknown_parameters_are_refused_with_the_allowed_names():
    with pytest.raises(ParamError) as err:
        validate_params(get_demo("tasks-vs-actors"), {"n_itmes": 5})
    assert "unknown parameter 'n_itmes'" in str(err.value)
    assert "(allowed: n_items, trials, work_ms)" in str(err.value)


def test_types_are_checked_and_strings_from_forms_are_accepted():
    spec = get_demo("fault-tolerance")
    assert validate_params(spec, {"steps": "10", "kill": "false"})["steps"] == 10
    assert validate_params(spec, {"kill": "on"})["kill"] is True
    with pytest.raises(ParamError, match="steps must be a whole number, got 2.5"):
        validate_params(spec, {"steps": 2.5})
    with pytest.raises(ParamError, match="kill must be true or false"):
        validate_params(spec, {"kill": "maybe"})
    with pytest.raises(ParamError, match="steps must be a whole number"):
        validate_params(spec, {"steps": True})
    with pytest.raises(ParamError, match="must be an object"):
        validate_params(spec, ["steps"])


@given(st.sampled_from(DEMOS), st.data())
def test_validation_accepts_exactly_the_values_in_bounds(spec, data):
    numeric = [p for p in spec.params if p.type != "bool"]
    p = data.draw(st.sampled_from(numeric))
    value = data.draw(
        st.integers(-10_000, 10_000) if p.type == "int" else st.floats(-1e4, 1e4, allow_nan=False)
    )
    inside = p.min <= value <= p.max
    try:
        cleaned = validate_params(spec, {p.name: value})
    except ParamError as exc:
        assert not inside
        assert str(exc).startswith(f"{p.name} must be between ") and " got " in str(exc)
    else:
        assert inside and cleaned[p.name] == value


def test_deadline_raises_when_spent_or_cancelled():
    now = [0.0]
    deadline = Deadline(5, clock=lambda: now[0])
    deadline.check()
    now[0] = 5.0
    with pytest.raises(DeadlineExceeded, match="5 s budget"):
        deadline.check()
    with pytest.raises(DemoCancelled):
        Deadline(5, cancelled=lambda: True).check()


def test_the_catalogue_imports_neither_ray_nor_django():
    code = (
        "import sys; import apps.demos.ray_demos as d; d.is_available(d.DEMOS[-1]);"
        "print(sorted(m for m in ('ray', 'django', 'torch') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_demo_needing_a_missing_extra_is_not_available():
    from dataclasses import replace

    from apps.demos.ray_demos import is_available, missing_extras

    spec = replace(get_demo("rllib-ppo"), needs=("numpy", "no_such_package_raydeck"))
    assert missing_extras(spec) == ["no_such_package_raydeck"]
    assert not is_available(spec)


def test_an_integer_too_big_for_a_float_is_out_of_bounds_not_a_crash():
    with pytest.raises(ParamError, match=r"^max_lag must be between 1 and 20, got a 401-digit"):
        validate_params(get_demo("vtrace"), {"max_lag": 10**400})


def test_a_huge_or_crowded_params_object_gets_a_short_answer():
    params = {"rho_bar": "x" * 100_000, **{f"extra_{i}": 1 for i in range(10_000)}}
    with pytest.raises(ParamError) as err:
        validate_params(get_demo("vtrace"), params)
    assert len(str(err.value)) < 1000
    assert "rho_bar must be a number, got 'xxx" in str(err.value)
    assert err.value.errors["params"] == "and 9995 more unknown parameters"
