"""What every Celery worker shares for long jobs: a heartbeat and the reaper.

A job that works for minutes (a demo run, an import) proves its worker is alive with a
`Heartbeat`: a thread of its own, on its own database connection in autocommit, so a beat is
seen at once even while the job's writes wait in one long transaction. Each app registers a reap
function with `@reaper` (fail its jobs whose heartbeats stopped or that no worker picked up);
every worker's main process runs them all every REAP_EVERY_S (config/celery.py starts the
thread), so a job whose worker was killed ends failed with a sentence within a minute or two."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

from django.db import close_old_connections, connection

log = logging.getLogger(__name__)

_REAPERS: list[Callable[[], int]] = []
_Reap = TypeVar("_Reap", bound=Callable[[], int])  # keeps the reaper's own signature


class Heartbeat(threading.Thread):
    """Calls `beat()` every `every_s` until stopped. One failed beat (a dropped connection, a
    database restart) must not end the beats, or the reaper fails a job that is still going: the
    connection is closed and opened afresh on the next beat."""

    def __init__(self, beat: Callable[[], object], every_s: float, *, name: str):
        super().__init__(daemon=True, name=name)
        self.beat, self.every_s, self.stopped = beat, every_s, threading.Event()

    def run(self) -> None:
        try:
            while not self.stopped.wait(self.every_s):
                try:
                    self.beat()
                except Exception:
                    log.warning("%s: a beat was not stored", self.name, exc_info=True)
                    connection.close()
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=5)


def reaper(reap: _Reap) -> _Reap:
    """Register `reap` (returns how many jobs it failed) with every worker's reaper."""
    if reap not in _REAPERS:
        _REAPERS.append(reap)
    return reap


def reap_all() -> int:
    """One pass of every registered reaper; one that fails does not keep the others from it."""
    reaped = 0
    for reap in list(_REAPERS):
        try:
            reaped += reap()
        except Exception:
            log.exception("reaper %s failed; it runs again next pass", reap.__qualname__)
    return reaped


def reaper_loop(stop: threading.Event, every_s: float) -> None:
    """Reap now, then every `every_s`, until told to stop. A failed pass (the database not up
    yet, a dropped connection) is retried next time."""
    while True:
        close_old_connections()
        reap_all()
        if stop.wait(every_s):
            break
    connection.close()


def reaper_start(every_s: float) -> tuple[threading.Thread, threading.Event]:
    """The reaper thread of a worker's main process. The first pass runs in the thread too: a
    database still starting when the worker boots must not cost the worker its reaper."""
    stop = threading.Event()
    thread = threading.Thread(target=reaper_loop, args=(stop, every_s), daemon=True,
                              name="reaper")  # fmt: skip
    thread.start()
    return thread, stop
