"""A real two-node Ray cluster on this machine (deploy/ray-local-cluster.sh, the same script as
`make ray-cluster`), and a Celery demos worker joined to it by RAY_ADDRESS=ray://..., exactly as
it would join a KubeRay head. Like the failure tests, they need PostgreSQL and the Redis broker,
and skip on SQLite. The cluster is stopped afterwards, whatever happened."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.failure.conftest import (
    ROOT,
    Workers,
    free_port,
    needs_postgresql,
    needs_redis_broker,
)

SCRIPT = ROOT / "deploy" / "ray-local-cluster.sh"


class LocalCluster:
    def __init__(self, folder: Path):
        self.head_port, self.client_port = free_port(), free_port()
        self.env = os.environ | {
            "RAY_CLUSTER_DIR": str(folder),
            "RAY_CLUSTER_TMP": f"/tmp/rdt-{self.head_port}",  # short: Ray's socket paths
            "RAY_HEAD_PORT": str(self.head_port),
            "RAY_CLIENT_PORT": str(self.client_port),
            "RAY_NODE_STORE_BYTES": str(300 * 1024 * 1024),
        }
        self.token_path = folder / "auth_token"
        self.address = f"ray://127.0.0.1:{self.client_port}"

    def script(self, verb: str, timeout: float = 120) -> str:
        done = subprocess.run(
            [str(SCRIPT), verb], env=self.env, capture_output=True, text=True, timeout=timeout
        )
        assert done.returncode == 0, f"{verb}: {done.stdout}{done.stderr}"
        return done.stdout.strip()

    def nodes(self) -> int:
        return int(self.script("nodes").splitlines()[-1] or 0)

    def wait_for_nodes(self, count: int = 2, within: float = 90) -> None:
        deadline = time.monotonic() + within
        while self.nodes() < count:
            assert time.monotonic() < deadline, f"the cluster did not get back to {count} nodes"
            time.sleep(1)

    def worker_env(self) -> dict[str, str]:
        return {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(self.token_path)}


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory):
    needs_postgresql()  # skip at once, before a cluster is started
    needs_redis_broker()
    cluster = LocalCluster(tmp_path_factory.mktemp("ray-cluster"))
    try:
        cluster.script("up", timeout=180)
        yield cluster
    finally:
        cluster.script("down", timeout=60)


@pytest.fixture
def cluster_worker(two_nodes):
    """A demos worker whose Ray is the two-node cluster, through Ray Client with its token."""
    workers = Workers(two_nodes.address)
    workers.start("cluster", **two_nodes.worker_env())
    yield workers
    workers.stop_all()
