"""alice runs a demo from its page: bounds are enforced, the run page polls and draws new
points as the worker stores them, then stops polling with the summary."""

import pytest
from django.utils import timezone

from apps.demos.models import DemoPoint, DemoRun

pytestmark = pytest.mark.django_db(transaction=True)


def log_in(page, username="alice"):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"pw-{username}-123")
    page.get_by_role("button", name="Log in").click()


def test_a_run_page_grows_while_the_worker_writes_then_stops(page, alice):
    log_in(page)
    page.goto("/demos/tasks-vs-actors/")
    page.get_by_label("Items to process").fill("500")
    page.get_by_role("button", name="Run on Ray").click()
    page.get_by_text("n_items must be between 1 and 64, got 500").wait_for()

    page.get_by_label("Items to process").fill("2")
    page.get_by_role("button", name="Run on Ray").click()
    page.get_by_text("waiting for the demos worker").wait_for()
    run = DemoRun.objects.get(user=alice)
    assert page.url.endswith(run.get_absolute_url())

    # What the worker does, written straight to the database: claim, points, success.
    DemoRun.objects.filter(pk=run.pk).update(status="running", started_at=timezone.now())
    for seq, (series, x, y) in enumerate([("serial", 1, 0.2), ("tasks", 1, 0.1)], 1):
        DemoPoint.objects.create(run=run, seq=seq, data={"series": series, "x": x, "y": y})
    DemoRun.objects.filter(pk=run.pk).update(last_seq=2, progress=0.3)
    page.locator("#run-live[data-seq='2']").wait_for()
    assert page.locator("svg.demo-chart polyline").count() == 2

    DemoRun.objects.filter(pk=run.pk).update(
        status="succeeded", finished_at=timezone.now(), progress=1.0,
        summary={"effect": "tasks finished 2 items 2.0x faster", "tasks_speedup": 2.0},
    )  # fmt: skip
    page.get_by_text("Tasks finished 2 items 2.0x faster.").wait_for()
    assert page.locator("#run-live").get_attribute("hx-trigger") is None  # polling stopped
    assert page.locator("progress").get_attribute("value") == "100"
