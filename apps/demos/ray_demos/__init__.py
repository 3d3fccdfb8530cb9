"""Live illustrations: small real Ray programs with bounded parameters.

This package (catalogue and base) imports neither Ray nor Django; each demo module does
import Ray and is loaded only by run_demo, i.e. only in a worker process.
"""

from __future__ import annotations

import importlib
import os

from .base import (
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
from .claims import VERDICTS, Claim, Conditions, conclude, load_average


def run_demo(slug: str, params: dict, report: Report, *, deadline: Deadline) -> dict:
    """Validate params, then run the demo on the Ray this process is connected to."""
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
    free = raytools.wait_until_idle(min(IDLE_WAIT_S, deadline.remaining() / 4))
    load_before, cold = load_average(), not _RUNS_IN_PROCESS
    _RUNS_IN_PROCESS.append(slug)
    summary = module.run(cleaned, report, deadline=deadline)
    conditions = Conditions(
        load_1m=load_before,
        machine_cpus=os.cpu_count() or 1,
        ray_cpus=raytools.cluster_cpus(),
        cold=cold,
        ray_cpus_free=free,
    )
    return conclude(spec.claim, summary, cleaned, conditions)


IDLE_WAIT_S = 10.0  # how long a run waits for the cluster's CPUs before it starts anyway
_RUNS_IN_PROCESS: list[str] = []  # demos this process has run: the first one is cold


__all__ = [
    "DEMOS",
    "VERDICTS",
    "Claim",
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
