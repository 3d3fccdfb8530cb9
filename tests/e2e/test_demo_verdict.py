"""alice runs the V-trace demo from its page and reads its verdict: every number the verdict
gives appears in the figures table under it and in the chart's data (the titles of its dots,
median lines and bracket), because all three are drawn from the same figures. The run is
executed by the demos worker's own code on the test session's Ray, in this test's thread."""

import re

import pytest
from playwright.sync_api import expect

from apps.demos import ray_runtime, worker
from apps.demos.models import DemoRun
from tests.demos.ray_session import ray_cluster  # noqa: F401  (the session fixture)
from tests.e2e.test_demo_page import log_in

pytestmark = [pytest.mark.ray, pytest.mark.django_db(transaction=True)]
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:e[-+]\d+)?")


def numbers(text: str) -> set[str]:
    return set(NUMBER.findall(text))


def test_every_number_in_the_verdict_is_in_the_table_and_the_chart(
    page,
    alice,
    ray_cluster,  # noqa: F811
    settings,
):
    settings.DEMOS_HEARTBEAT_S = 3600  # the heartbeat thread stays asleep inside a test
    log_in(page)
    page.goto("/demos/vtrace/")
    page.get_by_label("Oldest data, in policy versions behind").fill("4")
    page.get_by_label("Episodes collected per lag").fill("100")
    page.get_by_role("button", name="Run on Ray").click()
    expect(page.get_by_text("waiting for the demos worker")).to_be_visible()
    run = DemoRun.objects.get(user=alice)

    assert worker.demo_run_execute(run_id=run.pk, cluster_size=ray_runtime.cluster_size) == (
        DemoRun.Status.SUCCEEDED
    )
    verdict = page.locator(".verdict")
    expect(verdict).to_have_attribute("data-verdict", "shown")  # seeded data, exact values

    parts = page.locator(".verdict-parts li").all_inner_texts()
    assert len(parts) == 1 and "the claim needs at least 2x, so it holds" in parts[0]
    said = " ".join([*parts, page.locator(".verdict-reason").inner_text()])
    table = page.locator(".figures-table").inner_text()
    chart = " ".join(page.locator("svg.demo-chart title").all_text_contents())
    assert numbers(said) >= {"2", "3", "4"}  # the threshold, the trials, the lag at least
    assert numbers(said) <= numbers(table), numbers(said) - numbers(table)
    assert numbers(said) <= numbers(chart), numbers(said) - numbers(chart)
    assert "<=" not in said and ">=" not in said and "{" not in table
