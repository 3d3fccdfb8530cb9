"""The Kubernetes manifests in deploy/k8s are valid for the cluster versions we support and say
what the deployment promises: probes on real endpoints, limits everywhere, secrets only from a
Secret, migrations in a Job, and the demos pointed at the KubeRay head."""

import re
import shlex

import kubernetes_validate
import pytest
from django.urls import resolve

from config import health
from config.ray_address import ray_host_port

from .conftest import find, load_manifests

# The oldest Kubernetes we support and the newest the validator bundles.
K8S_VERSIONS = ["1.33.0", "1.37.0"]
SECRET_NAMES = {"SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "POSTGRES_PASSWORD"}
URL_WITH_PASSWORD = re.compile(r"://[^/\s:@]*:[^/\s@]+@")


def ray_cluster(docs):
    [cluster] = [d for d in docs if d["kind"] == "RayCluster"]
    return cluster


def ray_pod_templates(cluster) -> dict[str, dict]:
    spec = cluster["spec"]
    templates = {"head": spec["headGroupSpec"]["template"]}
    for group in spec["workerGroupSpecs"]:
        templates[f"worker-{group['groupName']}"] = group["template"]
    return templates


def pod_specs(docs) -> dict[str, dict]:
    """Every pod spec in the manifests, by a readable name, RayCluster templates included."""
    specs = {}
    for doc in docs:
        if doc["kind"] in {"Deployment", "Job"}:
            specs[f"{doc['kind']}/{doc['metadata']['name']}"] = doc["spec"]["template"]["spec"]
        elif doc["kind"] == "RayCluster":
            for name, template in ray_pod_templates(doc).items():
                specs[f"RayCluster/{name}"] = template["spec"]
    return specs


def containers(docs):
    for where, spec in pod_specs(docs).items():
        for container in spec.get("initContainers", []) + spec["containers"]:
            yield f"{where}/{container['name']}", container


@pytest.mark.parametrize("version", K8S_VERSIONS)
@pytest.mark.parametrize(
    "doc",
    [d for d in load_manifests() if d["kind"] != "RayCluster"],
    ids=lambda d: f"{d['kind']}/{d['metadata']['name']}",
)
def test_every_manifest_validates_against_the_kubernetes_schema(doc, version):
    kubernetes_validate.validate(doc, version, strict=True)


@pytest.mark.parametrize("version", K8S_VERSIONS)
def test_the_ray_clusters_pod_templates_validate_as_core_pod_templates(manifests, version):
    # The RayCluster CRD's schema is not bundled; its pod templates are plain core v1 ones.
    for name, template in ray_pod_templates(ray_cluster(manifests)).items():
        wrapped = {
            "apiVersion": "v1",
            "kind": "PodTemplate",
            "metadata": {"name": f"raydeck-ray-{name}"},
            "template": template,
        }
        kubernetes_validate.validate(wrapped, version, strict=True)


def test_the_validator_would_catch_a_misspelt_field(manifests):
    """Strict validation is not a rubber stamp: a typo in a container is refused."""
    web = find(manifests, "Deployment", "raydeck-web")
    container = web["spec"]["template"]["spec"]["containers"][0]
    broken = {**container, "resource": container["resources"]}
    bad = {**web, "spec": {**web["spec"], "template": {"spec": {"containers": [broken]}}}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, K8S_VERSIONS[0], strict=True)


def test_the_ray_cluster_has_a_head_and_an_autoscaling_worker_group(manifests):
    spec = ray_cluster(manifests)["spec"]
    head = spec["headGroupSpec"]
    ports = {
        p["name"]: p["containerPort"] for p in head["template"]["spec"]["containers"][0]["ports"]
    }
    assert ports["client"] == 10001 and ports["gcs"] == 6379
    assert head["rayStartParams"]["num-cpus"] == "0"  # demo work stays off the head
    [group] = spec["workerGroupSpecs"]
    assert 1 <= group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]
    assert group["maxReplicas"] > group["minReplicas"]
    assert spec["enableInTreeAutoscaling"] is True
    resources = spec["autoscalerOptions"]["resources"]
    assert resources["requests"] and resources["limits"]


