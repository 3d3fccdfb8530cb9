"""Real processes for the failure tests: a gunicorn web server and Celery demos workers that
share the test session's PostgreSQL (and Ray), so a test can kill them by PID or restart the
database under them. They need PostgreSQL and a Redis broker, as CI runs them; on SQLite or the
filesystem broker they skip."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.demos.ray_session import ray_cluster  # noqa: F401  (the session fixture)

ROOT = Path(settings.BASE_DIR)
LOGS = ROOT / "var"
# DEBUG as in the rest of the suite: production's manifest static storage would need a
# collectstatic first. It is the stricter case here: an unhandled error is a technical 500 page.
SERVER_ENV = {"DEBUG": "true"}


def needs_postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("real-process failure tests share the test database: they need PostgreSQL")


def needs_redis_broker() -> None:
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        pytest.skip("the worker tests need the Redis broker (CELERY_BROKER_URL=redis://...)")


def database_url() -> str:
    """The test database (test_<name>), which a subprocess must use to see the test's rows."""
    db = connection.settings_dict
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    return f"postgres://{db['USER']}:{db['PASSWORD']}@{host}:{port}/{db['NAME']}"


def subprocess_env(**extra: str) -> dict[str, str]:
    unsafe = "DJANGO_ALLOW_ASYNC_UNSAFE"  # set for browser tests; never in deployment
    env = {k: v for k, v in os.environ.items() if k != unsafe}
    return env | SERVER_ENV | {"DATABASE_URL": database_url(), "PYTHONUNBUFFERED": "1"} | extra


def refuse_connections(allow: bool) -> None:
    """An outage of the test database alone: no new connections, the open ones cut. Needs no
    restart command, and leaves every other database on the server alone. (Said from the
    server's maintenance database: a database cannot refuse its own session.)"""
    import psycopg

    db = connection.settings_dict
    with psycopg.connect(
        dbname="postgres", user=db["USER"], password=db["PASSWORD"],
        host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, autocommit=True,
    ) as maintenance:  # fmt: skip
        name = db["NAME"]
        maintenance.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(allow).lower()}')
        if not allow:
            maintenance.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> %s",
                [name, connection.connection.info.backend_pid],
            )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop(proc: subprocess.Popen, *, timeout: float = 20) -> None:
    """SIGTERM the process group, then SIGKILL it if it does not go."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass


class Server:
    """A gunicorn serving the app on a loopback port; `request` never raises for HTTP errors."""

    def __init__(self, port: int, proc: subprocess.Popen, log: Path):
        self.port, self.proc, self.log = port, proc, log

    def request(self, method, path, *, body=None, headers=None, timeout=15.0):
        """(status, headers, text, seconds); status is None when the connection itself failed."""
        headers = dict(headers or {})
        if isinstance(body, dict) and headers.get("Content-Type") == "application/json":
            body = json.dumps(body)
        start = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            text = response.read().decode()
            return response.status, dict(response.getheaders()), text, time.monotonic() - start
        except (OSError, http.client.HTTPException) as exc:
            return None, {}, repr(exc), time.monotonic() - start
        finally:
            conn.close()


@contextmanager
def web_server_running(**env: str):
    """gunicorn (2 sync workers, as deployed) against the test database, with `env` on top."""
    LOGS.mkdir(exist_ok=True)
    port, log_path = free_port(), LOGS / "failure-gunicorn.log"
    log = open(log_path, "w")  # noqa: SIM115
    # The tests send bursts from one user: the throttles are not what they measure.
    env = {"THROTTLE_USER": "100000/min", "THROTTLE_WRITE": "100000/min", **env}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", f"--bind=127.0.0.1:{port}",
         "--workers=2", "--timeout=30", "--graceful-timeout=5"],
        cwd=ROOT, env=subprocess_env(**env),
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    server = Server(port, proc, log_path)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, f"gunicorn exited: see {log_path}"
            status, *_ = server.request("GET", "/accounts/login/", timeout=2)
            if status == 200:
                break
            assert time.monotonic() < deadline, f"gunicorn did not answer in 30 s: see {log_path}"
            time.sleep(0.2)
        yield server
    finally:
        stop(proc)
        log.close()


@pytest.fixture
def web_server():
    needs_postgresql()
    with web_server_running() as server:
        yield server


def log_text(proc: subprocess.Popen) -> str:
    with open(proc.log.name) as f:
        return f.read()


class Workers:
    """Starts Celery demos workers (each in its own process group) and stops what it started."""

    def __init__(self, ray_address: str):
        self.ray_address, self.procs = ray_address, []

    def start(self, name: str, **env: str) -> subprocess.Popen:
        LOGS.mkdir(exist_ok=True)
        log = open(LOGS / f"failure-worker-{name}.log", "w")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--queues=demos",
             "--concurrency=1", f"--hostname={name}@%h", "--without-gossip", "--without-mingle",
             "--loglevel=INFO"],
            cwd=ROOT, env=subprocess_env(RAY_ADDRESS=self.ray_address, **env), stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        proc.log = log
        self.procs.append(proc)
        return proc

    def stop_all(self) -> None:
        for proc in self.procs:
            stop(proc)
            proc.log.close()


@pytest.fixture
def postgresql():
    """Skips at once, before slower fixtures start a browser or Ray, on SQLite."""
    needs_postgresql()


@pytest.fixture
def demo_workers(request):
    needs_postgresql()
    needs_redis_broker()
    ray = request.getfixturevalue("ray_cluster")  # started only when the test can run
    workers = Workers(ray.get_runtime_context().gcs_address)
    yield workers
    workers.stop_all()
