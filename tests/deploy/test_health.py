"""/healthz says the process is up; /readyz says whether the database, broker and Ray answer."""

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def listening_port():
    """A loopback TCP port that accepts connections, standing in for a Ray head."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_healthz_answers_ok_without_a_query_or_a_login(client, db, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    assert response.content == b"ok"


def test_readyz_is_ok_on_the_real_database_and_broker(client, db, settings):
    settings.RAY_ADDRESS = ""
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "broker": "ok", "ray": "local"},
    }


def test_readyz_is_503_naming_the_broker_when_it_does_not_answer(client, db, settings):
    settings.RAY_ADDRESS = ""
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{closed_port()}/0"
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"] == {"database": "ok", "broker": "fail", "ray": "local"}
    assert "refused" in body["errors"]["broker"].lower()
    assert body["error"].startswith("not ready: broker (")


def test_readyz_never_shows_the_brokers_password(client, db, settings):
    settings.CELERY_BROKER_URL = f"redis://:hunter2-secret@127.0.0.1:{closed_port()}/0"
    response = client.get("/readyz")
    assert response.status_code == 503
    assert b"hunter2" not in response.content


def test_readyz_fails_when_the_filesystem_brokers_folder_is_gone(client, db, settings, tmp_path):
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(tmp_path / "missing")}
    body = client.get("/readyz").json()
    assert body["checks"]["broker"] == "fail"
    assert "missing" in body["errors"]["broker"]


def test_readyz_fails_when_the_embedded_brokers_folder_is_gone(client, db, settings, tmp_path):
    settings.CELERY_BROKER_URL = f"sqlite:///{tmp_path / 'missing' / 'broker.sqlite3'}"
    body = client.get("/readyz").json()
    assert body["checks"]["broker"] == "fail"
    assert "missing" in body["errors"]["broker"]


def test_readyz_is_503_naming_ray_when_its_head_does_not_answer(client, db, settings):
    settings.RAY_ADDRESS = f"ray://127.0.0.1:{closed_port()}"
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["ray"] == "fail"
    assert body["checks"]["database"] == "ok"
    assert list(body["errors"]) == ["ray"]


def test_readyz_runs_only_the_checks_asked_for(client, db, settings):
    """The web's readiness probe asks for the database only: Ray down must not empty the Service."""
    settings.RAY_ADDRESS = f"ray://127.0.0.1:{closed_port()}"
    response = client.get("/readyz?checks=database")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "checks": {"database": "ok"}}
    assert client.get("/readyz").status_code == 503  # the full check still sees Ray down


def test_readyz_refuses_an_unknown_check_by_name(client, db):
    response = client.get("/readyz?checks=database,dns")
    assert response.status_code == 400
    assert response.json()["error"] == "unknown check dns; choose from database, broker, ray"


@pytest.mark.parametrize("form", ["ray://127.0.0.1:{port}", "127.0.0.1:{port}"])
def test_readyz_reaches_ray_by_client_or_gcs_address(client, db, settings, listening_port, form):
    settings.RAY_ADDRESS = form.format(port=listening_port)
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json()["checks"]["ray"] == "ok"


def test_probes_over_plain_http_are_not_redirected_to_https(client, db, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.RAY_ADDRESS = ""
    assert client.get("/").status_code == 301  # everything else still goes to HTTPS
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 200


def test_readyz_is_503_naming_the_database_when_it_is_down(tmp_path):
    """A real web process pointed at a PostgreSQL port nobody listens on; Ray stays unimported."""
    script = textwrap.dedent(
        """
        import json, sys
        import django
        django.setup()
        from django.test import Client
        response = Client().get("/readyz")
        print(json.dumps({"status": response.status_code, "body": response.json(),
                          "ray": "ray" in sys.modules}))
        """
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "true",
        "DATABASE_URL": f"postgres://raydeck:raydeck@127.0.0.1:{closed_port()}/raydeck",
        "CELERY_BROKER_URL": "filesystem://",
        "CELERY_DATA_DIR": str(tmp_path / "celery"),
        "RAY_ADDRESS": "",
    }
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["status"] == 503
    assert result["body"]["checks"] == {"database": "fail", "broker": "ok", "ray": "local"}
    assert "refused" in result["body"]["errors"]["database"].lower()
    assert result["ray"] is False
