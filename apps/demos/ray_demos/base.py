"""The demo contract: typed, bounded parameters, a chart description and a deadline.

Nothing here imports Ray or Django, so the web process can list and validate demos
without ever starting (or importing) Ray.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .claims import Claim

ParamValue = int | float | bool
Point = dict[str, Any]
Report = Callable[[Point], None]


class ParamError(ValueError):
    """Parameters a person sent that a demo cannot run with; the message says which and why."""

    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        super().__init__("; ".join(errors.values()))


class DemoStopped(Exception):
    """The run had to stop before its end (out of time, or cancelled)."""


class DeadlineExceeded(DemoStopped):
    pass


class ClusterBusy(DemoStopped):
    """The cluster did not give the run what it needs (free CPUs, actors started, an answer)
    within a bounded wait: the run ends inconclusive with what it measured, and says why."""


class DemoCancelled(DemoStopped):
    pass


class DemoUnavailable(RuntimeError):
    """An optional extra the demo needs (e.g. torch) is not installed."""


class ClusterUnreachable(DemoUnavailable):
    """Nothing answers at RAY_ADDRESS: the run fails at once, saying where it looked."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # "int" | "float" | "bool"
    default: ParamValue
    min: float | None = None
    max: float | None = None
    help: str = ""

    def __post_init__(self) -> None:
        if self.type not in {"int", "float", "bool"}:
            raise ValueError(f"{self.name}: type must be int, float or bool, got {self.type}")
        if self.type != "bool" and (self.min is None or self.max is None):
            raise ValueError(f"{self.name}: numbers need both bounds")

    def clean(self, raw: Any) -> ParamValue:
        """Return the value as its type, or raise ValueError with a sentence a person can act on."""
        if self.type == "bool":
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, str) and raw.strip().lower() in {"true", "1", "on", "yes"}:
                return True
            if isinstance(raw, str) and raw.strip().lower() in {"false", "0", "off", "no", ""}:
                return False
            if isinstance(raw, int) and raw in (0, 1):
                return bool(raw)
            raise ValueError(f"{self.name} must be true or false, got {_shown(raw)}")
        value = self._number(raw)
        assert self.min is not None and self.max is not None  # __post_init__: numbers have both
        if not (self.min <= value <= self.max):
            raise ValueError(
                f"{self.name} must be between {_fmt(self.min)} and {_fmt(self.max)},"
                f" got {_fmt(value)}"
            )
        return value

    def _number(self, raw: Any) -> int | float:
        kind = "a whole number" if self.type == "int" else "a number"
        if isinstance(raw, bool):
            raise ValueError(f"{self.name} must be {kind}, got {_shown(raw)}")
        try:
            value = float(raw.strip()) if isinstance(raw, str) else float(raw)
        except OverflowError:  # a JSON integer too long for a float: certainly out of bounds
            raise ValueError(
                f"{self.name} must be between {_fmt(self.min)} and {_fmt(self.max)},"
                f" got a {len(str(abs(raw)))}-digit number"
            ) from None
        except (TypeError, ValueError):
            raise ValueError(f"{self.name} must be {kind}, got {_shown(raw)}") from None
        if not math.isfinite(value):
            raise ValueError(f"{self.name} must be {kind}, got {_shown(raw)}")
        if self.type == "int":
            if value != int(value):
                raise ValueError(f"{self.name} must be a whole number, got {_shown(raw)}")
            return int(value)
        return value

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "min": self.min,
            "max": self.max,
            "help": self.help,
        }


def _shown(raw: Any, limit: int = 40) -> str:
    """repr() of a value a person sent, cut short: an error must not echo a megabyte back."""
    text = repr(raw)
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


def _fmt(value: float | None) -> str:
    if value is None:
        return "?"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@dataclass(frozen=True)
class Series:
    key: str
    label: str


@dataclass(frozen=True)
class Chart:
    """How the points of a run are drawn: one line per series, numeric x and y."""

    x_label: str
    x_unit: str
    y_label: str
    y_unit: str
    series: tuple[Series, ...]
    y_log: bool = False


