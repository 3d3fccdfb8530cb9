from tests.demos.ray_session import ray_cluster  # noqa: F401  (the session fixture)
