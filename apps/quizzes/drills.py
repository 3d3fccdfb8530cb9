"""Sizing drills: numbers drawn per attempt from ranges the author gives, a formula over them, a
tolerance, and a worked solution filled in with the learner's own numbers. Pure: no Django.

A drill names its inputs (`given`: a range each, drawn on a grid from min to max by step), may
name intermediate quantities (`derived`, each a formula over the names before it) and computes
its answer with `formula`. A formula is Python expression syntax restricted to numbers, the
drill's names, ``+ - * / // **`` (a power needs a number for its exponent or for its base),
parentheses and the functions in FUNCTIONS. It is parsed with
`ast` and walked by a whitelist evaluator: nothing is ever passed to ``eval``.

`sizing_drill` refuses bad author input with the field named (`DrillError.field`): an empty
range, a name used before it is defined, an unknown function, and any formula that can divide
by zero (or take the log of zero, ...) *anywhere* over the ranges. That last check runs each
formula in interval arithmetic over the ranges: an interval that covers every value a
sub-expression can take, so a denominator whose interval excludes 0 can never be 0. (Intervals
over-approximate, so the check may refuse a formula that is in fact safe, never pass one that
is not; rewriting the formula, e.g. ``a / (b - b + 1)`` as ``a``, settles it.)

Numbers are drawn by `SizingDrill.draw(seed, salt)`: the same seed and salt (an attempt's seed
and the question's public key) always give the same numbers, so a reload shows the same drill.
"""

from __future__ import annotations

import ast
import math
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from apps.quizzes.formulas import (
    FUNCTIONS,
    DrillError,
    Interval,
    UnsafeFormula,
    evaluate,
    formula_parse,
    interval,
    number_text,
)

NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
ANSWER = "answer"  # the placeholder of the answer in a worked solution
MAX_TOLERANCE = 0.5
MAX_VALUES = 10**6  # values in one range: plenty for any drill, and bounded
MAX_MAGNITUDE = 1e18  # an answer beyond this is a mistake in the formula, not a size
CHECKED_DRAWS = 32  # draws evaluated at import, beside the interval check


