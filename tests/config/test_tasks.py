"""config/tasks.py: every app hands its tasks to the broker the one way, by name, after the
commit; a broker that does not answer is a sentence for the caller, never an exception."""

import pytest
from kombu import Queue

from config.celery import app
from config.tasks import enqueue_on_commit, task_send
from tests.demos.test_pages_api import broker_down  # noqa: F401  (fixture)


def read_back(queue: str) -> tuple[str, list]:
    """The task message waiting on `queue` in the real broker (taken off it)."""
    with app.connection_for_read() as conn, conn.SimpleQueue(Queue(queue, routing_key=queue)) as q:
        message = q.get(timeout=10)
        message.ack()
        return message.headers["task"], message.payload[0]


def test_every_task_the_apps_send_by_name_is_a_registered_task():
    import apps.authoring.tasks  # noqa: F401
    import apps.demos.tasks  # noqa: F401
    import apps.exercises.tasks  # noqa: F401
    from apps.authoring.services.imports import IMPORT_TASK
    from apps.demos.services import EXECUTE_TASK
    from apps.exercises.services import CHECK_TASK, RUN_TASK
    from apps.interview.tasks import memory_fit_task

    sent = {EXECUTE_TASK, RUN_TASK, CHECK_TASK, IMPORT_TASK, memory_fit_task.name}
    assert sent <= set(app.tasks)


@pytest.mark.django_db
def test_the_task_is_sent_only_at_the_commit_and_reaches_the_broker(
    django_capture_on_commit_callbacks,
):
    queue, sent = "raydeck-test-enqueue", []  # a queue no worker reads
    with django_capture_on_commit_callbacks() as callbacks:
        enqueue_on_commit("raydeck.test_nothing", (7,), {"why": "test"}, queue=queue,
                          on_sent=lambda: sent.append(True))  # fmt: skip
        assert sent == []  # a rolled-back row is never looked for
    assert len(callbacks) == 1
    callbacks[0]()
    assert sent == [True]
    assert read_back(queue) == ("raydeck.test_nothing", [7])


def test_a_broker_that_does_not_answer_is_a_sentence_for_the_caller(broker_down, caplog):  # noqa: F811
    reasons = []
    assert task_send("raydeck.test_nothing", (7,), on_broker_error=reasons.append) is False
    [reason] = reasons
    assert reason.startswith("the task broker did not answer (") and "Try again" in reason
    assert "could not hand raydeck.test_nothing(7,) to the broker" in caplog.text


@pytest.mark.django_db
def test_a_fit_asked_for_while_the_broker_is_down_does_not_fail_the_page(
    alice,
    broker_down,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    from apps.interview.tasks import memory_fit_enqueue

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert memory_fit_enqueue(alice, due=True) is True
    assert len(callbacks) == 1  # it was tried, and the next page that wants a fit asks again
