"""The formula language of sizing drills: Python expression syntax restricted to numbers, the
drill's names, ``+ - * / // **`` and the functions in FUNCTIONS, parsed with `ast` and walked by
a whitelist evaluator (nothing is ever passed to ``eval``), and the same walk in interval
arithmetic, which bounds every value a formula can take over the drill's ranges. Pure: no Django.
apps/quizzes/drills.py builds drills on it."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

MAX_FORMULA = 300  # characters


class DrillError(ValueError):
    """A drill that cannot be accepted: `field` says where (``formula``, ``given[1].max``)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


Interval = tuple[float, float]


def _monotone(fn: Callable[[float], float]) -> Callable[[Interval], Interval]:
    return lambda iv: (fn(iv[0]), fn(iv[1]))


def _positive(name: str, fn: Callable[[float], float], strict: bool):
    def interval(iv: Interval) -> Interval:
        if iv[0] < 0 or (strict and iv[0] <= 0):
            bound = "above 0" if strict else "0 or more"
            raise UnsafeFormula(f"{name}() needs a value {bound}", iv)
        return fn(iv[0]), fn(iv[1])

    return interval


def _abs_interval(iv: Interval) -> Interval:
    lo, hi = iv
    if lo >= 0:
        return lo, hi
    if hi <= 0:
        return -hi, -lo
    return 0.0, max(-lo, hi)


@dataclass(frozen=True)
class _Function:
    value: Callable[..., float]
    interval: Callable[..., Interval]
    arity: tuple[int, int]  # least and most arguments


def _min_interval(*ivs: Interval) -> Interval:
    return min(iv[0] for iv in ivs), min(iv[1] for iv in ivs)


def _max_interval(*ivs: Interval) -> Interval:
    return max(iv[0] for iv in ivs), max(iv[1] for iv in ivs)


FUNCTIONS: dict[str, _Function] = {
    "ceil": _Function(lambda x: float(math.ceil(x)), _monotone(math.ceil), (1, 1)),
    "floor": _Function(lambda x: float(math.floor(x)), _monotone(math.floor), (1, 1)),
    "round": _Function(lambda x: float(round(x)), _monotone(round), (1, 1)),
    "abs": _Function(abs, _abs_interval, (1, 1)),
    "min": _Function(min, _min_interval, (2, 8)),
    "max": _Function(max, _max_interval, (2, 8)),
    "sqrt": _Function(math.sqrt, _positive("sqrt", math.sqrt, strict=False), (1, 1)),
    "log2": _Function(math.log2, _positive("log2", math.log2, strict=True), (1, 1)),
    "log10": _Function(math.log10, _positive("log10", math.log10, strict=True), (1, 1)),
}
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
              ast.Pow: "**"}  # fmt: skip


class UnsafeFormula(Exception):
    """A sub-expression that can fail somewhere over the ranges (raised by interval checks)."""

    def __init__(self, message: str, interval: Interval):
        super().__init__(message)
        self.message, self.interval = message, interval


def _is_number(value: object) -> TypeGuard[int | float]:
    """An int or a float constant (not a bool, a complex or a string)."""
    return type(value) in (int, float)


def _number(node: ast.AST) -> float | None:
    """The value of a constant, or of a minus sign before one; else None."""
    if isinstance(node, ast.Constant) and _is_number(node.value):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    return None


