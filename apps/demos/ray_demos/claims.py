"""What a demo claims, checked against what this run measured: a verdict, never a promise.

Each DemoSpec carries a Claim: a sentence, one check per part of it, and the physical bounds of
the figures its demo measures over repeated trials. The demo returns its figures (every trial's
value); verdict() first holds every trial against the bounds (a figure beyond what physics
allows means the measurement is wrong, whatever the checks say), then checks each part on the
medians, and turns the result into "shown", "not_shown" or "inconclusive" with the reason, from
the figures and the conditions of the run (load average, the CPUs Ray had, a cold first run, a
parameter that hides the effect, a run stopped early). Every sentence a learner reads is written
here, with its numbers written by number() and quantity(), so the verdict, the table and the
chart print the same figure the same way. Nothing here imports Ray or Django.
"""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

SHOWN, NOT_SHOWN, INCONCLUSIVE = "shown", "not_shown", "inconclusive"
VERDICTS = (SHOWN, NOT_SHOWN, INCONCLUSIVE)
# A 1-minute load average at or above this many runnable processes per CPU, measured before
# the run, means others competed for the CPUs: a failed timing claim is then inconclusive.
BUSY_LOAD_PER_CPU = 0.75
YES_NO = "yes/no"  # the unit of a figure that is 1 for yes and 0 for no
UNTRUSTWORTHY = "the measurement is not trustworthy"


def number(value: float) -> str:
    """A figure as every page writes it: three significant digits, thousands with commas."""
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 1e-3:
        text = f"{value:.3g}"
        return f"{float(text):,.0f}" if "e" in text else text
    return f"{value:.2e}"


# Units that are counted things, and their singular: "1 copy", "2 copies".
_ONE = {"copies": "copy", "actors": "actor", "calls": "call", "steps": "step",
        "attempts": "attempt", "versions": "version", "observations": "observation"}  # fmt: skip


def quantity(value: float | None, unit: str = "") -> str:
    """A figure with its unit, in words: "1.93x", "0.412 s", "78.3%", "yes", "0 of 2"."""
    if value is None:
        return "not measured"
    if unit == YES_NO:
        return "yes" if value >= 0.5 else "no"
    if unit in ("x", "%"):
        return f"{number(value)}{unit}"
    if number(value) == "1":
        unit = _ONE.get(unit, unit)
    return f"{number(value)} {unit}" if unit else number(value)