def test_ray_address_points_at_the_head_service_kuberay_creates(manifests):
    cluster = ray_cluster(manifests)
    config = find(manifests, "ConfigMap", "raydeck")["data"]
    head_ports = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]
    client_port = next(p["containerPort"] for p in head_ports if p["name"] == "client")
    expected = f"ray://{cluster['metadata']['name']}-head-svc:{client_port}"
    assert config["RAY_ADDRESS"] == expected
    assert ray_host_port(config["RAY_ADDRESS"]) == ("raydeck-ray-head-svc", 10001)
    # The demos worker (the only Ray driver) reads it from that ConfigMap.
    demos = find(manifests, "Deployment", "raydeck-demos")["spec"]["template"]["spec"]
    assert {"configMapRef": {"name": "raydeck"}} in demos["containers"][0]["envFrom"]


def test_every_container_has_resource_requests_and_limits(manifests):
    for where, container in containers(manifests):
        resources = container.get("resources", {})
        for kind in ("requests", "limits"):
            assert {"cpu", "memory"} <= set(resources.get(kind, {})), f"{where}: no {kind}"


def test_the_web_probes_hit_the_health_endpoints_that_exist(manifests, client, db, settings):
    web = find(manifests, "Deployment", "raydeck-web")["spec"]["template"]["spec"]["containers"][0]
    config = find(manifests, "ConfigMap", "raydeck")["data"]
    probes = {
        "livenessProbe": ("/healthz", health.healthz),
        "startupProbe": ("/healthz", health.healthz),
        "readinessProbe": ("/readyz?checks=database", health.readyz),
    }
    settings.ALLOWED_HOSTS = config["ALLOWED_HOSTS"].split(",")
    settings.SECURE_SSL_REDIRECT = True  # probes are plain HTTP; they must not be redirected
    settings.RAY_ADDRESS = ""  # the cluster's Ray head is not here
    for probe, (path, view) in probes.items():
        get = web[probe]["httpGet"]
        assert get["path"] == path, probe
        assert resolve(path.partition("?")[0]).func is view
        assert get["port"] in {p["name"] for p in web["ports"]} | {8000}
        host = {h["name"]: h["value"] for h in get["httpHeaders"]}["Host"]
        # What the kubelet sends: the pod's address, with the Host header the manifest sets.
        response = client.get(path, HTTP_HOST=host, REMOTE_ADDR="10.0.0.7")
        assert response.status_code == 200, (probe, response.content)


def test_the_migration_job_runs_migrate_and_nothing_else_does(manifests):
    job = find(manifests, "Job", "raydeck-migrate")["spec"]["template"]["spec"]
    assert job["restartPolicy"] == "Never"
    [container] = job["containers"]
    assert container["command"][-3:] == ["manage.py", "migrate", "--noinput"]
    for where, other in containers(manifests):
        if where.startswith("Job/"):
            continue
        command = shlex.join(other.get("command", []))
        if "migrate" in command:  # the web and workers only wait for the Job: read-only check
            assert "migrate --check" in command, where
            assert other["name"] == "wait-for-migrations", where


def test_secrets_come_only_from_the_secret(manifests):
    assert not [d for d in manifests if d["kind"] == "Secret"]
    config = find(manifests, "ConfigMap", "raydeck")["data"]
    assert not SECRET_NAMES & set(config)
    assert not [v for v in config.values() if URL_WITH_PASSWORD.search(v)]
    for where, container in containers(manifests):
        if where.startswith("RayCluster/"):
            assert "envFrom" not in container and "env" not in container  # Ray needs no secrets
            continue
        assert {"secretRef": {"name": "raydeck"}} in container["envFrom"], where
        for env in container.get("env", []):
            assert env["name"] not in SECRET_NAMES or "valueFrom" in env, where
            assert not URL_WITH_PASSWORD.search(env.get("value", "")), where