@dataclass(frozen=True)
class DemoSpec:
    slug: str
    title: str
    description: str
    what_to_see: str  # what to look for in the chart and figures, never what will happen
    params: tuple[Param, ...]
    chart: Chart
    module: str  # apps.demos.ray_demos.<module> holds run(params, report, *, deadline)
    claim: Claim  # the lesson as a check on the run's own figures (see claims.py)
    modelled: str = ""  # what a sleep stands for, when the demo uses one
    needs: tuple[str, ...] = ()  # optional top-level packages, e.g. ("torch",)
    time_limit_s: int = 60  # the run is stopped after this; defaults finish well within
    # About how many points a run with these params reports: drives the progress bar.
    expected_points: Callable[[Mapping[str, Any]], int] = lambda params: 50
    # Ray nodes these params ask for, and the parameter that asks: checked against the cluster
    # the demos worker last ran on, so a run that cannot fit is refused before it is queued.
    nodes_needed: Callable[[Mapping[str, Any]], int] = lambda params: 1
    nodes_param: str = ""
    # Free CPUs the run needs before it starts, given the cluster's CPUs: by default all of
    # them, as a timing measured beside other work measures the other work too.
    cpus_needed: Callable[[Mapping[str, Any], float], float] = lambda params, cpus: cpus

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def defaults(self) -> dict[str, ParamValue]:
        return {p.name: p.default for p in self.params}


UNKNOWN_SHOWN = 5  # a body of many unknown names gets a short answer, not one line each


def validate_params(spec: DemoSpec, raw: Mapping[str, Any] | None) -> dict[str, ParamValue]:
    """Defaults overlaid with the cleaned values of `raw`; ParamError lists every problem."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ParamError({"params": f"params must be an object of name: value, got {_shown(raw)}"})
    errors: dict[str, str] = {}
    known = {p.name for p in spec.params}
    unknown = [name for name in raw if name not in known]
    allowed = ", ".join(sorted(known)) or "none"
    for name in unknown[:UNKNOWN_SHOWN]:
        errors[str(name)[:40]] = (
            f"unknown parameter {_shown(name)} for {spec.slug} (allowed: {allowed})"
        )
    if len(unknown) > UNKNOWN_SHOWN:
        errors["params"] = f"and {len(unknown) - UNKNOWN_SHOWN} more unknown parameters"
    cleaned = spec.defaults()
    for p in spec.params:
        if p.name in raw:
            try:
                cleaned[p.name] = p.clean(raw[p.name])
            except ValueError as exc:
                errors[p.name] = str(exc)
    if errors:
        raise ParamError(errors)
    return cleaned


class Deadline:
    """Wall-clock budget for a run, plus an optional "was it cancelled?" probe.

    Demos call check() in their loops and use remaining() as the timeout of every wait, so
    a run never blocks past its budget and a cancel is noticed within a fraction of a second.
    """

    def __init__(
        self,
        seconds: float,
        *,
        cancelled: Callable[[], bool] | None = None,
        clock: Callable[[], float] = time.monotonic,
        waiting: Callable[[str | None], None] | None = None,
    ):
        self._clock = clock
        self.seconds = seconds
        self.at = clock() + seconds
        self._cancelled = cancelled
        self._waiting = waiting

    def waiting(self, what: str | None) -> None:
        """Tell the run's page what the run is waiting for ("2 free CPUs"); None: nothing."""
        if self._waiting is not None:
            self._waiting(what)

    def remaining(self) -> float:
        return max(0.0, self.at - self._clock())

    def check(self) -> None:
        if self._cancelled is not None and self._cancelled():
            raise DemoCancelled("the run was cancelled")
        if self._clock() >= self.at:
            raise DeadlineExceeded(f"the demo ran out of its {self.seconds:g} s budget")

    def check_for(self, what: str) -> None:
        """check(), naming what the run was waiting for when time ran out."""
        try:
            self.check()
        except DeadlineExceeded:
            raise DeadlineExceeded(
                f"gave up waiting for {what}: the demo ran out of its {self.seconds:g} s budget"
                " (is the Ray cluster busy with another run?)"
            ) from None


_RATE: list[float] = []  # burn() iterations per second of this thread's CPU time, measured once


def burn(iterations: int) -> int:
    """A fixed amount of pure-Python arithmetic: real work that takes longer under contention."""
    acc = 0
    for i in range(iterations):
        acc += i * i % 7
    return acc


def _rate() -> float:
    if not _RATE:
        best = 0.0
        for _ in range(3):
            start = time.thread_time()
            burn(20_000)
            best = max(best, 20_000 / max(time.thread_time() - start, 1e-9))
        _RATE.append(best)
    return _RATE[0]


def cpu_spin(seconds: float) -> int:
    """Burn `seconds` of this thread's CPU time (not a sleep); stands for a forward pass or an
    env step.

    The work ends when the thread's own CPU clock (time.thread_time) has advanced by `seconds`,
    so every process burns the same CPU time per item, whatever ran beside it: when cores are
    shared the wall time grows, exactly as real work's would. A count of loop iterations timed
    on the wall clock instead depends on what else ran while it was timed, and a process timed
    under load did a fraction of the work it was asked for for the rest of its life.
    """
    end = time.thread_time() + seconds
    acc = 0
    while (left := end - time.thread_time()) > 0:
        acc += burn(max(50, int(left * _rate() / 4)))  # a quarter of what is left, then look
    return acc
