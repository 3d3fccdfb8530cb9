"""Handing a Celery task to the broker: the one way every app enqueues.

Tasks are sent by their registered name, so a service never imports its tasks module (the
tasks import the service). `enqueue_on_commit` sends once the current transaction commits, so a
worker never looks for a row that was rolled back. When the broker does not take the task, the
failure is logged here and `on_broker_error(reason)` is called with a sentence to show: the
caller fails its row with it (a demo run), or leaves the row for a sweep to send again (an
exercise submission).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from celery import current_app
from django.db import transaction

log = logging.getLogger(__name__)


def broker_refusal(exc: BaseException) -> str:
    """The sentence for a task the broker did not take."""
    return f"the task broker did not answer ({type(exc).__name__}). Try again in a minute."


def task_send(
    task: str,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    *,
    on_broker_error: Callable[[str], object] | None = None,
    **options: Any,
) -> bool:
    """Send the task named `task` now (`options`: Celery's, e.g. queue, time_limit); False when
    the broker refused it, after logging and calling `on_broker_error(reason)`."""
    try:
        current_app.send_task(task, args=list(args), kwargs=kwargs or {}, **options)
    except Exception as exc:  # whatever the transport raises: the broker did not take it
        log.exception("could not hand %s%r to the broker", task, tuple(args))
        if on_broker_error is not None:
            on_broker_error(broker_refusal(exc))
        return False
    return True


def enqueue_on_commit(
    task: str,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    *,
    on_broker_error: Callable[[str], object] | None = None,
    on_sent: Callable[[], object] | None = None,
    **options: Any,
) -> None:
    """`task_send` once the current transaction commits (at once outside one); `on_sent()`
    after the broker took it."""

    def send() -> None:
        if task_send(task, args, kwargs, on_broker_error=on_broker_error, **options) and on_sent:
            on_sent()

    transaction.on_commit(send)
