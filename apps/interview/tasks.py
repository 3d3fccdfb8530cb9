"""Study's Celery tasks: thin, each takes an id and calls a service.

Imports go one way, this module -> `apps.interview.fitting` (the service): the service never
imports the tasks. Asking the worker for a fit or a fresh stored calibration is here too
(`memory_fit_enqueue`, `calibration_refresh_enqueue`), so a view that wants one calls them; the
decision whether one is due stays in the service (`fitting.memory_fit_due`,
`fitting.stats_calibration`).
"""

from celery import shared_task

from apps.interview import fitting
from config.tasks import enqueue_on_commit


@shared_task(
    name="study.memory_fit",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    soft_time_limit=600,
    time_limit=660,
)
def memory_fit_task(user_id: int) -> bool:
    """Fit a learner's own FSRS parameters, on all their reviews and on those before the
    held-out split (idempotent: claimed, and a refit just replaces both)."""
    return fitting.memory_fit_run(user_id=user_id)


def memory_fit_enqueue(user, *, due: bool | None = None) -> bool:
    """Ask the worker to fit the learner's parameters if it is due (after the transaction
    commits); True if it was asked. `due`: the answer of `fitting.memory_fit_due` when the
    caller has it already (the stats page, from `fitting.stats_calibration`)."""
    if not (fitting.memory_fit_due(user) if due is None else due):
        return False
    # The broker down: logged, and the fit is asked for again on the next page that wants one.
    enqueue_on_commit(memory_fit_task.name, (user.pk,))
    return True


@shared_task(
    name="study.calibration_refresh",
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    soft_time_limit=300,
    time_limit=330,
)
def calibration_refresh_task(user_id: int) -> bool:
    """Score the memory model on a learner's held-out reviews again and store it for the stats
    page (idempotent: claimed, and a score still fresh is left as it is)."""
    return fitting.calibration_refresh_run(user_id=user_id)


def calibration_refresh_enqueue(user) -> bool:
    """Ask the worker for a fresh stored calibration (after the transaction commits), once: the
    first page to ask claims it (`fitting.calibration_ask`), the others wait for the worker;
    True if this one asked. The broker down: the claim is let go, so the next page asks again."""
    if not fitting.calibration_ask(user):
        return False
    enqueue_on_commit(
        calibration_refresh_task.name, (user.pk,),
        on_broker_error=lambda _reason: fitting.calibration_ask_failed(user.pk),
    )  # fmt: skip
    return True
