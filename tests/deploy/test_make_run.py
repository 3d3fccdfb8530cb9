"""`make run` as a newcomer types it: the URL it prints is the one the web server answers on; a
worker that dies is started again while the web server goes on answering; and Ctrl-C stops
every process cleanly, each worker with its warm shutdown, no process killed under it.

The test starts `make run` (migrate, seed, dev users, then deploy/supervise.py with the
Procfile) on a free port and a scratch SQLite, reads the printed URL, fetches it, kills the
exercises worker's main process with SIGKILL, and sends SIGINT to the whole process group, as
the terminal's Ctrl-C does. Only web and the exercises worker run (RUN_PROCESSES): the demos
worker would start a local Ray, which has nothing to do with any of this."""

import os
import queue
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRINTED = re.compile(r"RayDeck on (http://\S+/)")
STARTED = re.compile(r"exercises started \(pid=(\d+)\)")
READY = re.compile(r"(exercises@\S+ ready)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Output:
    """The process's output lines, read by a thread of their own (a selector on a buffered
    stream can miss lines already read into its buffer)."""

    def __init__(self, proc: subprocess.Popen):
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, args=(proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def until(self, pattern: re.Pattern, budget: float) -> str:
        """Lines until one matches `pattern`; its first group."""
        deadline = time.monotonic() + budget
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            if found := pattern.search(line):
                return found.group(1)
        raise AssertionError(f"make run never printed {pattern.pattern}:\n" + "".join(self.seen))

    def rest(self, budget: float) -> str:
        """Everything printed from here until the output ends."""
        rest, deadline = [], time.monotonic() + budget
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            rest.append(line)
        return "".join(rest)


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
        ["make", "--no-print-directory", "run", f"PORT={port}", "RUN_PROCESSES=web exercises"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        output = Output(proc)
        url = output.until(PRINTED, budget=180)
        assert url == f"http://127.0.0.1:{port}/"
        status, body = fetch(url, budget=60)
        assert status == 200
        assert "RayDeck" in body
        worker = output.until(STARTED, budget=30)
        output.until(READY, budget=90)
        os.kill(int(worker), signal.SIGKILL)
        output.until(re.compile(r"(exercises exited \(rc=-9\); starting it again)"), 30)
        assert fetch(url, budget=5)[0] == 200, "the web server went down with the worker"
        output.until(READY, budget=90)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C
        stopping = output.rest(budget=60)
        # make itself ends by the SIGINT it was sent, as a Ctrl-C'd command does.
        assert proc.wait(timeout=10) in (0, -signal.SIGINT), stopping
        assert "web stopped (rc=0)" in stopping and "exercises stopped (rc=0)" in stopping
        assert "Warm shutdown" in stopping
        assert "ERROR" not in stopping and "SIGKILL" not in stopping, stopping
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0, "the web server outlived make run"
