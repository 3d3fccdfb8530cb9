import os

from celery import Celery
from celery.signals import worker_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("raydeck")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _worker_statement_timeout(**_):
    """A worker's statements get the worker's bound (an import writes for minutes), set in its
    main process before the pool forks, so every child and thread opens connections with it."""
    from django.conf import settings

    from config.database import statement_timeout_use

    statement_timeout_use(settings.DB_WORKER_STATEMENT_TIMEOUT_S)


@worker_ready.connect
def _start_reaper(sender=None, **_):
    """Every worker's main process (demos or not) runs every app's reaper (config/workers.py),
    so even a deployment that forgot the demos worker tells its users why a run never started."""
    from django.conf import settings

    from config.workers import reaper_start

    return reaper_start(settings.REAP_EVERY_S)
