"""`make run`'s process manager: the Procfile's processes side by side in one terminal, each line
prefixed with the time and the process's name (honcho's format, honcho's printer), with the two
things honcho does not do:

- A process that exits is started again, and the others go on: a worker that dies does not take
  the web server down with it. The restart waits 1 s, doubling up to 30 s while the process
  keeps exiting within a minute of its start. (honcho stops every process when one exits.)
- Ctrl-C or SIGTERM stops each process by sending SIGTERM to its own main process and waiting
  up to --grace seconds: a Celery worker then makes its warm shutdown (its running tasks
  finish, it stops its own pool processes, what it had taken goes back to the broker) and
  exits 0. (honcho signalled each process's whole group at once, so the pool processes died
  under their worker, each an ERROR line, and it killed whatever was left after 5 s.) Past the
  grace, or at a second Ctrl-C a second or more after the first, what is left is killed.
Once a process has exited, anything it left in its process group is stopped too.

Each Procfile line runs in `sh -c` in a session of its own; a line that starts with `exec` is
its command's own process, which is what receives the SIGTERM.

    python deploy/supervise.py [-f Procfile] [--port 8000] [--grace 30] [name ...]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from honcho.colour import get_colours
from honcho.environ import parse_procfile
from honcho.printer import Message, Printer

RESTART_FIRST_S = 1.0
RESTART_MAX_S = 30.0
HEALTHY_AFTER_S = 60.0  # a process that ran this long restarts after RESTART_FIRST_S again
SECOND_SIGNAL_S = 1.0  # a second Ctrl-C sooner than this is the same keypress (make relays it)
SYSTEM = "system"


@dataclass
class Managed:
    name: str
    command: str
    colour: str
    proc: subprocess.Popen | None = None
    started_at: float = 0.0
    restart_at: float | None = None
    delay: float = RESTART_FIRST_S
    readers: list[threading.Thread] = field(default_factory=list)


class Supervisor:
    def __init__(self, processes: dict[str, str], env: dict[str, str], grace: float, out=None):
        colours = get_colours()
        self.processes = [Managed(n, c, next(colours)) for n, c in processes.items()]
        self.env, self.grace = env, grace
        width = max(len(SYSTEM), *(len(n) for n in processes))
        self.printer = Printer(out or sys.stdout, width=width)
        self.lock = threading.Lock()
        self.stop_asked: float | None = None
        self.kill_asked = False

    def say(self, text: str, name: str = SYSTEM, colour: str | None = None) -> None:
        message = Message("line", text, datetime.datetime.now(), name, colour)
        with self.lock:
            self.printer.write(message)

    # --- one process ---------------------------------------------------------------------------

    def start(self, p: Managed) -> None:
        p.proc = subprocess.Popen(
            ["/bin/sh", "-c", p.command], env=self.env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        p.started_at, p.restart_at = time.monotonic(), None
        reader = threading.Thread(target=self._relay, args=(p, p.proc), daemon=True)
        reader.start()
        p.readers.append(reader)
        self.say(f"{p.name} started (pid={p.proc.pid})")

    def _relay(self, p: Managed, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        for line in iter(proc.stdout.readline, b""):
            self.say(line.decode("utf-8", "replace").rstrip("\n"), p.name, p.colour)
        proc.stdout.close()

    def _group_signal(self, pid: int, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)

    def exited(self, p: Managed) -> int:
        """Collect an exited process: its output read to the end, its group's leftovers
        stopped."""
        assert p.proc is not None
        code = p.proc.returncode
        self._group_signal(p.proc.pid, signal.SIGKILL)
        for reader in p.readers:
            reader.join(2)
        p.readers.clear()
        return code

    # --- the loop ------------------------------------------------------------------------------

    def on_signal(self, signum, _frame) -> None:
        now = time.monotonic()
        if self.stop_asked is None:
            self.stop_asked = now
            self.say(f"{signal.Signals(signum).name} received: stopping each process (up to "
                     f"{self.grace:g} s; Ctrl-C again to kill them now)")  # fmt: skip
            for p in self.processes:
                if p.proc is not None and p.proc.poll() is None:
                    self.say(f"sending SIGTERM to {p.name} (pid {p.proc.pid})")
                    with contextlib.suppress(ProcessLookupError):
                        p.proc.send_signal(signal.SIGTERM)
        elif now - self.stop_asked >= SECOND_SIGNAL_S:
            self.kill_asked = True

    def run(self) -> int:
        signal.signal(signal.SIGINT, self.on_signal)
        signal.signal(signal.SIGTERM, self.on_signal)
        for p in self.processes:
            self.start(p)
        while self.stop_asked is None:
            self._tend()
            time.sleep(0.1)
        return self._stop()

    def _tend(self) -> None:
        now = time.monotonic()
        for p in self.processes:
            if p.restart_at is not None:
                if now >= p.restart_at and self.stop_asked is None:
                    self.start(p)
                continue
            assert p.proc is not None
            if p.proc.poll() is None or self.stop_asked is not None:
                continue
            code = self.exited(p)
            healthy = now - p.started_at >= HEALTHY_AFTER_S
            p.delay = RESTART_FIRST_S if healthy else min(p.delay * 2, RESTART_MAX_S)
            wait = RESTART_FIRST_S if healthy else p.delay / 2
            p.restart_at = now + wait
            self.say(f"{p.name} exited (rc={code}); starting it again in {wait:g} s, the "
                     "others go on")  # fmt: skip

    def _stop(self) -> int:
        assert self.stop_asked is not None
        deadline = self.stop_asked + self.grace
        clean = True
        left = [p for p in self.processes if p.proc is not None and p.restart_at is None]
        while left:
            for p in list(left):
                assert p.proc is not None
                if p.proc.poll() is not None:
                    code = self.exited(p)
                    self.say(f"{p.name} stopped (rc={code})")
                    clean = clean and code == 0
                    left.remove(p)
            if not left:
                break
            if self.kill_asked or time.monotonic() >= deadline:
                for p in left:
                    assert p.proc is not None
                    why = "asked again" if self.kill_asked else f"not stopped in {self.grace:g} s"
                    self.say(f"{p.name} {why}: sending SIGKILL (pid {p.proc.pid})")
                    self._group_signal(p.proc.pid, signal.SIGKILL)
                clean = False
                self.kill_asked, deadline = False, float("inf")
            time.sleep(0.1)
        return 0 if clean else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-f", "--procfile", default="Procfile")
    parser.add_argument("-p", "--port", type=int, default=None, help="PORT for every process")
    parser.add_argument("--grace", type=float, default=30.0,
                        help="seconds each process has to stop after SIGTERM")  # fmt: skip
    parser.add_argument("names", nargs="*", help="the Procfile processes to run (default: all)")
    args = parser.parse_args(argv)
    procfile = parse_procfile(Path(args.procfile).read_text()).processes
    unknown = [n for n in args.names if n not in procfile]
    if unknown:
        parser.error(f"not in {args.procfile}: {', '.join(unknown)}")
    chosen = {n: c for n, c in procfile.items() if not args.names or n in args.names}
    env = dict(os.environ)
    if args.port is not None:
        env["PORT"] = str(args.port)
    env["PYTHONUNBUFFERED"] = "1"  # lines as they are written, not when a buffer fills
    return Supervisor(chosen, env, args.grace).run()


if __name__ == "__main__":
    sys.exit(main())