def _trials(n: int) -> str:
    return f"{n} trial{'s' * (n != 1)}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class Check:
    """One part of a claim: the median of a figure, or the ratio of two figures' medians
    (`over`: median(figure) / median(over)), against a threshold."""

    figure: str
    at_least: float | None = None
    at_most: float | None = None
    part: str = ""  # this part of the claim in words, e.g. "the actor's counter was exact"
    over: str = ""

    def __post_init__(self) -> None:
        if (self.at_least is None) == (self.at_most is None):
            raise ValueError(f"{self.figure}: a check has exactly one of at_least, at_most")

    def holds(self, value: float | None) -> bool:
        if value is None:
            return False
        if self.at_least is not None:
            return value >= self.at_least
        return self.at_most is not None and value <= self.at_most

    @property
    def threshold(self) -> float:
        limit = self.at_least if self.at_least is not None else self.at_most
        assert limit is not None  # __post_init__: exactly one of them is set
        return limit

    @property
    def op(self) -> str:
        return ">=" if self.at_least is not None else "<="

    def unit(self, figures: Mapping[str, Mapping[str, Any]]) -> str:
        return "x" if self.over else figures.get(self.figure, {}).get("unit", "")

    def needs(self, unit: str) -> str:
        """What the claim needs, in words: "at least 1.5x", "0 of 2", "yes"."""
        if unit == YES_NO:
            return quantity(self.threshold if self.at_least is not None else 0, YES_NO)
        if self.at_most == 0:
            return quantity(0, unit)
        side = "at least" if self.at_least is not None else "at most"
        return f"{side} {quantity(self.threshold, unit)}"

    def value(self, figures: Mapping[str, Mapping[str, Any]]) -> float | None:
        """The checked value: the figure's median, or the ratio of the two medians."""
        top = figures.get(self.figure, {}).get("median")
        if not self.over:
            return top
        bottom = figures.get(self.over, {}).get("median")
        if top is None or bottom is None or bottom <= 0:
            return None
        return _round(top / bottom)

    def trial_values(self, figures: Mapping[str, Mapping[str, Any]]) -> list[float]:
        """The checked value trial by trial (ratios paired by trial)."""
        tops = figures.get(self.figure, {}).get("trials") or []
        if not self.over:
            return list(tops)
        bottoms = figures.get(self.over, {}).get("trials") or []
        return [a / b for a, b in zip(tops, bottoms, strict=False) if b > 0]

    def outcome(self, figures: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """This part's result: whether it held, and a sentence with the numbers it rests on."""
        fig = figures.get(self.figure, {})
        value, unit = self.value(figures), self.unit(figures)
        trials = fig.get("trials") or []
        n = len(trials)
        part = _capital(self.part or fig.get("label") or self.figure)
        if value is None:
            return {"figure": self.figure, "over": self.over, "part": part, "holds": False,
                    "value": None, "sentence": f"{part}: not measured in this run, so this "
                    "part was not tested."}  # fmt: skip
        if self.over:
            other = figures.get(self.over, {})
            measured = (
                f"{quantity(value, 'x')}, from the "
                f"{'medians of ' + _trials(n) if n > 1 else 'one trial'} "
                f"({fig.get('label', self.figure)}: "
                f"{quantity(fig.get('median'), fig.get('unit', ''))}; "
                f"{other.get('label', self.over)}: "
                f"{quantity(other.get('median'), other.get('unit', ''))})"
            )
        elif unit == YES_NO:
            yes = sum(1 for v in trials if v >= 0.5)
            measured = f"yes in {yes} of {_trials(n)}" if n > 1 else quantity(value, unit)
        else:
            spread_of = f"median of {_trials(n)}" if n > 1 else "one trial"
            measured = f"{quantity(value, unit)} ({spread_of})"
        holds = self.holds(value)
        sentence = (
            f"{part}: {measured}; the claim needs {self.needs(unit)}, so it "
            f"{'holds' if holds else 'does not hold'}."
        )
        return {"figure": self.figure, "over": self.over, "part": part, "holds": holds,
                "value": value, "sentence": sentence}  # fmt: skip

    def as_dict(self) -> dict[str, Any]:
        return {"figure": self.figure, "over": self.over, "op": self.op,
                "threshold": self.threshold, "part": self.part}  # fmt: skip


Params = Mapping[str, Any]


@dataclass(frozen=True)
class Bound:
    """A physical limit on every trial of a figure: an actor serving calls one at a time cannot
    beat calls x work, a copy cannot beat memory bandwidth, a count cannot exceed what was
    counted. A trial beyond it means the measurement is wrong, not that the claim holds.

    limit(params, conditions) is the limit for this run (None: none applies); `because` says
    why in words and may name the run's parameters and the limit, e.g. "{work_ms} ms each".
    """

    figure: str
    limit: Callable[[Params, Conditions], float | None]
    because: str
    upper: bool = False  # False: no trial may be below the limit; True: none above it
    slack: float = 0.02  # clocks and counters are not exact to the last per cent

    def breaches(self, figures: Mapping[str, Mapping[str, Any]], params: Params,
                 conditions: Conditions) -> list[str]:  # fmt: skip
        fig = figures.get(self.figure) or {}
        limit = self.limit(params, conditions)
        if limit is None or not fig.get("trials"):
            return []
        tolerance = self.slack * abs(limit) + 1e-9
        bad = [
            (i, v)
            for i, v in enumerate(fig["trials"], start=1)
            if (v > limit + tolerance if self.upper else v < limit - tolerance)
        ]
        if not bad:
            return []
        unit = fig.get("unit", "")
        worst_i, worst = (
            max(bad, key=lambda t: t[1]) if self.upper else min(bad, key=lambda t: t[1])
        )
        where = (
            f"in trial {worst_i}" if len(bad) == 1 else f"in {len(bad)} trials (trial {worst_i})"
        )
        side = "over" if self.upper else "under"
        why = self.because.format(**params, limit=quantity(limit, unit),
                                  cpus=number(conditions.ray_cpus))  # fmt: skip
        return [
            f"{fig.get('label') or self.figure}: {quantity(worst, unit)} {where}, {side} the "
            f"limit of {quantity(limit, unit)} ({why})"
        ]


def _never_hidden(params: Params) -> str | None:
    return None


@dataclass(frozen=True)
class Claim:
    """The lesson as a check on this run's own measurements.

    text: the sentence a person reads.
    checks: one per part of the claim; every one must hold for the verdict "shown".
    bounds: the physical limits of the figures; a trial beyond one makes the run inconclusive.
    hidden_by: params -> a sentence naming the parameter whose value hides the effect, or None.
    needs_cpus: the CPUs Ray must have for the effect to be possible at all.
    timing: whether the figures are timings that other load on the machine can move.
    """

    text: str
    checks: tuple[Check, ...]
    bounds: tuple[Bound, ...] = ()
    hidden_by: Callable[[Params], str | None] = _never_hidden
    needs_cpus: float = 1
    timing: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "checks": [c.as_dict() for c in self.checks]}


