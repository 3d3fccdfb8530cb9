"""RAY_ADDRESS read once (config/ray_address.py) for /readyz and the demos worker: the three
forms Ray accepts, with Ray's default ports, and a sentence for an address that names nothing."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from config.ray_address import RAY_CLIENT_PORT, RAY_GCS_PORT, ray_host_port

HOSTS = st.sampled_from(["127.0.0.1", "ray-head", "raydeck-ray-head-svc.default.svc", "10.0.0.7"])
PORTS = st.integers(min_value=1, max_value=65535)


@given(host=HOSTS, port=PORTS)
def test_an_explicit_port_is_kept_for_ray_client_and_gcs_addresses(host, port):
    assert ray_host_port(f"ray://{host}:{port}") == (host, port)
    assert ray_host_port(f"{host}:{port}") == (host, port)
    assert ray_host_port(f"  {host}:{port}\n") == (host, port)  # as an env file may carry it


def test_without_a_port_ray_client_and_gcs_take_rays_defaults():
    assert ray_host_port("ray://ray-head") == ("ray-head", RAY_CLIENT_PORT) == ("ray-head", 10001)
    assert ray_host_port("ray-head") == ("ray-head", RAY_GCS_PORT) == ("ray-head", 6379)


def test_an_ipv6_head_is_read_without_its_brackets():
    assert ray_host_port("ray://[::1]:10001") == ("::1", 10001)
    assert ray_host_port("[::1]") == ("::1", 6379)


def test_auto_reads_the_cluster_ray_start_recorded_on_this_host(tmp_path):
    recorded = tmp_path / "ray_current_cluster"
    recorded.write_text("10.0.0.7:6380\n")
    assert ray_host_port("auto", current_cluster=recorded) == ("10.0.0.7", 6380)
    recorded.write_text("10.0.0.7\n")
    assert ray_host_port("auto", current_cluster=recorded) == ("10.0.0.7", 6379)


def test_auto_without_a_recorded_cluster_says_so(tmp_path):
    with pytest.raises(ConnectionError, match="no Ray cluster was started on this host"):
        ray_host_port("auto", current_cluster=tmp_path / "missing")


@pytest.mark.parametrize("address", ["ray://", ":6379", "ray://:10001"])
def test_an_address_without_a_host_is_refused_by_name(address):
    with pytest.raises(ValueError, match="has no host"):
        ray_host_port(address)
