"""RAY_ADDRESS read in one place: the host and port that answer for it.

Used by /readyz (a TCP connect, since the web never imports Ray) and by the demos worker before
it connects. Plain Python, no Django, so both sides and the tests read it the same way.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

RAY_CLIENT_PORT = 10001  # ray://host without a port
RAY_GCS_PORT = 6379  # host without a port, as `ray start --head` defaults
RAY_CURRENT_CLUSTER = Path("/tmp/ray/ray_current_cluster")  # where RAY_ADDRESS=auto looks


def ray_host_port(address: str, *, current_cluster: Path | None = None) -> tuple[str, int]:
    """host:port that answers for RAY_ADDRESS: ray://host[:port] (Ray Client), host[:port] (GCS),
    or auto (the cluster `ray start --head` recorded on this machine, in `current_cluster`).

    ConnectionError for auto with no cluster recorded, ValueError for an address with no host.
    """
    address = address.strip()
    if address == "auto":
        recorded = RAY_CURRENT_CLUSTER if current_cluster is None else current_cluster
        if not recorded.exists():
            raise ConnectionError("RAY_ADDRESS=auto but no Ray cluster was started on this host")
        address = recorded.read_text().strip()
    if address.startswith("ray://"):
        parts = urlsplit(address)
        default = RAY_CLIENT_PORT
    else:
        parts = urlsplit(f"//{address}")
        default = RAY_GCS_PORT
    if not parts.hostname:
        raise ValueError(f"RAY_ADDRESS {address!r} has no host")
    return parts.hostname, parts.port or default