def _round(value: float) -> float:
    return float(f"{value:.4g}")


@dataclass
class Figures:
    """A demo's measurements: every trial's value of each figure, with a label and a unit.

    A figure defined with a chart series is also a point of that series when it is added with
    an x: the chart, the table and the verdict then draw on the very same numbers."""

    report: Callable[[dict[str, Any]], None] = field(default=lambda point: None, repr=False)
    values: dict[str, list[float]] = field(default_factory=dict)
    labels: dict[str, tuple[str, str]] = field(default_factory=dict)
    series: dict[str, str] = field(default_factory=dict)

    def define(self, key: str, label: str, unit: str = "", *, series: str = "") -> None:
        self.labels[key] = (label, unit)
        self.values.setdefault(key, [])
        if series:
            self.series[key] = series

    def add(self, key: str, value: float, *, x: float | None = None, **extra: Any) -> float:
        """Record one trial of a figure; with x, also report it as a point of its series."""
        if key not in self.labels:
            raise KeyError(f"figure {key!r} is not defined")
        value = _round(float(value))
        self.values[key].append(value)
        if x is not None and key in self.series:
            self.report({"series": self.series[key], "x": x, "y": value, "figure": key, **extra})
        return value

    def point(self, series: str, x: float, y: float, **extra: Any) -> None:
        """A point of the chart that is not a trial of a figure (a curve within a trial, or a
        warm-up labelled as such with warmup=True)."""
        self.report({"series": series, "x": x, "y": _round(float(y)), **extra})

    @property
    def trials_done(self) -> int:
        return max((len(v) for v in self.values.values()), default=0)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {
            key: {**spread(self.values[key], *self.labels[key]),
                  **({"series": self.series[key]} if key in self.series else {})}
            for key in self.labels
        }  # fmt: skip


def spread(values: list[float], label: str = "", unit: str = "") -> dict[str, Any]:
    """min / median / max of a figure's trials (None when it was never measured)."""
    vals = [float(v) for v in values]
    if not vals:
        return {"label": label, "unit": unit, "trials": [], "min": None, "median": None,
                "max": None}  # fmt: skip
    return {
        "label": label,
        "unit": unit,
        "trials": [_round(v) for v in vals],
        "min": _round(min(vals)),
        "median": _round(statistics.median(vals)),
        "max": _round(max(vals)),
    }


@dataclass(frozen=True)
class Conditions:
    """What the machine was like for this run."""

    load_1m: float  # 1-minute load average just before the run (os.getloadavg)
    machine_cpus: int  # os.cpu_count()
    ray_cpus: float  # CPUs the Ray cluster had
    cold: bool  # the first demo run in this worker process
    ray_cpus_free: float | None = None  # CPUs of the cluster free when the run started

    @property
    def busy(self) -> bool:
        return self.load_1m >= BUSY_LOAD_PER_CPU * max(1, self.machine_cpus) or self.held

    @property
    def held(self) -> bool:
        """Some of Ray's CPUs were still held by other processes when the run started."""
        return self.ray_cpus_free is not None and self.ray_cpus_free < self.ray_cpus

    def as_dict(self) -> dict[str, Any]:
        return {
            "load_1m": round(self.load_1m, 2),
            "machine_cpus": self.machine_cpus,
            "ray_cpus": self.ray_cpus,
            "cold": self.cold,
            "busy": self.busy,
            "ray_cpus_free": self.ray_cpus_free,
        }


def load_average() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:  # not available on this platform
        return 0.0


def breaches(
    claim: Claim, figures: Mapping[str, Mapping[str, Any]], params: Params, conditions: Conditions
) -> list[str]:
    return [text for bound in claim.bounds for text in bound.breaches(figures, params, conditions)]


