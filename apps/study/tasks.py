"""Study's Celery tasks: thin, each takes an id and calls a service."""

from celery import shared_task

from apps.study import interview


@shared_task(
    name="study.memory_fit",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    soft_time_limit=600,
    time_limit=660,
)
def memory_fit_task(user_id: int) -> bool:
    """Fit a learner's own FSRS parameters (idempotent: claimed, and a refit just replaces)."""
    return interview.memory_fit_run(user_id=user_id)