def test_services_and_budgets_select_the_pods_they_mean(manifests):
    for doc in manifests:
        if doc["kind"] == "Deployment":
            labels = doc["spec"]["template"]["metadata"]["labels"]
            assert doc["spec"]["selector"]["matchLabels"].items() <= labels.items()
    web_labels = find(manifests, "Deployment", "raydeck-web")["spec"]["template"]["metadata"]
    assert find(manifests, "Service", "raydeck-web")["spec"]["selector"] == web_labels["labels"]
    pdb = find(manifests, "PodDisruptionBudget", "raydeck-web")["spec"]
    assert pdb["selector"]["matchLabels"] == web_labels["labels"]
    hpa = find(manifests, "HorizontalPodAutoscaler", "raydeck-web")["spec"]
    assert hpa["scaleTargetRef"]["name"] == "raydeck-web"
    assert pdb["minAvailable"] < hpa["minReplicas"]  # a node drain can always proceed
    assert "replicas" not in find(manifests, "Deployment", "raydeck-web")["spec"]  # HPA's to set


def test_the_workers_serve_their_queues_and_are_probed_by_name(manifests):
    worker = find(manifests, "Deployment", "raydeck-worker")["spec"]["template"]["spec"]
    demos = find(manifests, "Deployment", "raydeck-demos")["spec"]["template"]["spec"]
    [w], [d] = worker["containers"], demos["containers"]
    assert "--hostname=celery@%h" in w["command"] and "--queues=demos" not in w["command"]
    assert {"--queues=demos", "--concurrency=1", "--hostname=demos@%h"} <= set(d["command"])
    assert "-d celery@$HOSTNAME" in w["livenessProbe"]["exec"]["command"][-1]
    assert "-d demos@$HOSTNAME" in d["livenessProbe"]["exec"]["command"][-1]


def test_only_the_demos_workers_and_readyz_reach_the_ray_cluster(manifests):
    cluster = ray_cluster(manifests)["metadata"]["name"]
    policy = find(manifests, "NetworkPolicy", "raydeck-ray")["spec"]
    assert policy["podSelector"] == {"matchLabels": {"ray.io/cluster": cluster}}
    own, clients = policy["ingress"]
    assert own == {"from": [{"podSelector": {"matchLabels": {"ray.io/cluster": cluster}}}]}
    apps = {peer["podSelector"]["matchLabels"]["app"] for peer in clients["from"]}
    assert apps == {"raydeck-demos", "raydeck-web"}
    assert clients["ports"] == [{"port": 10001, "protocol": "TCP"}]


def test_the_ingress_serves_the_allowed_host_over_tls_and_caps_bodies(manifests):
    """The proxy refuses an oversized body before gunicorn reads it, yet lets a full-size deck
    import (the largest legitimate body) through."""
    from apps.authoring.formats import MAX_FILE_BYTES

    ingress = find(manifests, "Ingress", "raydeck-web")
    config = find(manifests, "ConfigMap", "raydeck")["data"]
    [rule] = ingress["spec"]["rules"]
    assert rule["host"] in config["ALLOWED_HOSTS"].split(",")
    assert rule["host"] in ingress["spec"]["tls"][0]["hosts"]
    assert f"https://{rule['host']}" in config["CSRF_TRUSTED_ORIGINS"].split(",")
    backend = rule["http"]["paths"][0]["backend"]["service"]
    service = find(manifests, "Service", backend["name"])
    assert backend["port"]["name"] in {p["name"] for p in service["spec"]["ports"]}
    size = ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-body-size"]
    assert size.endswith("m")
    cap = int(size[:-1]) * 1024 * 1024
    assert MAX_FILE_BYTES + 64 * 1024 <= cap <= 8 * MAX_FILE_BYTES
    assert config["TRUSTED_PROXY_COUNT"] == "1"  # the ingress is the one proxy in front