def verdict(
    claim: Claim, figures: Mapping[str, Mapping[str, Any]], params: Params,
    conditions: Conditions, *, stopped: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """shown / not_shown / inconclusive with the reason, each part's outcome and any bound the
    figures broke. A broken bound or a run stopped early is never "shown"."""
    parts = [check.outcome(figures) for check in claim.checks]
    broken = breaches(claim, figures, params, conditions)
    n = max((len(figures.get(c.figure, {}).get("trials") or []) for c in claim.checks), default=0)
    judged = {"parts": parts, "breaches": broken}

    def result(kind: str, reason: str) -> dict[str, Any]:
        return {"verdict": kind, "reason": reason, **judged}

    if broken:
        return result(INCONCLUSIVE, f"{_capital(UNTRUSTWORTHY)}: {'; '.join(broken)}.")
    if stopped:
        done = f"after {_trials(n)}" if n else "before its first trial ended"
        return result(INCONCLUSIVE, f"The run stopped {done}: {stopped}.")
    failed = [(check, part) for check, part in zip(claim.checks, parts, strict=True)
              if not part["holds"]]  # fmt: skip
    if not failed:
        every = "Every part" if len(parts) > 1 else "The claim"
        return result(SHOWN, f"{every} held, over {_trials(n)} of this run.")
    check, missed = failed[0]
    hidden = claim.hidden_by(params)
    if hidden:
        return result(NOT_SHOWN, f"This run's parameters hide the effect: {hidden}.")
    if missed["value"] is None:
        return result(INCONCLUSIVE, f"{missed['part']} was not measured in this run.")
    if conditions.ray_cpus < claim.needs_cpus:
        return result(
            NOT_SHOWN,
            f"Ray had {conditions.ray_cpus:g} CPUs and this effect needs at least "
            f"{claim.needs_cpus:g}.",
        )
    if claim.timing and conditions.held:
        return result(
            INCONCLUSIVE,
            f"Busy CPUs: only {conditions.ray_cpus_free:g} of Ray's {conditions.ray_cpus:g} "
            f"CPUs were free when the run started, the rest held by other work; the 1-minute "
            f"load average was {conditions.load_1m:.2f}.",
        )
    if claim.timing and conditions.busy:
        return result(
            INCONCLUSIVE,
            f"Busy CPUs: the 1-minute load average was {conditions.load_1m:.2f} on "
            f"{conditions.machine_cpus} CPUs (Ray had {conditions.ray_cpus:g}) before the run, "
            "so other work shared the cores.",
        )
    if claim.timing and conditions.cold:
        return result(
            INCONCLUSIVE,
            "A cold first run: this worker process had not run a demo before, so Ray was "
            "still starting processes.",
        )
    trials = check.trial_values(figures)
    passing = sum(check.holds(v) for v in trials)
    if passing:
        return result(
            INCONCLUSIVE,
            f"The trials disagree: {passing} of {len(trials)} met this part: "
            f"{missed['part'][:1].lower() + missed['part'][1:]}.",
        )
    names = "; ".join(part["part"][:1].lower() + part["part"][1:] for _, part in failed)
    return result(NOT_SHOWN, f"Missed: {names}.")


def conclude(
    claim: Claim, summary: dict[str, Any], params: Params, conditions: Conditions
) -> dict[str, Any]:
    """The demo's summary with its figures' spread, the claim, the verdict and the conditions.

    The demo returned summary["figures"] as a Figures; the result is plain JSON. A demo that
    could not test its claim here says why in summary["cannot_test"]; a run stopped early (its
    budget spent, the cluster too busy) says why in summary["stopped"]."""
    raw = summary.pop("figures")
    figures = raw.as_dict() if isinstance(raw, Figures) else dict(raw)
    # A demo that could not test its claim here (one node, a cluster that did not opt in)
    # says why; the verdict is then inconclusive with that reason, whatever was measured.
    cannot = summary.pop("cannot_test", None)
    judged = verdict(claim, figures, params, conditions, stopped=summary.get("stopped"))
    if cannot and not judged["breaches"]:
        judged = {**judged, "verdict": INCONCLUSIVE, "reason": f"{_capital(cannot)}."}
    return {
        "claim": {**claim.as_dict(), **judged},
        "figures": figures,
        "conditions": conditions.as_dict(),
        **summary,
    }


def consistent(claim: Claim, summary: Mapping[str, Any], params: Params,
               conditions: Conditions) -> bool:  # fmt: skip
    """Does the stored verdict agree with the stored figures? "shown" exactly when every part
    holds on its medians, no trial broke a bound, and the run was not stopped early."""
    figures = summary["figures"]
    holds = all(c.holds(c.value(figures)) for c in claim.checks)
    clean = not breaches(claim, figures, params, conditions) and not summary.get("stopped")
    return bool((summary["claim"]["verdict"] == SHOWN) == (holds and clean))
