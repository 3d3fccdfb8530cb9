"""A Redis server of the test's own, on a free port, that a test may stop and start again
(the shared one on 6379 belongs to everyone)."""

from __future__ import annotations

import os
import runpy
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.demos.test_pages_api import broker_down  # noqa: F401  (fixture)
from tests.quizzes.conftest import core_check, quiz_path, quizzes  # noqa: F401  (fixtures)
from tests.teams.conftest import team  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateRedis:
    """redis-server on 127.0.0.1:<port>, no persistence; stop() and start() it at will."""

    def __init__(self, workdir: Path):
        self.port, self.workdir, self.proc = free_port(), workdir, None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            assert time.monotonic() < deadline, "redis-server did not start in 10 s"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None


@pytest.fixture
def private_redis(tmp_path):
    if not shutil.which("redis-server"):
        pytest.skip("needs redis-server on PATH")
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()


def settings_from_env(**env: str) -> dict:
    """config/settings.py as production would read it with these environment variables."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return runpy.run_path(str(ROOT / "config" / "settings.py"))
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
