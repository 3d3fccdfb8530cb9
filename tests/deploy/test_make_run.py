"""`make run` as a newcomer types it: the URL it prints is the one the web server answers on.

The test starts `make run` (migrate, seed, dev users, then honcho with the Procfile) on a free port
and a scratch SQLite, reads the printed URL, fetches it, and stops the whole process group it
started. Only the Procfile's web process runs (RUN_PROCESSES=web): the workers would start a local
Ray, which has nothing to do with which port the page is served on."""

import os
import re
import selectors
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRINTED = re.compile(r"RayDeck on (http://\S+/)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def read_until(proc: subprocess.Popen, pattern: re.Pattern, budget: float) -> tuple[str, str]:
    """Lines of the process's output until one matches `pattern`; (match, everything read)."""
    seen, deadline = [], time.monotonic() + budget
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while time.monotonic() < deadline and proc.poll() is None:
            if sel.select(timeout=1):
                line = proc.stdout.readline()
                seen.append(line)
                if found := pattern.search(line):
                    return found.group(1), "".join(seen)
    raise AssertionError("make run never printed its URL:\n" + "".join(seen))


def fetch(url: str, budget: float) -> tuple[int, str]:
    deadline = time.monotonic() + budget
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.status, response.read().decode()
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def test_make_run_serves_the_url_it_prints(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST"))} | {
        "DEBUG": "true",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_DATA_DIR": str(tmp_path / "celery"),
        "CACHE_URL": "",
        "CACHE_DIR": str(tmp_path / "cache"),
    }
    env.pop("PORT", None)
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "run", f"PORT={port}", "RUN_PROCESSES=web"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        url, _ = read_until(proc, PRINTED, budget=180)
        assert url == f"http://127.0.0.1:{port}/"
        status, body = fetch(url, budget=60)
        assert status == 200
        assert "RayDeck" in body
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0, "the web server outlived make run"