def formula_parse(text: str, names: Sequence[str], where: str) -> ast.expr:
    """The checked syntax tree of one formula over `names`; DrillError names `where`."""
    if not isinstance(text, str) or not text.strip():
        raise DrillError(where, "the formula is missing or empty")
    if len(text) > MAX_FORMULA:
        raise DrillError(where, f"the formula is longer than {MAX_FORMULA} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise DrillError(where, f"not a formula ({exc.msg}) in {text.strip()!r}") from None
    known = set(names)

    def check(node: ast.AST) -> None:
        if isinstance(node, ast.Constant):
            if not _is_number(node.value) or not math.isfinite(node.value):
                raise DrillError(where, f"{node.value!r} is not a number")
        elif isinstance(node, ast.Name):
            if node.id not in known:
                hint = f" (known: {', '.join(names)})" if names else ""
                if node.id in FUNCTIONS:
                    hint = f" ({node.id} is a function: write {node.id}(...))"
                raise DrillError(where, f"unknown name {node.id!r}{hint}")
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _OPERATORS:
                raise DrillError(where, f"the operator in {ast.unparse(node)!r} is not allowed"
                                        " (use + - * / // **)")  # fmt: skip
            if isinstance(node.op, ast.Pow) and _number(node.right) is None:
                base = _number(node.left)
                if base is None or base <= 0:
                    raise DrillError(
                        where,
                        f"in {ast.unparse(node)!r} the exponent or the base must be a number"
                        " (a base above 0)",
                    )
            check(node.left)
            check(node.right)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                raise DrillError(where, f"{ast.unparse(node)!r} is not allowed")
            check(node.operand)
        elif isinstance(node, ast.Call):
            fn = FUNCTIONS.get(node.func.id) if isinstance(node.func, ast.Name) else None
            if fn is None:
                allowed = ", ".join(FUNCTIONS)
                raise DrillError(
                    where, f"unknown function {ast.unparse(node.func)!r} (allowed: {allowed})"
                )
            if node.keywords or not fn.arity[0] <= len(node.args) <= fn.arity[1]:
                raise DrillError(where, f"wrong arguments in {ast.unparse(node)!r}")
            for arg in node.args:
                check(arg)
        else:
            raise DrillError(where, f"{ast.unparse(node)!r} is not allowed in a formula")

    check(tree.body)
    return tree.body


def evaluate(node: ast.expr, env: Mapping[str, float]) -> float:
    """The value of a checked formula (`formula_parse`) at the numbers in `env`."""
    if isinstance(node, ast.Constant):
        assert _is_number(node.value)  # formula_parse checked it
        return float(node.value)
    if isinstance(node, ast.Name):
        return float(env[node.id])
    if isinstance(node, ast.UnaryOp):
        value = evaluate(node.operand, env)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)  # formula_parse allows calls by name only
        return float(FUNCTIONS[node.func.id].value(*(evaluate(a, env) for a in node.args)))
    assert isinstance(node, ast.BinOp)
    left, right = evaluate(node.left, env), evaluate(node.right, env)
    op = type(node.op)
    if op is ast.Add:
        return left + right
    if op is ast.Sub:
        return left - right
    if op is ast.Mult:
        return left * right
    if op is ast.Div:
        return left / right
    if op is ast.FloorDiv:
        return float(left // right)
    return float(left**right)


def _mul(a: Interval, b: Interval) -> Interval:
    products = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    if any(math.isnan(p) for p in products):  # inf * 0: an end overflowed
        raise OverflowError("a product overflows: its bounds are lost")
    return min(products), max(products)


def _reciprocal(node: ast.expr, iv: Interval) -> Interval:
    if iv[0] <= 0 <= iv[1]:
        raise UnsafeFormula(f"the denominator {ast.unparse(node)!r} can be 0", iv)
    return 1 / iv[1], 1 / iv[0]


def interval(node: ast.expr, env: Mapping[str, Interval]) -> Interval:
    """An interval holding every value of `node` when each name takes any value of its
    interval in `env`; UnsafeFormula where a sub-expression can divide by zero or leave a
    function's domain, OverflowError where a bound overflows (inf - inf, inf * 0 have none)."""
    lo, hi = _interval(node, env)
    if math.isnan(lo) or math.isnan(hi):
        raise OverflowError(f"{ast.unparse(node)!r} overflows: its bounds are lost")
    return lo, hi


def _interval(node: ast.expr, env: Mapping[str, Interval]) -> Interval:
    if isinstance(node, ast.Constant):
        assert _is_number(node.value)  # formula_parse checked it
        return float(node.value), float(node.value)
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        lo, hi = interval(node.operand, env)
        return (-hi, -lo) if isinstance(node.op, ast.USub) else (lo, hi)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)  # formula_parse allows calls by name only
        fn = FUNCTIONS[node.func.id]
        return fn.interval(*(interval(a, env) for a in node.args))
    assert isinstance(node, ast.BinOp)
    a, b = interval(node.left, env), interval(node.right, env)
    op = type(node.op)
    if op is ast.Add:
        return a[0] + b[0], a[1] + b[1]
    if op is ast.Sub:
        return a[0] - b[1], a[1] - b[0]
    if op is ast.Mult:
        return _mul(a, b)
    if op in (ast.Div, ast.FloorDiv):
        lo, hi = _mul(a, _reciprocal(node.right, b))
        return (math.floor(lo), math.floor(hi)) if op is ast.FloorDiv else (lo, hi)
    exponent = _number(node.right)
    if exponent is None:  # a positive constant base: monotone in the exponent
        base = a[0]
        ends = [base ** b[0], base ** b[1]]
        return min(ends), max(ends)
    if exponent < 0:
        a = _reciprocal(node.left, a)
        exponent = -exponent
    if a[0] < 0 and not exponent.is_integer():
        text = ast.unparse(node.left)
        raise UnsafeFormula(f"{text!r} can be negative under a fractional power", a)
    ends = [a[0] ** exponent, a[1] ** exponent]
    if a[0] < 0 < a[1]:
        ends.append(0.0)
    return min(ends), max(ends)


def number_text(value: float) -> str:
    """A number as a drill shows it: whole numbers in full with thousands separators, others to
    four significant figures (never in e-notation below a million)."""
    if not math.isfinite(value):
        return str(value)
    if abs(value - round(value)) < 1e-9 * max(1.0, abs(value)):
        return f"{round(value):,}"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    text = f"{value:.4g}"
    if "e" in text:  # below 1e-4: plain decimals are still readable here
        text = f"{value:.8f}".rstrip("0")
    return text
