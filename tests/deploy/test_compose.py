"""deploy/docker-compose.yml: the whole stack on one host, each part health-checked and started
in order, with no secret written in the file."""

import re

from .conftest import DEPLOY

SERVICES = {"web", "worker", "demos", "postgres", "redis", "ray-head"}
SECRET_NAMES = {"SECRET_KEY", "POSTGRES_PASSWORD"}
URL_WITH_LITERAL_PASSWORD = re.compile(r"://[^/\s:@]*:(?!\$\{)[^/\s@]+@")


def test_every_long_running_service_has_a_healthcheck(compose):
    services = compose["services"]
    assert set(services) >= SERVICES
    for name in SERVICES:
        assert services[name]["healthcheck"]["test"], name
    assert services["web"]["healthcheck"]["test"] == ["CMD", "python", "deploy/probe.py", "/readyz"]
    for worker in ("worker", "demos"):
        assert "inspect ping -d" in services[worker]["healthcheck"]["test"][-1]


def test_services_start_in_order_on_healthy_dependencies(compose):
    services = compose["services"]
    assert services["migrate"]["command"] == "python manage.py migrate --noinput"
    assert services["migrate"]["depends_on"]["postgres"] == {"condition": "service_healthy"}
    for name in ("web", "worker", "demos"):
        depends = services[name]["depends_on"]
        assert depends["migrate"] == {"condition": "service_completed_successfully"}, name
        assert depends["redis"] == {"condition": "service_healthy"}, name
    assert services["demos"]["depends_on"]["ray-head"] == {"condition": "service_healthy"}


def test_the_demos_worker_joins_the_ray_head_through_ray_client(compose):
    services = compose["services"]
    assert services["demos"]["environment"]["RAY_ADDRESS"] == "ray://ray-head:10001"
    assert "--ray-client-server-port=10001" in services["ray-head"]["command"]
    assert "--queues=demos --concurrency=1" in services["demos"]["command"]


def test_no_secret_is_written_in_the_compose_file(compose):
    for name, service in compose["services"].items():
        environment = service.get("environment", {})
        for key, value in environment.items():
            assert not URL_WITH_LITERAL_PASSWORD.search(str(value)), (name, key)
            if key in SECRET_NAMES:
                assert str(value).startswith("${"), (name, key)
    assert "${POSTGRES_PASSWORD" in compose["services"]["web"]["environment"]["DATABASE_URL"]
    assert "env_file" not in compose["services"]["ray-head"]  # Ray needs no app secrets


def test_env_example_names_every_variable_the_compose_file_requires():
    required = set(re.findall(r"\$\{(\w+):\?", (DEPLOY / "docker-compose.yml").read_text()))
    example = (DEPLOY / "env.example").read_text()
    documented = set(re.findall(r"^(\w+)=", example, re.MULTILINE))
    assert required and required <= documented
    assert {"SECRET_KEY", "ALLOWED_HOSTS"} <= documented  # production settings refuse to start
