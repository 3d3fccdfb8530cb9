"""Production settings refuse to start half-configured and pass Django's deploy checks."""

import os
import subprocess
import sys
from pathlib import Path

UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"  # set for browser tests; never in deployment
ROOT = Path(__file__).resolve().parents[1]
PROD = {
    "DEBUG": "false",
    "SECRET_KEY": "k3#Vq9-zL!p2Wm8@rT5&yN1^cB7*hF4(dJ6)sG0+xE" * 2,
    "ALLOWED_HOSTS": "raydeck.example.com",
    "DATABASE_URL": "sqlite:///:memory:",
}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in PROD and k != UNSAFE} | env
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=environ, capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip


def test_production_refuses_the_default_secret_key():
    result = manage("check", **(PROD | {"SECRET_KEY": ""}))
    assert result.returncode != 0
    assert "Set SECRET_KEY" in result.stderr


def test_production_refuses_missing_allowed_hosts():
    result = manage("check", **(PROD | {"ALLOWED_HOSTS": ""}))
    assert result.returncode != 0
    assert "Set ALLOWED_HOSTS" in result.stderr


def test_production_settings_pass_the_deploy_checks_with_no_warnings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PROD)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_the_servers_default_to_debug_off():
    code = "import os; os.environ.pop('DEBUG', None); import config.wsgi"
    environ = {k: v for k, v in os.environ.items() if k not in PROD and k != UNSAFE}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environ,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode != 0
    assert "Set SECRET_KEY" in result.stderr
