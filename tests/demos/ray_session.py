"""One real local Ray for the whole test session (2 CPUs, no dashboard)."""

import pytest


def start_ray():
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
            namespace="raydeck-tests",
        )
    return ray


@pytest.fixture(scope="session")
def ray_cluster():
    ray = start_ray()
    yield ray
    ray.shutdown()
