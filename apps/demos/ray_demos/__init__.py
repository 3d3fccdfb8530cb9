"""Live illustrations: small real Ray programs with bounded parameters.

This package (catalogue and base) imports neither Ray nor Django; each demo module does
import Ray and is loaded only by run_demo, i.e. only in a worker process.
"""

from __future__ import annotations

import importlib

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


def run_demo(slug: str, params: dict, report: Report, *, deadline: Deadline) -> dict:
    """Validate params, then run the demo on the Ray this process is connected to."""
    spec = get_demo(slug)
    if spec is None:
        raise ParamError({"demo": f"unknown demo {slug!r}"})
    missing = missing_extras(spec)
    if missing:
        raise DemoUnavailable(
            f"{spec.title} needs the rllib extra ({', '.join(missing)} not installed): "
            "pip install -e '.[rllib]'"
        )
    cleaned = validate_params(spec, params)
    module = importlib.import_module(f"{__name__}.{spec.module}")
    return module.run(cleaned, report, deadline=deadline)


__all__ = [
    "DEMOS",
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
