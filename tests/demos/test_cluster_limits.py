"""A cluster demo asking for more Ray nodes than the cluster has is refused before it is
queued, from what the demos worker last saw (the web never connects to Ray)."""

import pytest
from django.utils import timezone

from apps.demos.models import DemoRun

pytestmark = pytest.mark.django_db


def last_seen(user, nodes: int) -> None:
    DemoRun.objects.create(
        user=user, demo="vtrace", params={}, status=DemoRun.Status.SUCCEEDED,
        cluster_nodes=nodes, cluster_cpus=2.0, started_at=timezone.now(),
    )  # fmt: skip


def post(api_client, user, **params):
    api_client.force_authenticate(user)
    return api_client.post(
        "/api/demo-runs/", {"demo": "cluster-placement", "params": params}, format="json"
    )


def test_more_spread_bundles_than_nodes_is_a_400_that_says_what_is_missing(api_client, alice, bob):
    last_seen(bob, nodes=2)  # any learner's run tells what the cluster is
    response = post(api_client, alice, spread_bundles=3)
    assert response.status_code == 400
    body = response.json()
    assert "spread_bundles asks for 3 Ray nodes" in body["error"]
    assert "has 2" in body["error"]
    assert not DemoRun.objects.filter(user=alice).exists()


def test_as_many_bundles_as_nodes_is_queued(api_client, alice):
    last_seen(alice, nodes=2)
    assert post(api_client, alice, spread_bundles=2).status_code == 202


def test_on_one_node_or_before_any_run_the_demo_is_queued_and_says_so_itself(api_client, alice):
    assert post(api_client, alice, spread_bundles=4).status_code == 202  # nothing seen yet
    DemoRun.objects.filter(user=alice).update(status=DemoRun.Status.CANCELLED)
    last_seen(alice, nodes=1)
    assert post(api_client, alice, spread_bundles=4).status_code == 202
