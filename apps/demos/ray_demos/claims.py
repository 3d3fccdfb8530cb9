"""What a demo claims, checked against what this run measured: a verdict, never a promise.

Each DemoSpec carries a Claim: a sentence plus checks on the medians of the figures its demo
measures over repeated trials. The demo returns its figures (every trial's value); verdict()
turns them into "shown", "not_shown" or "inconclusive" with the reason, from the figures
and the conditions of the run (load average, the CPUs Ray had, a cold first run, a
parameter that hides the effect). Nothing here imports Ray or Django.
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class Check:
    """One condition on the median of one figure, e.g. Check("tasks_speedup", at_least=1.5)."""

    figure: str
    at_least: float | None = None
    at_most: float | None = None

    def __post_init__(self):
        if (self.at_least is None) == (self.at_most is None):
            raise ValueError(f"{self.figure}: a check has exactly one of at_least, at_most")

    def holds(self, value: float | None) -> bool:
        if value is None:
            return False
        if self.at_least is not None:
            return value >= self.at_least
        return value <= self.at_most

    @property
    def threshold(self) -> float:
        return self.at_least if self.at_least is not None else self.at_most

    @property
    def op(self) -> str:
        return ">=" if self.at_least is not None else "<="

    def as_dict(self) -> dict[str, Any]:
        return {"figure": self.figure, "op": self.op, "threshold": self.threshold}


def _never_hidden(params: Mapping[str, Any]) -> str | None:
    return None


@dataclass(frozen=True)
class Claim:
    """The lesson as a check on this run's own measurements.

    text: the sentence a person reads ("parallel tasks finish >= 1.5x faster than serial").
    checks: every one must hold on its figure's median for the verdict "shown".
    hidden_by: params -> a sentence naming the parameter whose value hides the effect, or None.
    needs_cpus: the CPUs Ray must have for the effect to be possible at all.
    timing: whether the figures are timings that other load on the machine can move.
    """

    text: str
    checks: tuple[Check, ...]
    hidden_by: Callable[[Mapping[str, Any]], str | None] = _never_hidden
    needs_cpus: float = 1
    timing: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "checks": [c.as_dict() for c in self.checks]}


@dataclass
class Figures:
    """A demo's measurements: every trial's value of each figure, with a label and a unit."""

    values: dict[str, list[float]] = field(default_factory=dict)
    labels: dict[str, tuple[str, str]] = field(default_factory=dict)

    def define(self, key: str, label: str, unit: str = "") -> None:
        self.labels[key] = (label, unit)
        self.values.setdefault(key, [])

    def add(self, key: str, value: float) -> None:
        if key not in self.labels:
            raise KeyError(f"figure {key!r} is not defined")
        self.values[key].append(float(value))

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {key: spread(self.values[key], *self.labels[key]) for key in self.labels}


def _round(value: float) -> float:
    return float(f"{value:.4g}")


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


def _fmt(value: float | None) -> str:
    return "not measured" if value is None else f"{value:g}"


def verdict(
    claim: Claim, figures: Mapping[str, Mapping[str, Any]], params: Mapping[str, Any],
    conditions: Conditions,
) -> dict[str, str]:  # fmt: skip
    """shown / not_shown / inconclusive with the reason, from the medians of the figures."""
    failed = [c for c in claim.checks if not c.holds(figures.get(c.figure, {}).get("median"))]
    n = max((len(figures.get(c.figure, {}).get("trials", [])) for c in claim.checks), default=0)
    if not failed:
        measured = "; ".join(
            f"{figures[c.figure]['label'] or c.figure}: median {_fmt(figures[c.figure]['median'])}"
            f" {c.op} {c.threshold:g}"
            for c in claim.checks
        )
        return {"verdict": SHOWN, "reason": f"{measured} (over {n} trial{'s' * (n != 1)})."}
    check = failed[0]
    fig = figures.get(check.figure, {})
    missed = (
        f"{fig.get('label') or check.figure}: median {_fmt(fig.get('median'))}, the claim needs"
        f" {check.op} {check.threshold:g}"
    )
    hidden = claim.hidden_by(params)
    if hidden:
        return {"verdict": NOT_SHOWN, "reason": f"{hidden} ({missed})."}
    if conditions.ray_cpus < claim.needs_cpus:
        return {
            "verdict": NOT_SHOWN,
            "reason": f"Ray had {conditions.ray_cpus:g} CPUs and this effect needs at least "
            f"{claim.needs_cpus:g} ({missed}).",
        }
    if claim.timing and conditions.held:
        return {
            "verdict": INCONCLUSIVE,
            "reason": f"busy CPUs: only {conditions.ray_cpus_free:g} of Ray's "
            f"{conditions.ray_cpus:g} CPUs were free when the run started, the rest held by "
            f"other processes; 1-minute load average {conditions.load_1m:.2f} ({missed}).",
        }
    if claim.timing and conditions.busy:
        return {
            "verdict": INCONCLUSIVE,
            "reason": f"busy CPUs: the 1-minute load average was {conditions.load_1m:.2f} on "
            f"{conditions.machine_cpus} CPUs (Ray had {conditions.ray_cpus:g}) before the run, so "
            f"other work shared the cores ({missed}).",
        }
    if claim.timing and conditions.cold:
        return {
            "verdict": INCONCLUSIVE,
            "reason": f"a cold first run: this worker process had not run a demo before, so "
            f"Ray was still starting processes ({missed}).",
        }
    trials = fig.get("trials") or []
    passing = sum(check.holds(v) for v in trials)
    if passing:
        return {
            "verdict": INCONCLUSIVE,
            "reason": f"the trials disagree: {passing} of {len(trials)} met it ({missed}).",
        }
    return {"verdict": NOT_SHOWN, "reason": f"{missed}."}


def conclude(
    claim: Claim, summary: dict[str, Any], params: Mapping[str, Any], conditions: Conditions
) -> dict[str, Any]:
    """The demo's summary with its figures' spread, the claim, the verdict and the conditions.

    The demo returned summary["figures"] as a Figures; the result is plain JSON."""
    raw = summary.pop("figures")
    figures = raw.as_dict() if isinstance(raw, Figures) else dict(raw)
    # A demo that could not test its claim here (one node, a cluster that did not opt in)
    # says why; the verdict is then inconclusive with that reason, whatever was measured.
    cannot = summary.pop("cannot_test", None)
    judged = (
        {"verdict": INCONCLUSIVE, "reason": cannot}
        if cannot
        else verdict(claim, figures, params, conditions)
    )
    return {
        "claim": {**claim.as_dict(), **judged},
        "figures": figures,
        "conditions": conditions.as_dict(),
        **summary,
    }


def consistent(claim: Claim, summary: Mapping[str, Any]) -> bool:
    """Does the stored verdict agree with the stored figures? (shown exactly when every check
    holds on its median.)"""
    holds = all(c.holds(summary["figures"].get(c.figure, {}).get("median")) for c in claim.checks)
    return (summary["claim"]["verdict"] == SHOWN) == holds
