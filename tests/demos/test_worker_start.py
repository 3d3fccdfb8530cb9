"""What the Celery signals do when a worker starts (no Ray, no database here)."""

from config.celery import _start_reaper


def test_the_reaper_starts_even_when_the_database_is_not_up_yet(settings):
    """No django_db mark: every query raises, as when a worker boots before PostgreSQL. The
    first reap used to run in the signal handler, so its error meant no reaper thread at all
    for the worker's life, and runs of dead workers stayed "running"."""
    settings.REAP_EVERY_S = 3600
    thread, stop = _start_reaper(sender=None)
    try:
        assert thread.is_alive()
    finally:
        stop.set()
        thread.join(timeout=5)
    assert not thread.is_alive()
