"""gunicorn for production: refuses to serve with DEBUG on; sizes itself to the container's CPUs."""

import math
import os
from pathlib import Path


def available_cpus() -> int:
    """CPUs this container may use: the cgroup v2 quota if one is set (Kubernetes limits.cpu,
    docker --cpus), else the CPUs the process may run on. cpu_count() would report every core
    of the node and start far more workers than the limit can run or the memory limit can hold."""
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()
        if quota != "max":
            return max(1, math.ceil(int(quota) / int(period)))
    except (OSError, ValueError):
        pass
    return len(os.sched_getaffinity(0))


bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", available_cpus() * 2 + 1))
timeout = 30
graceful_timeout = 25  # finish in-flight requests on SIGTERM, inside Kubernetes' 30 s grace
worker_tmp_dir = "/dev/shm"  # worker heartbeats on tmpfs, not a container's overlay disk
accesslog = "-"


def on_starting(server):
    if os.environ.get("DEBUG", "false").lower() in {"1", "true", "yes", "on"}:
        raise SystemExit("Refusing to serve with DEBUG on: set DEBUG=false in production.")
