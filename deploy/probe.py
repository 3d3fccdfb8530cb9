"""Container healthcheck without curl (the slim image has none): GET each path on the local
gunicorn with a Host that ALLOWED_HOSTS accepts; exit 0 only if every answer is 200.

    python deploy/probe.py /readyz
"""

import os
import sys
import urllib.request


def probe_host() -> str:
    """The first concrete name in ALLOWED_HOSTS ('.example.com' allows example.com)."""
    for host in os.environ.get("ALLOWED_HOSTS", "").split(","):
        host = host.strip().lstrip(".")
        if host and host != "*":
            return host
    return "localhost"


def main(paths: list[str]) -> int:
    base = os.environ.get("PROBE_URL", "http://127.0.0.1:8000")
    for path in paths or ["/healthz"]:
        request = urllib.request.Request(base + path, headers={"Host": probe_host()})
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                if response.status != 200:
                    print(f"{path}: HTTP {response.status}", file=sys.stderr)
                    return 1
        except OSError as exc:  # HTTPError (503 and friends) included
            body = exc.read().decode(errors="replace")[:300] if hasattr(exc, "read") else ""
            print(f"{path}: {exc} {body}".strip(), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