def _decimal(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DrillError(where, f"must be a number, got {value!r}")
    try:
        number = Decimal(str(value))
    except InvalidOperation:  # pragma: no cover - str() of a float is always a decimal
        raise DrillError(where, f"must be a number, got {value!r}") from None
    if not number.is_finite():
        raise DrillError(where, f"must be a finite number, got {value!r}")
    return number


@dataclass(frozen=True)
class Range:
    """One drawn input: the grid min, min + step, ..., max."""

    name: str
    min: Decimal
    max: Decimal
    step: Decimal
    unit: str = ""
    label: str = ""

    @property
    def count(self) -> int:
        return int((self.max - self.min) / self.step) + 1

    def value(self, index: int) -> float:
        number = self.min + self.step * index
        return float(int(number)) if number == number.to_integral_value() else float(number)

    @property
    def interval(self) -> Interval:
        return float(self.min), float(self.max)

    def values(self) -> list[float]:
        return [self.value(i) for i in range(self.count)]


def _name(name: Any, where: str, taken: set[str]) -> str:
    """A drawn or derived quantity's name, checked: lowercase, not reserved, not taken."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise DrillError(f"{where}.name", f"must be a lowercase name like step_ms, got {name!r}")
    if name in FUNCTIONS or name == ANSWER:
        raise DrillError(f"{where}.name", f"{name!r} is a reserved word")
    if name in taken:
        raise DrillError(f"{where}.name", f"{name!r} is defined twice")
    return name


def range_parse(raw: Any, where: str, taken: set[str]) -> Range:
    if not isinstance(raw, Mapping):
        raise DrillError(where, f"expected a mapping of name, min, max, step, got {raw!r}")
    unknown = sorted(set(raw) - {"name", "min", "max", "step", "unit", "label"})
    if unknown:
        raise DrillError(where, f"unknown key {unknown[0]!r} (allowed: label, max, min, name, "
                                "step, unit)")  # fmt: skip
    name = _name(raw.get("name"), where, taken)
    for key in ("min", "max"):
        if key not in raw:
            raise DrillError(f"{where}.{key}", "is missing")
    low, high = _decimal(raw["min"], f"{where}.min"), _decimal(raw["max"], f"{where}.max")
    if high < low:
        raise DrillError(where, f"the range of {name!r} is empty: min {raw['min']} is above max"
                                f" {raw['max']}")  # fmt: skip
    whole = low == low.to_integral_value() and high == high.to_integral_value()
    if "step" not in raw and not whole:
        raise DrillError(f"{where}.step", f"give the step of {name!r} (its ends are not whole)")
    step = _decimal(raw.get("step", 1), f"{where}.step")
    if step <= 0:
        raise DrillError(f"{where}.step", f"must be above 0, got {raw.get('step')}")
    # Counted before the remainder: Decimal's remainder refuses a quotient past its precision
    # (28 digits), which a range of 1e300 by 1 or of 1 by 1e-28 asks for.
    if (high - low) / step >= MAX_VALUES:
        raise DrillError(f"{where}.step", f"the range of {name!r} holds more than {MAX_VALUES:,}"
                                          " values: take a larger step")  # fmt: skip
    if (high - low) % step != 0:
        raise DrillError(f"{where}.step", f"max {raw['max']} is not min {raw['min']} plus a whole"
                                          f" number of steps of {raw.get('step', 1)}")  # fmt: skip
    drawn = Range(name, low, high, step, str(raw.get("unit") or ""), str(raw.get("label") or ""))
    if drawn.count < 2:
        raise DrillError(where, f"the range of {name!r} holds one value: a constant belongs in"
                                " the formula")  # fmt: skip
    if drawn.count > MAX_VALUES:
        raise DrillError(f"{where}.step", f"the range of {name!r} holds more than {MAX_VALUES:,}"
                                          " values: take a larger step")  # fmt: skip
    return drawn


@dataclass(frozen=True)
class Draw:
    """One attempt's numbers: the drawn inputs, the derived quantities and the answer."""

    given: dict[str, float]
    derived: dict[str, float]
    answer: float

    @property
    def numbers(self) -> dict[str, float]:
        """What a worked solution may show: every name, and ``answer``."""
        return {**self.given, **self.derived, ANSWER: self.answer}


@dataclass(frozen=True)
class SizingDrill:
    given: tuple[Range, ...]
    derived: tuple[tuple[str, ast.expr], ...]
    formula: ast.expr
    tolerance: float
    unit: str = ""

    def evaluate(self, given: Mapping[str, float]) -> Draw:
        """The derived quantities and the answer at the inputs `given`."""
        env = dict(given)
        derived = {}
        for name, node in self.derived:
            derived[name] = env[name] = evaluate(node, env)
        return Draw(given=dict(given), derived=derived, answer=evaluate(self.formula, env))

    def draw(self, seed: int | str | None, salt: str = "") -> Draw:
        """The numbers for one attempt: fixed by (seed, salt), on each range's grid."""
        rng = random.Random(f"{seed}/{salt}/given")
        return self.evaluate({r.name: r.value(rng.randrange(r.count)) for r in self.given})


def placeholders(template: str) -> list[str]:
    return PLACEHOLDER_RE.findall(template or "")


def fill(template: str, numbers: Mapping[str, float]) -> str:
    """`template` with each ``{name}`` replaced by its number; unknown names are left as
    written (`sizing_drill` refuses them in the author's texts)."""

    def one(match: re.Match) -> str:
        name = match.group(1)
        return number_text(numbers[name]) if name in numbers else match.group(0)

    return PLACEHOLDER_RE.sub(one, template or "")


def _tolerance(raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
        raise DrillError("tolerance", f"must be a number from 0 to {MAX_TOLERANCE}, got {raw!r}")
    if not 0 <= raw <= MAX_TOLERANCE:
        raise DrillError(
            "tolerance",
            f"must be from 0 (exact) to {MAX_TOLERANCE} (50% either way), got {raw!r}; it is a"
            " share of the answer, e.g. 0.05 for 5%",
        )
    return float(raw)


def sizing_drill(
    *, given: Any, formula: Any, tolerance: Any, derived: Any = None, unit: str = "",
    prompt: str = "", solution: str = "",
) -> SizingDrill:  # fmt: skip
    """A drill from its author's fields, checked whole; DrillError names the first bad field.

    `prompt` must show every drawn input and nothing else (`{name}` placeholders); `solution`
    may show any input, derived quantity and ``{answer}``."""
    if not isinstance(given, list) or not given:
        raise DrillError("given", "list at least one drawn number (name, min, max, step)")
    ranges: list[Range] = []
    taken: set[str] = set()
    for i, raw in enumerate(given):
        drawn = range_parse(raw, f"given[{i}]", taken)
        taken.add(drawn.name)
        ranges.append(drawn)
    env: dict[str, Interval] = {r.name: r.interval for r in ranges}
    names = [r.name for r in ranges]
    steps: list[tuple[str, ast.expr]] = []
    if derived is None:
        derived = []
    if not isinstance(derived, list):
        raise DrillError("derived", "must be a list of name and formula")
    for i, raw in enumerate(derived):
        where = f"derived[{i}]"
        if not isinstance(raw, Mapping) or set(raw) != {"name", "formula"}:
            raise DrillError(where, "each derived quantity has exactly a name and a formula")
        name = _name(raw["name"], where, taken)
        node = formula_parse(raw["formula"], names, f"{where}.formula")
        env[name] = _safe_interval(node, env, f"{where}.formula", ranges)
        steps.append((name, node))
        taken.add(name)
        names.append(name)
    node = formula_parse(formula, names, "formula")
    answer = _safe_interval(node, env, "formula", ranges)
    if answer[0] <= 0 <= answer[1]:
        raise DrillError(
            "formula",
            f"the answer can be 0 over the ranges (it spans {number_text(answer[0])} to"
            f" {number_text(answer[1])}), where a tolerance relative to it accepts only 0",
        )
    drill = SizingDrill(tuple(ranges), tuple(steps), node, _tolerance(tolerance), unit)
    inputs = [r.name for r in ranges]
    if prompt:
        shown = set(placeholders(prompt))
        for name in placeholders(prompt):
            if name not in inputs:
                why = "only drawn numbers may appear in the prompt" if name in names or (
                    name == ANSWER) else f"unknown name {name!r}"  # fmt: skip
                raise DrillError("prompt", f"{{{name}}}: {why}")
        missing = [n for n in inputs if n not in shown]
        if missing:
            raise DrillError("prompt", f"drawn number {missing[0]!r} is never shown: write"
                                       f" {{{missing[0]}}} where the learner reads it")  # fmt: skip
    if solution:
        for name in placeholders(solution):
            if name not in names and name != ANSWER:
                raise DrillError("solution", f"unknown name {name!r} in {{{name}}}")
    # The intervals vouch for every draw; the grid's corners and a few draws are evaluated too.
    samples = [{r.name: r.value(index % r.count) for r in ranges} for index in (0, -1)]
    samples += [drill.draw(seed, "check").given for seed in range(CHECKED_DRAWS)]
    for values in samples:
        result = drill.evaluate(values).answer
        if not math.isfinite(result):  # pragma: no cover - the intervals catch this first
            raise DrillError("formula", f"is not a finite number at {values}")
        if drill.tolerance == 0 and not float(result).is_integer():
            raise DrillError(
                "tolerance",
                f"0 asks for the exact answer, but it is {number_text(result)} at {values}:"
                " round it in the formula (ceil, floor, round) or give a tolerance",
            )
    return drill


def _safe_interval(node: ast.expr, env: Mapping[str, Interval], where: str, ranges) -> Interval:
    try:
        lo, hi = interval(node, env)
    except UnsafeFormula as exc:
        spans = ", ".join(
            f"{r.name} {number_text(float(r.min))} to {number_text(float(r.max))}" for r in ranges
        )
        raise DrillError(
            where,
            f"{exc.message} somewhere over the ranges (it spans {number_text(exc.interval[0])}"
            f" to {number_text(exc.interval[1])} for {spans})",
        ) from None
    except OverflowError:
        raise DrillError(where, "overflows over the ranges") from None
    reach = max(abs(lo), abs(hi))
    if not math.isfinite(reach) or reach > MAX_MAGNITUDE:
        raise DrillError(where, f"reaches {reach:.3g} over the ranges: check the units")
    return lo, hi
