"""Probes for load balancers and Kubernetes: /healthz (the process answers) and /readyz
(the database, the broker and Ray are reachable).

`/readyz?checks=database` runs only the named checks. The web's Kubernetes readiness probe uses
it: a page or an API call needs the database, while a broker or Ray outage only stops demos
(which answer 503 with a sentence), so it must not take every web pod out of the Service.

Both are plain HTTP for probes that speak to the pod directly: settings exempt them from the
HTTPS redirect (SECURE_REDIRECT_EXEMPT) and the probes send a Host that ALLOWED_HOSTS accepts.
The web process never imports Ray: Ray is checked by a TCP connect to RAY_ADDRESS's host:port.
"""

from __future__ import annotations

import re
import socket
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from config.ray_address import ray_host_port

BROKER_TIMEOUT_S = 2.0
RAY_TIMEOUT_S = 1.0
CREDENTIALS = re.compile(r"//[^/@\s]*@")


@login_not_required
@never_cache
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """The process is up and serving: no database, no broker (liveness probes hit this often)."""
    return HttpResponse("ok", content_type="text/plain")


@login_not_required
@never_cache
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    wanted = [name for name in request.GET.get("checks", "").split(",") if name]
    unknown = sorted(set(wanted) - set(READINESS_CHECKS))
    if unknown:
        known = ", ".join(READINESS_CHECKS)
        return JsonResponse(
            {"error": f"unknown check {', '.join(unknown)}; choose from {known}"}, status=400
        )
    checks: dict[str, str] = {}
    errors: dict[str, str] = {}
    for name, check in READINESS_CHECKS.items():
        if wanted and name not in wanted:
            continue
        try:
            checks[name] = check()
        except Exception as exc:  # any failure means "not ready", named and explained below
            checks[name] = "fail"
            errors[name] = short_reason(exc)
    if not errors:
        return JsonResponse({"status": "ok", "checks": checks})
    failing = ", ".join(f"{name} ({reason})" for name, reason in errors.items())
    return JsonResponse(
        {
            "status": "unavailable",
            "checks": checks,
            "errors": errors,
            "error": f"not ready: {failing}",
        },
        status=503,
    )


def check_database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:
        # Drop a broken persistent connection (CONN_MAX_AGE) so the next probe reconnects.
        connection.close_if_unusable_or_obsolete()
        raise
    return "ok"


def check_broker() -> str:
    url = settings.CELERY_BROKER_URL
    if url.startswith("sqlite:"):
        # Embedded broker (config/broker.py): reachable when its file opens for writing.
        path = Path(url.removeprefix("sqlite:///"))
        if not path.parent.is_dir():
            raise FileNotFoundError(f"broker folder {path.parent} does not exist")
        with closing(sqlite3.connect(path, timeout=BROKER_TIMEOUT_S)) as db:
            db.execute("SELECT 1").fetchone()
        return "ok"
    if url.startswith("filesystem://"):
        # Embedded broker: reachable when its folder is there for the worker to read.
        folder = Path(str(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"]))
        if not folder.is_dir():
            raise FileNotFoundError(f"broker folder {folder} does not exist")
        return "ok"
    from kombu import Connection

    conn = Connection(url, connect_timeout=BROKER_TIMEOUT_S)
    try:
        # max_retries=0: one attempt, no back-off sleep; a probe wants an answer now.
        conn.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT_S)
    finally:
        conn.release()
    return "ok"


def check_ray() -> str:
    address = settings.RAY_ADDRESS.strip()
    if not address:
        return "local"  # the demos worker starts its own Ray; nothing to reach
    host, port = ray_host_port(address)
    with socket.create_connection((host, port), timeout=RAY_TIMEOUT_S):
        return "ok"


def short_reason(exc: Exception) -> str:
    """One line a person can act on, never a credential from a URL."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return CREDENTIALS.sub("//***@", text)[:200]


READINESS_CHECKS: dict[str, Callable[[], str]] = {
    "database": check_database,
    "broker": check_broker,
    "ray": check_ray,
}
