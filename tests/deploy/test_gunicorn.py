"""The production server as deployed: gunicorn with deploy/gunicorn.conf.py refuses DEBUG, and the
container healthcheck (deploy/probe.py) reaches /healthz and /readyz over plain HTTP with the
production security settings on."""

import os
import runpy
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = Path(sys.executable).with_name("gunicorn")
CONFIG = ROOT / "deploy" / "gunicorn.conf.py"
PROBE = ROOT / "deploy" / "probe.py"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def production_env(tmp_path):
    """DEBUG off with the production defaults (HTTPS redirect, strict hosts) on a scratch SQLite."""
    keep = {k: v for k, v in os.environ.items() if k not in {"DJANGO_ALLOW_ASYNC_UNSAFE", "DEBUG"}}
    return keep | {
        "DEBUG": "false",
        "SECRET_KEY": "k3#Vq9-zL!p2Wm8@rT5&yN1^cB7*hF4(dJ6)sG0+xE" * 2,
        "ALLOWED_HOSTS": "raydeck.example.com",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "filesystem://",
        "CELERY_DATA_DIR": str(tmp_path / "celery"),
        "CACHE_URL": "",
        "CACHE_DIR": str(tmp_path / "cache"),
        "RAY_ADDRESS": "",
        "GUNICORN_WORKERS": "1",
    }


def test_the_config_sizes_workers_from_the_environment_or_the_cpus(monkeypatch):
    monkeypatch.setenv("GUNICORN_WORKERS", "3")
    assert runpy.run_path(str(CONFIG))["workers"] == 3
    monkeypatch.delenv("GUNICORN_WORKERS")
    config = runpy.run_path(str(CONFIG))
    assert config["workers"] == config["available_cpus"]() * 2 + 1
    assert 1 <= config["available_cpus"]() <= os.cpu_count()


def test_gunicorn_refuses_to_serve_with_debug_on(production_env):
    env = production_env | {"DEBUG": "true", "GUNICORN_BIND": f"127.0.0.1:{free_port()}"}
    result = subprocess.run(
        [str(GUNICORN), "config.wsgi", "-c", str(CONFIG)], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert result.returncode != 0
    assert "Refusing to serve with DEBUG on" in result.stderr


def test_the_container_probe_passes_against_production_gunicorn(production_env):
    port = free_port()
    env = production_env | {"GUNICORN_BIND": f"127.0.0.1:{port}"}
    server = subprocess.Popen(
        [str(GUNICORN), "config.wsgi", "-c", str(CONFIG)], cwd=ROOT, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    probe_env = env | {"PROBE_URL": f"http://127.0.0.1:{port}"}

    def probe(*paths: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(PROBE), *paths], env=probe_env | extra,
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip

    try:
        deadline = time.monotonic() + 30
        while (result := probe("/healthz")).returncode != 0:
            assert server.poll() is None, server.stderr.read()
            assert time.monotonic() < deadline, result.stderr
            time.sleep(0.2)
        result = probe("/healthz", "/readyz")
        assert result.returncode == 0, result.stderr
        # Without a Host that ALLOWED_HOSTS accepts, Django refuses the probe: hence the header.
        refused = probe("/healthz", ALLOWED_HOSTS="")
        assert refused.returncode == 1
        assert "400" in refused.stderr
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
