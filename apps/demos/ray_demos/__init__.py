"""Live illustrations: small real Ray programs with bounded parameters.

This package (catalogue and base) imports neither Ray nor Django; each demo module does
import Ray and is loaded only by run_demo, i.e. only in a worker process.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from .base import (
    ClusterBusy,
    Deadline,
    DeadlineExceeded,
    DemoCancelled,
    DemoSpec,
    DemoStopped,
    DemoUnavailable,
    Param,
    ParamError,
    Report,
    validate_params,
)
from .catalogue import DEMOS, get_demo, is_available, missing_extras
from .claims import VERDICTS, Claim, Conditions, Figures, conclude, load_average


def run_demo(
    slug: str, params: dict[str, Any], report: Report, *, deadline: Deadline
) -> dict[str, Any]:
    """Validate params, then run the demo on the Ray this process is connected to.

    A run the deadline or a busy cluster stopped early is not a broken demo: it ends with the
    figures of the trials it finished and an inconclusive verdict that says why."""
    spec = get_demo(slug)
    if spec is None:
        raise ParamError({"demo": f"unknown demo {slug!r}"})
    missing = missing_extras(spec)
    if missing:
        raise DemoUnavailable(
            f"{spec.title} needs the rllib extra ({', '.join(missing)} not installed): "
            "make install installs it"
        )
    cleaned = validate_params(spec, params)
    module = importlib.import_module(f"{__name__}.{spec.module}")
    raytools = importlib.import_module(f"{__name__}.raytools")
    figures = Figures(report)
    load_before, cold = load_average(), not _RUNS_IN_PROCESS
    _RUNS_IN_PROCESS.append(slug)
    cpus = raytools.cluster_cpus()
    free = None
    try:
        free = raytools.wait_for_cpus(min(spec.cpus_needed(cleaned, cpus), cpus), deadline)
        summary = module.run(cleaned, figures, deadline=deadline)
    except (DeadlineExceeded, ClusterBusy, *raytools.BUSY_ERRORS) as exc:
        summary = {"figures": figures, "stopped": raytools.why_stopped(exc)}
    finally:
        deadline.waiting(None)
    # Actors a run stopped (Tune's trials among them) hand their CPUs back in Ray's own time:
    # give them a moment, so the next run does not start on a cluster this one still holds.
    raytools.settle(SETTLE_S)
    conditions = Conditions(
        load_1m=load_before,
        machine_cpus=os.cpu_count() or 1,
        ray_cpus=cpus,
        cold=cold,
        ray_cpus_free=raytools.free_cpus() if free is None else free,
    )
    return conclude(spec.claim, summary, cleaned, conditions)


_RUNS_IN_PROCESS: list[str] = []  # demos this process has run: the first one is cold
SETTLE_S = 3.0


__all__ = [
    "DEMOS",
    "VERDICTS",
    "Claim",
    "ClusterBusy",
    "Deadline",
    "DeadlineExceeded",
    "DemoCancelled",
    "DemoSpec",
    "DemoStopped",
    "DemoUnavailable",
    "Param",
    "ParamError",
    "get_demo",
    "is_available",
    "missing_extras",
    "run_demo",
    "validate_params",
]
