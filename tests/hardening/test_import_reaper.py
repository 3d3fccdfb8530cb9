"""An import job whose worker is killed ends failed with a sentence, and its deck is free again.

Before: `kill -9` of the worker mid-import left the job "running" for ever, and every later import
of that deck got 409 (and the stuck job went into backups). Now the worker running a job writes a
heartbeat outside the import's transaction, and every worker's reaper (the demos' one,
config/workers.py) fails a running job whose heartbeats stopped, and a queued one no worker took.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from apps.authoring import services
from apps.authoring.models import ImportJob
from apps.decks.models import Card, Deck
from tests.failure.conftest import (
    LOGS,
    ROOT,
    needs_postgresql,
    needs_redis_broker,
    stop,
    subprocess_env,
)
from tests.hardening.test_import_jobs import big_csv, upload

Status = ImportJob.Status


@pytest.fixture
def author(api_client, staff):
    api_client.force_authenticate(staff)
    return api_client


def job_for(user, deck="bulk-deck", rows=20) -> ImportJob:
    return ImportJob.objects.create(
        user=user, deck_slug=deck, filename="bulk.csv", data=big_csv(rows), options={}
    )


@pytest.mark.django_db
def test_the_reaper_fails_a_silent_running_job_and_a_job_no_worker_took(author, staff):
    silent, fresh = job_for(staff, "silent-deck"), job_for(staff, "live-deck")
    lost = job_for(staff, "lost-deck")
    long_ago = timezone.now() - timedelta(minutes=5)
    ImportJob.objects.filter(pk__in=[silent.pk, fresh.pk]).update(
        status=Status.RUNNING, started_at=long_ago, heartbeat_at=long_ago
    )
    ImportJob.objects.filter(pk=fresh.pk).update(heartbeat_at=timezone.now())
    ImportJob.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(hours=1))

    assert services.import_jobs_reap() == 2
    silent.refresh_from_db(), fresh.refresh_from_db(), lost.refresh_from_db()
    assert silent.status == Status.FAILED and silent.finished_at is not None
    assert silent.error == (
        "Nothing was imported: the worker running this import stopped (no heartbeat for 60 s) "
        "and its writes were undone. Import the file again."
    )
    assert lost.status == Status.FAILED and lost.error.startswith(
        "Nothing was imported: no worker picked this import up within 15 minutes."
    )
    assert fresh.status == Status.RUNNING
    assert author.get(f"/api/author/imports/{silent.pk}/").json()["status"] == "failed"
    assert upload(author, big_csv(1700), deck="silent-deck").status_code == 202  # free again
    assert upload(author, big_csv(1700), deck="live-deck").status_code == 409


@pytest.mark.django_db
def test_a_job_failed_while_it_wrote_imports_nothing(staff):
    """The reaper decides, the worker's write agrees: success is recorded in the import's own
    transaction, so a job failed meanwhile rolls its cards back."""
    job = job_for(staff, "late-deck")
    ImportJob.objects.filter(pk=job.pk).update(status=Status.RUNNING, heartbeat_at=timezone.now())
    real_apply = services.imports.deck_import

    def reaped_meanwhile(**kwargs):
        result = real_apply(**kwargs)
        ImportJob.objects.filter(pk=job.pk).update(status=Status.FAILED, error="reaped")
        return result

    services.imports.deck_import = reaped_meanwhile
    try:
        assert services.imports._import_job_write(job.pk) == Status.FAILED
    finally:
        services.imports.deck_import = real_apply
    assert not Deck.objects.filter(slug="late-deck").exists()


# A real worker, killed by PID ------------------------------------------------------------------

QUICK = {"IMPORTS_HEARTBEAT_S": "1", "IMPORTS_STALE_AFTER_S": "4", "REAP_EVERY_S": "1"}


def start_worker(name: str, queue: str) -> subprocess.Popen:
    LOGS.mkdir(exist_ok=True)
    log = open(LOGS / f"hardening-import-worker-{name}.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", f"--queues={queue}",
         "--concurrency=1", f"--hostname={name}@%h", "--without-gossip", "--without-mingle",
         "--loglevel=INFO"],
        cwd=ROOT, env=subprocess_env(**QUICK), stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    proc.log = log
    return proc


def wait_for(predicate, *, within: float, what: str, worker=None):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if worker is not None:
            assert worker.poll() is None, f"the worker died by itself: see {worker.log.name}"
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {within} s: {what}")


class DeckHeld(threading.Thread):
    """Inserts deck `slug` in a transaction it keeps open until released: an import of that
    deck then waits in its own INSERT, working as far as its worker can tell, heartbeat and all
    (a large file's write, without the large file)."""

    def __init__(self, slug: str):
        super().__init__(daemon=True)
        self.slug, self.held, self.release = slug, threading.Event(), threading.Event()

    def run(self) -> None:
        from django.db import connection

        try:
            with transaction.atomic():
                Deck.objects.create(slug=self.slug, title="held")
                self.held.set()
                self.release.wait(60)
                transaction.set_rollback(True)
        finally:
            connection.close()


@pytest.mark.django_db(transaction=True)
def test_an_import_whose_worker_is_killed_fails_and_frees_the_deck(author, staff):
    needs_postgresql()
    needs_redis_broker()
    from config.celery import app

    queue = f"imports-{uuid.uuid4().hex[:8]}"  # this test's own: no other test's messages
    workers = [start_worker("doomed", queue)]
    hold = DeckHeld("killed-deck")
    hold.start()
    try:
        assert hold.held.wait(10)
        job = job_for(staff, "killed-deck")
        app.send_task(services.imports.IMPORT_TASK, args=[job.pk], queue=queue)

        def beating():
            row = ImportJob.objects.get(pk=job.pk)
            assert row.status in ImportJob.ACTIVE, (row.status, row.error)
            return row.status == Status.RUNNING and row.heartbeat_at > row.started_at

        wait_for(beating, within=60, what="the job to run and beat", worker=workers[0])
        os.killpg(workers[0].pid, signal.SIGKILL)  # the worker, main process and child
        killed_at = time.monotonic()
        workers[0].wait(timeout=10)
        hold.release.set()  # the dead worker's INSERT goes on, finds no client, rolls back

        workers.append(start_worker("restarted", queue))
        failed = wait_for(
            lambda: ImportJob.objects.filter(pk=job.pk, status=Status.FAILED).first(),
            within=60, what="the restarted worker's reaper to fail the job", worker=workers[1],
        )  # fmt: skip
        took = time.monotonic() - killed_at
        print(f"\nworker killed: the import failed {took:.1f} s later")
        assert failed.error.startswith("Nothing was imported: the worker running this import")
        assert upload(author, big_csv(1700), deck="killed-deck").status_code == 202
        assert not Card.objects.filter(deck__slug="killed-deck").exists()
    finally:
        hold.release.set()
        hold.join(10)
        for proc in workers:
            stop(proc)
            proc.log.close()
