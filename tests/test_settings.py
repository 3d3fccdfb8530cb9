"""Production settings refuse to start half-configured and pass Django's deploy checks."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings import envbool

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


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("1", True), ("yes", True), ("ON", True), (" True ", True),
     ("false", False), ("0", False), ("no", False), ("Off", False)],
)  # fmt: skip
def test_a_yes_no_setting_reads_the_documented_words_in_any_case(monkeypatch, value, expected):
    monkeypatch.setenv("RAYDECK_TEST_FLAG", value)
    assert envbool("RAYDECK_TEST_FLAG", not expected) is expected


@pytest.mark.parametrize("default", [True, False])
def test_a_yes_no_setting_unset_or_empty_is_its_default(monkeypatch, default):
    monkeypatch.delenv("RAYDECK_TEST_FLAG", raising=False)
    assert envbool("RAYDECK_TEST_FLAG", default) is default
    monkeypatch.setenv("RAYDECK_TEST_FLAG", "  ")
    assert envbool("RAYDECK_TEST_FLAG", default) is default


@pytest.mark.parametrize("value", ["flase", "enabled", "2", "y", "none"])
def test_a_yes_no_setting_refuses_any_other_value_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv("RAYDECK_TEST_FLAG", value)
    with pytest.raises(ImproperlyConfigured, match=f"RAYDECK_TEST_FLAG .*got '{value}'"):
        envbool("RAYDECK_TEST_FLAG", False)


def test_a_misspelt_yes_no_setting_stops_the_start_up():
    """SECURE_SSL_REDIRECT=flase once read as off: production served plain HTTP without a word."""
    result = manage("check", **(PROD | {"SECURE_SSL_REDIRECT": "flase"}))
    assert result.returncode != 0
    assert "SECURE_SSL_REDIRECT must be one of true, false" in result.stderr
