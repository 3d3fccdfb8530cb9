"""Celery tasks of authoring: thin, they take an id and call a service."""

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from apps.authoring import services

# A 2 MiB file is about 60,000 rows; bench/README-imports.md has the rate on a loaded machine.
IMPORT_SOFT_LIMIT_S = 1800
IMPORT_HARD_LIMIT_S = 1860


@shared_task(
    name="authoring.import_job_run",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    soft_time_limit=IMPORT_SOFT_LIMIT_S,
    time_limit=IMPORT_HARD_LIMIT_S,
)
def import_job_run_task(job_id: int) -> str | None:
    try:
        return services.import_job_run(job_id=job_id)
    except SoftTimeLimitExceeded:  # the transaction rolled back: nothing was written
        services.import_job_time_out(job_id=job_id, seconds=IMPORT_SOFT_LIMIT_S)
        return None
