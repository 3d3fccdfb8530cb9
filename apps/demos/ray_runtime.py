"""The worker's one connection to Ray. Imported only by the demos worker: never by the web.

RAY_ADDRESS set: connect to that cluster (a local `ray start --head`, or a KubeRay head via
ray://...), shipping the demo code with the job so the cluster needs only Ray and NumPy.
RAY_ADDRESS empty: start a local Ray in this process, capped at RAY_NUM_CPUS.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from django.conf import settings

log = logging.getLogger(__name__)


def connect(*, retry_for_s: float = 30.0) -> None:
    import ray

    if ray.is_initialized():
        return
    address = settings.RAY_ADDRESS
    start = time.monotonic()
    if not address:
        ray.init(
            num_cpus=settings.RAY_NUM_CPUS,
            include_dashboard=False,
            namespace="raydeck",
            log_to_driver=False,
            configure_logging=False,
        )
    else:
        # The whole `apps` package, so workers import apps.demos.ray_demos by the same name
        # the driver pickled; only the pure demo modules are ever imported there.
        code = Path(__file__).resolve().parent.parent
        while True:
            try:
                ray.init(
                    address=address,
                    namespace="raydeck",
                    log_to_driver=False,
                    configure_logging=False,
                    runtime_env={"py_modules": [str(code)]} if settings.RAY_SHIP_CODE else None,
                )
                break
            except ConnectionError:
                if time.monotonic() - start > retry_for_s:
                    raise
                time.sleep(1.0)  # the head may still be starting
    log.info("connected to Ray at %s in %.2f s", address or "a local Ray", time.monotonic() - start)


def cluster_size() -> tuple[int, float]:
    import ray

    nodes = [n for n in ray.nodes() if n.get("Alive")]
    return len(nodes), float(ray.cluster_resources().get("CPU", 0))


def disconnect() -> None:
    import ray

    if ray.is_initialized():
        ray.shutdown()
