"""Sizing drills' pure core: the whitelist evaluator, the interval check that refuses a formula
dividing by zero anywhere over its ranges, and draws that stay on their grid and repeat."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.quizzes import scoring
from apps.quizzes.drills import fill, sizing_drill
from apps.quizzes.formulas import DrillError, evaluate, formula_parse, interval

X = [{"name": "x", "min": 2, "max": 8}]
BIG = [{"name": "x", "min": 1e200, "max": 2e200, "step": 1e200}]


def refusal(**fields) -> DrillError:
    with pytest.raises(DrillError) as caught:
        sizing_drill(**({"given": X, "formula": "x", "tolerance": 0.05} | fields))
    return caught.value


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"formula": "1 / (x - 4)"}, "formula", "'x - 4' can be 0"),
        ({"formula": "x // (x - 8)"}, "formula", "'x - 8' can be 0"),
        ({"formula": "x ** -1 * (x - 2) ** -1"}, "formula", "'x - 2' can be 0"),
        ({"formula": "log2(x - 2)"}, "formula", "above 0"),
        ({"formula": "y * 2"}, "formula", "unknown name 'y'"),
        ({"formula": "__import__('os').system('true')"}, "formula", "unknown function"),
        ({"formula": "x.real"}, "formula", "not allowed"),
        ({"formula": "[x][0]"}, "formula", "not allowed"),
        ({"formula": "x if x else 1"}, "formula", "not allowed"),
        ({"formula": "x ** x"}, "formula", "exponent"),
        ({"formula": "(-2) ** x"}, "formula", "base above 0"),
        ({"formula": "x - 2"}, "formula", "can be 0"),
        ({"given": [{"name": "x", "min": 8, "max": 2}]}, "given[0]", "empty"),
        ({"given": [{"name": "x", "min": 2, "max": 2}]}, "given[0]", "one value"),
        ({"given": [{"name": "x", "min": 2, "max": 9, "step": 2}]}, "given[0].step", "whole"),
        ({"given": [{"name": "x", "min": 0.5, "max": 2}]}, "given[0].step", "step"),
        ({"given": [{"name": "X", "min": 2, "max": 8}]}, "given[0].name", "lowercase"),
        ({"given": X + X}, "given[1].name", "twice"),
        # Past Decimal's 28 digits: counted before the remainder is asked for.
        ({"given": [{"name": "x", "min": 0, "max": 1e300, "step": 1}]}, "given[0].step", "more"),
        ({"given": [{"name": "x", "min": 0, "max": 1, "step": 1e-28}]}, "given[0].step", "more"),
        # Bounds that overflow to inf - inf (or inf * 0) have none: never a NaN to round.
        ({"given": BIG, "formula": "ceil(x * x - x * x) + 1"}, "formula", "overflows"),
        ({"given": BIG, "formula": "(x * x - x * x) // 1 + 1"}, "formula", "overflows"),
        ({"given": BIG, "formula": "x * x * 0 + 1"}, "formula", "overflows"),
        ({"derived": [{"name": "y", "formula": "1 / (x - 5)"}]}, "derived[0].formula", "can be 0"),
        ({"tolerance": 0.9}, "tolerance", "0.5"),
        ({"tolerance": 0, "formula": "x / 3"}, "tolerance", "exact"),
        ({"prompt": "Size it."}, "prompt", "never shown"),
        ({"prompt": "{x} and {answer}"}, "prompt", "only drawn numbers"),
        ({"solution": "{x} then {z}"}, "solution", "unknown name 'z'"),
    ],
)
def test_bad_author_input_is_refused_with_the_field_named(fields, field, words):
    error = refusal(**fields)
    assert error.field == field
    assert words in error.message


def test_a_good_drill_draws_on_its_grid_and_a_seed_always_draws_the_same():
    drill = sizing_drill(
        given=[
            {"name": "envs", "min": 1, "max": 16},
            {"name": "ms", "min": 0.5, "max": 4, "step": 0.5},
        ],  # fmt: skip
        derived=[{"name": "sps", "formula": "envs * 1000 / ms"}],
        formula="ceil(50000 / sps)",
        tolerance=0,
        prompt="{envs} envs, {ms} ms",
        solution="{sps} samples/s, so {answer} runners",
    )
    first = drill.draw(1234, "q1")
    assert drill.draw(1234, "q1") == first  # a reload shows the same numbers
    assert first.derived["sps"] == first.given["envs"] * 1000 / first.given["ms"]
    assert first.answer == math.ceil(50000 / first.derived["sps"])
    draws = {tuple(drill.draw(seed, "q1").given.values()) for seed in range(40)}
    assert len(draws) > 20  # other attempts, other numbers
    assert fill("{sps} / {answer} / {nope}", first.numbers).endswith("/ {nope}")


# Random formulas over two names, to check the evaluator and the interval analysis together.
LEAVES = st.one_of(
    st.sampled_from(["a", "b"]), st.integers(1, 9).map(str), st.sampled_from(["0.5", "2.5"])
)


def _combine(children):
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/"]), children).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"
    )
    call = st.tuples(st.sampled_from(["ceil", "floor", "abs", "sqrt"]), children).map(
        lambda t: f"{t[0]}({t[1]})"
    )
    pair = st.tuples(st.sampled_from(["min", "max"]), children, children).map(
        lambda t: f"{t[0]}({t[1]}, {t[2]})"
    )
    powers = st.one_of(children.map(lambda c: f"({c}) ** 2"), children.map(lambda c: f"0.5 ** {c}"))
    return st.one_of(binary, call, pair, powers)


FORMULAS = st.recursive(LEAVES, _combine, max_leaves=8)


@given(
    text=FORMULAS,
    a=st.tuples(st.integers(-20, 20), st.integers(0, 20)),
    b=st.tuples(st.integers(-20, 20), st.integers(0, 20)),
    points=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=8),
)
def test_the_interval_holds_every_value_the_formula_takes_over_the_ranges(text, a, b, points):
    ranges = {"a": (a[0], a[0] + a[1]), "b": (b[0], b[0] + b[1])}
    node = formula_parse(text, ["a", "b"], "formula")
    try:
        lo, hi = interval(node, {k: (float(v[0]), float(v[1])) for k, v in ranges.items()})
    except Exception:  # refused as unsafe somewhere: nothing to check
        return
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return
    for u, v in points:
        env = {
            "a": ranges["a"][0] + u * (ranges["a"][1] - ranges["a"][0]),
            "b": ranges["b"][0] + v * (ranges["b"][1] - ranges["b"][0]),
        }
        value = evaluate(node, env)  # accepted means it cannot divide by zero here
        slack = 1e-9 * max(1.0, abs(lo), abs(hi))
        assert lo - slack <= value <= hi + slack, (text, env, value, (lo, hi))


@given(
    low=st.integers(-1000, 1000),
    steps=st.integers(1, 500),
    step=st.sampled_from([1, 2, 5, 0.5, 0.25, 0.1]),
    seed=st.integers(0, 2**31 - 1),
)
def test_a_draw_is_always_on_the_grid_between_min_and_max(low, steps, step, seed):
    high = round(low + steps * step, 6)
    drill = sizing_drill(
        given=[{"name": "x", "min": low, "max": high, "step": step}],
        formula="abs(x) + 1",
        tolerance=0.01,
    )
    value = drill.draw(seed, "k").given["x"]
    assert low <= value <= high
    assert abs((value - low) / step - round((value - low) / step)) < 1e-6


@given(key=st.floats(1e-3, 1e12), share=st.floats(0, 0.5), off=st.floats(-1, 1))
def test_an_answer_counts_exactly_when_it_is_within_the_tolerance(key, share, off):
    answer = key * (1 + off)
    spec = scoring.Question(id="q", kind=scoring.NUMERIC, key=key, tolerance=share)
    right = scoring.fraction_right(spec, answer) == 1
    if abs(off) <= share * 0.999:
        assert right
    elif abs(off) >= share * 1.001 + 1e-6:
        assert not right


@pytest.mark.parametrize("answer", ["12", True, None, [1], {"v": 1}, float("nan"), float("inf")])
def test_a_numeric_answer_that_is_not_a_finite_number_scores_0(answer):
    spec = scoring.Question(id="q", kind=scoring.NUMERIC, key=12.0, tolerance=0.1)
    assert scoring.fraction_right(spec, answer) == 0
    problems = scoring.answer_problems([spec], {"q": answer})
    assert (problems != []) == (answer is not None)


NUMBERS = st.one_of(
    st.integers(-(10**30), 10**30), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, 1, 1e-28, 1e300, -1e300, 5e-324, 1.7976931348623157e308]),
)  # fmt: skip


@given(low=NUMBERS, high=NUMBERS, step=NUMBERS, text=FORMULAS)
def test_any_author_numbers_make_a_drill_or_a_refusal_naming_the_field(low, high, step, text):
    """Whatever numbers and formula an author sends, the drill is made or refused with
    DrillError (a 400 naming the field): never another exception (a 500)."""
    given = [{"name": "a", "min": low, "max": high, "step": step},
             {"name": "b", "min": 1e200, "max": 3e200, "step": 1e200}]  # fmt: skip
    try:
        sizing_drill(given=given, formula=text, tolerance=0.05)
    except DrillError as exc:
        assert exc.field.split("[")[0].split(".")[0] in ("given", "formula", "tolerance")
