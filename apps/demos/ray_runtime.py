"""The worker's one connection to Ray. Imported only by the demos worker: never by the web.

RAY_ADDRESS set: connect to that cluster (a local `ray start --head`, or a KubeRay head via
ray://...), shipping the demo code with the job so the cluster needs only Ray and NumPy.
RAY_ADDRESS empty: start a local Ray in this process, capped at RAY_NUM_CPUS.
"""

from __future__ import annotations

import logging
import socket
import time
from pathlib import Path

from django.conf import settings

from apps.demos.ray_demos.base import ClusterUnreachable
from config.ray_address import ray_host_port

log = logging.getLogger(__name__)


def reachable(address: str, timeout_s: float = 2.0) -> str | None:
    """None when something listens at the address, else why not (checked in a few ms)."""
    try:
        target = ray_host_port(address)
    except (ConnectionError, ValueError) as exc:  # auto with no cluster here; no host
        return str(exc)
    try:
        socket.create_connection(target, timeout=timeout_s).close()
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


def connect(*, retry_for_s: float = 30.0) -> None:
    """Connect this process once; every run first checks the cluster is still there, so a run
    started while it is down fails at once instead of waiting on a dead connection."""
    import ray

    address = settings.RAY_ADDRESS
    if address:
        problem = reachable(address)
        if problem is not None:
            if ray.is_initialized():
                ray.shutdown()  # a later run reconnects once the cluster is back
            raise ClusterUnreachable(
                f"Ray cluster unreachable at {address} ({problem}): is the Ray head running, "
                "and does RAY_ADDRESS name it?"
            )
    if ray.is_initialized():
        return
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


def lost_connection(exc: BaseException) -> bool:
    """Did this error come from losing the connection to the cluster (a GCS or Ray Client
    connection dropped or timed out under load), rather than from the demo itself?"""
    import grpc
    import ray

    seen = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        text = str(link).lower()
        if isinstance(link, ConnectionError | ray.exceptions.RpcError):
            return True
        if isinstance(link, ray.exceptions.RaySystemError) and "connect" in text:
            return True
        if isinstance(link, grpc.RpcError):  # Ray Client's channel to the cluster failed
            return True
        link = link.__cause__ or link.__context__
    return False


def what_was_lost(exc: BaseException) -> str:
    """A lost connection in a few words: gRPC's status and details rather than its repr."""
    import grpc

    if isinstance(exc, grpc.RpcError) and hasattr(exc, "code"):
        return f"gRPC {exc.code().name}: {exc.details()}"[:300]
    text = (str(exc).strip().splitlines() or [""])[0][:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def cluster_size() -> tuple[int, float]:
    import ray

    nodes = [n for n in ray.nodes() if n.get("Alive")]
    return len(nodes), float(ray.cluster_resources().get("CPU", 0))


def disconnect() -> None:
    import ray

    if ray.is_initialized():
        ray.shutdown()
