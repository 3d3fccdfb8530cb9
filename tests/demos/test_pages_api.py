"""Demo pages and API, as alice and bob use them. No Ray here: runs are only queued."""

import os
import subprocess
import sys
import textwrap

import pytest
from django.urls import reverse

from apps.demos.models import DemoPoint, DemoRun
from apps.demos.ray_demos import DEMOS, get_demo
from apps.demos.ray_demos.claims import YES_NO, Conditions, Figures, conclude

pytestmark = pytest.mark.django_db
Status = DemoRun.Status


SERIAL = (0.41, 0.42, 0.4)


def tasks_summary(tasks=(0.21, 0.22, 0.2), load=0.3, points=None) -> dict:
    """A summary as the tasks-vs-actors demo returns it (the pure core's own conclude); the
    points it reports go to `points`."""
    figures = Figures((points if points is not None else []).append)
    figures.define("serial_s", "2 items one task at a time", "s", series="serial")
    figures.define("tasks_s", "2 items as parallel tasks", "s", series="tasks")
    figures.define("actor_counter_exact", "the actor counted exactly 2 calls", YES_NO)
    for trial, (serial, parallel) in enumerate(zip(SERIAL, tasks, strict=True), 1):
        figures.add("tasks_s", parallel, x=trial)
        figures.add("serial_s", serial, x=trial)
        figures.add("actor_counter_exact", 1)
    conditions = Conditions(load_1m=load, machine_cpus=2, ray_cpus=2, cold=False)
    summary = {"figures": figures, "items": 2, "effect": "tasks finished 2 items 1.9x faster"}
    spec = get_demo("tasks-vs-actors")
    return conclude(spec.claim, summary, {"n_items": 2, "work_ms": 100}, conditions)


def finished_run(user, demo="tasks-vs-actors", summary=None, tasks=None, load=0.3,
                 **fields) -> DemoRun:  # fmt: skip
    points = []
    if summary is None:
        summary = tasks_summary(points=points, load=load, **({"tasks": tasks} if tasks else {}))
    run = DemoRun.objects.create(
        user=user, demo=demo, params={"n_items": 2, "work_ms": 100}, status=Status.SUCCEEDED,
        summary=summary, last_seq=len(points), **fields,
    )  # fmt: skip
    for seq, data in enumerate(points, 1):
        DemoPoint.objects.create(run=run, seq=seq, data=data)
    return run


def test_the_catalogue_lists_every_demo_with_its_cards(client, seeded):
    page = client.get(reverse("demos:index")).content.decode()
    assert page.count('<li class="card">') == len(DEMOS)
    assert "Placement groups: gangs vs piecemeal" in page
    assert "placement-group-deadlock" in page  # a linked card


def test_the_demo_page_shows_bounds_help_and_cards(client, seeded):
    page = client.get(reverse("demos:demo", args=["object-store"])).content.decode()
    assert 'min="1" max="200"' in page and "1 to 200, default 100" in page
    assert "What to look for" in page and "zero-copy" in page.lower()
    assert "Log in to run it" in page


def test_a_run_from_the_form_is_queued_and_shown(client, alice, django_capture_on_commit_callbacks):
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(reverse("demos:demo", args=["vtrace"]), {"max_lag": "3"})
    run = DemoRun.objects.get(user=alice)
    assert response.status_code == 302 and response["Location"] == run.get_absolute_url()
    assert len(callbacks) == 1 and run.params["max_lag"] == 3
    page = client.get(run.get_absolute_url()).content.decode()
    assert "Queued" in page and "every 1s" in page and "Waiting for the first point" in page


def test_the_form_names_a_parameter_out_of_bounds(client, alice):
    client.force_login(alice)
    response = client.post(reverse("demos:demo", args=["tasks-vs-actors"]), {"n_items": "500"})
    assert response.status_code == 400
    assert "n_items must be between 1 and 64, got 500" in response.content.decode()
    assert not DemoRun.objects.exists()


def test_too_many_active_runs_get_429_with_a_sentence(client, alice, settings):
    settings.DEMOS_MAX_ACTIVE_RUNS_PER_USER = 1
    DemoRun.objects.create(user=alice, demo="vtrace")
    client.force_login(alice)
    response = client.post(reverse("demos:demo", args=["vtrace"]), {})
    assert response.status_code == 429
    assert "You already have 1 demo runs queued or running (at most 1)" in response.content.decode()


def test_polling_stops_when_the_run_is_over(client, alice, django_assert_num_queries):
    run = finished_run(alice)
    client.force_login(alice)
    response = client.get(run.get_absolute_url(), {"seq": 6}, HTTP_HX_REQUEST="true")
    assert response.status_code == 286  # htmx stops polling
    page = response.content.decode()
    assert "hx-trigger" not in page and "<svg" in page and "trial" in page
    assert "time for all items (s)" in page and "Tasks finished 2 items 1.9x faster" in page
    assert 'data-verdict="shown"' in page  # the fragment carries the verdict too


def test_polling_a_running_run_with_nothing_new_is_204(client, alice, django_assert_num_queries):
    run = DemoRun.objects.create(user=alice, demo="vtrace", status=Status.RUNNING, last_seq=7)
    client.force_login(alice)
    with django_assert_num_queries(4):  # session, user, profile (time zone), run
        response = client.get(run.get_absolute_url(), {"seq": 7}, HTTP_HX_REQUEST="true")
    assert response.status_code == 204
    response = client.get(run.get_absolute_url(), {"seq": 5}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and 'hx-trigger="every 1s"' in response.content.decode()


def test_a_run_of_a_demo_the_catalogue_dropped_is_gone_not_an_error(client, alice):
    # A run outlives its demo when a release removes one: its page and the comparison with it
    # say it is gone (404) instead of failing on the missing demo (a 500 before).
    gone = DemoRun.objects.create(user=alice, demo="retired-demo", status=Status.SUCCEEDED)
    other = DemoRun.objects.create(user=alice, demo="retired-demo", status=Status.SUCCEEDED)
    client.force_login(alice)
    response = client.get(gone.get_absolute_url())
    assert response.status_code == 404
    compare = client.get(reverse("demos:compare"), {"a": gone.pk, "b": other.pk})
    assert compare.status_code == 404
    listing = client.get(reverse("demos:runs"))
    assert listing.status_code == 200 and "retired-demo" in listing.content.decode()


def test_the_page_shows_the_run_started_before_its_first_point(client, alice):
    run = DemoRun.objects.create(user=alice, demo="rllib-ppo")
    client.force_login(alice)
    page = client.get(run.get_absolute_url()).content.decode()
    assert "seq=0&amp;status=queued" in page and "waiting for the demos worker" in page
    DemoRun.objects.filter(pk=run.pk).update(status=Status.RUNNING)  # claimed, no point yet
    poll = {"seq": 0, "status": "queued"}
    response = client.get(run.get_absolute_url(), poll, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    fragment = response.content.decode()
    assert "Running" in fragment and "waiting for the demos worker" not in fragment
    assert "seq=0&amp;status=running" in fragment
    poll = {"seq": 0, "status": "running"}
    assert client.get(run.get_absolute_url(), poll, HTTP_HX_REQUEST="true").status_code == 204


def test_a_finished_run_shows_its_claim_part_by_part_with_the_tables_numbers(client, alice):
    client.force_login(alice)
    page = client.get(finished_run(alice).get_absolute_url()).content.decode()
    assert "Claim:</strong> Parallel tasks finished the items at least 1.5x as fast" in page
    assert 'data-verdict="shown"' in page and ">Shown</span> in this run:" in page
    assert "Every part held, over 3 trials of this run." in page
    assert (
        "Parallel tasks at least 1.5x as fast as one task at a time: 1.95x, from the medians of "
        "3 trials (2 items one task at a time: 0.41 s; 2 items as parallel tasks: 0.21 s); the "
        "claim needs at least 1.5x, so it holds." in page
    )
    assert "The actor&#x27;s counter was exact: yes in 3 of 3 trials" in page
    assert "1-minute load average before the run: 0.3 on 2 CPUs; Ray had 2 CPUs." in page
    row = '<tr data-figure="tasks_s"><th scope="row">2 items as parallel tasks</th>'
    assert (
        row
        + (
            '<td data-label="Each trial">0.21 s, 0.22 s, 0.2 s</td>'
            '<td data-label="Median">0.21 s</td>'
            '<td data-label="Range">0.2 s to 0.22 s</td>'
        )
        in page
    )
    # The ratio the claim checks, as a row of its own, with what the claim needs.
    assert (
        '<td data-label="Median">1.95x</td><td data-label="Range"></td><td data-label="Trials">'
        '3</td><td data-label="The claim needs">at least 1.5x</td>'
    ) in page
    # The chart draws the same numbers: each trial, each median, the ratio and the threshold.
    assert "<title>2 items as parallel tasks, trial 2: 0.22 s</title>" in page
    assert "<title>2 items as parallel tasks: median of 3 trials 0.21 s</title>" in page
    assert ">1.95x</text>" in page
    assert "{" not in page.split('id="summary-title"')[1].split("</section>")[0]  # no raw dicts


def test_a_run_whose_figures_miss_the_claim_says_so_and_why(client, alice):
    client.force_login(alice)
    busy = finished_run(alice, tasks=(0.4, 0.38, 0.36), load=3.5)
    page = client.get(busy.get_absolute_url()).content.decode()
    assert 'data-verdict="inconclusive"' in page and ">Inconclusive</span>" in page
    assert "Busy CPUs: the 1-minute load average was 3.50 on 2 CPUs (Ray had 2)" in page
    quiet = finished_run(alice, tasks=(0.4, 0.38, 0.36))
    page = client.get(quiet.get_absolute_url()).content.decode()
    assert 'data-verdict="not_shown"' in page and ">Not shown</span>" in page
    assert "the claim needs at least 1.5x, so it does not hold." in page


def test_a_run_stored_before_verdicts_still_shows_its_summary(client, alice):
    client.force_login(alice)
    old = finished_run(alice, summary={"tasks_speedup": 1.9, "effect": "tasks ran"})
    page = client.get(old.get_absolute_url()).content.decode()
    assert "Tasks ran." in page and "data-verdict" not in page


def test_someone_elses_run_is_not_found(client, alice, bob):
    run = finished_run(alice)
    client.force_login(bob)
    assert client.get(run.get_absolute_url()).status_code == 404
    assert client.post(reverse("demos:cancel", args=[run.pk])).status_code == 404


def test_two_runs_of_a_demo_share_one_chart_and_set_verdicts_load_and_params_side_by_side(
    client, alice
):
    a = finished_run(alice)
    b = finished_run(alice, tasks=(0.4, 0.38, 0.36), load=3.5)
    DemoRun.objects.filter(pk=b.pk).update(params={"n_items": 2, "work_ms": 50, "trials": 3})
    client.force_login(alice)
    page = client.get(reverse("demos:compare"), {"a": a.pk, "b": b.pk}).content.decode()
    assert f"run {a.pk}: parallel tasks" in page and f"run {b.pk}: parallel tasks" in page
    assert 'stroke-dasharray="6 4"' in page
    assert '<td data-verdict="shown">' in page and '<td data-verdict="inconclusive">' in page
    assert "Every part held, over 3 trials of this run." in page
    assert "Busy CPUs: the 1-minute load average was 3.50" in page
    assert "load average before the run: 0.3 on 2 CPUs" in page
    assert "load average before the run: 3.5 on 2 CPUs (busy)" in page
    assert "<code>work_ms=100</code>" in page and "<code>work_ms=50</code>" in page
    assert client.get(reverse("demos:runs")).content.decode().count("#") >= 2


def test_cards_say_see_it_live(client, seeded):
    from apps.decks.models import Card

    card = Card.objects.get(slug="placement-group-deadlock")
    page = client.get(card.get_absolute_url()).content.decode()
    assert "See it live: Placement groups: gangs vs piecemeal" in page


# API -------------------------------------------------------------------------------------


def test_api_lists_demos_with_typed_bounded_params(api_client, seeded):
    demos = api_client.get("/api/demos/").json()
    by_slug = {d["slug"]: d for d in demos}
    assert len(demos) == len(DEMOS)
    n_items = by_slug["tasks-vs-actors"]["params"][0]
    assert n_items == {
        "name": "n_items", "type": "int", "default": 8, "min": 1.0, "max": 64.0,
        "help": "items to process",
    }  # fmt: skip
    assert {c["slug"] for c in by_slug["pbt"]["cards"]} >= {"pbt-exploit-explore"}
    assert isinstance(by_slug["rllib-ppo"]["available"], bool)


def test_api_starts_a_run_with_202(api_client, alice, django_capture_on_commit_callbacks):
    api_client.force_authenticate(alice)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = api_client.post(
            "/api/demo-runs/", {"demo": "vtrace", "params": {"max_lag": 2}}, format="json"
        )
    assert response.status_code == 202, response.json()
    body = response.json()
    assert body["status"] == "queued" and body["demo"] == "vtrace" and body["points"] == []
    assert len(callbacks) == 1


@pytest.mark.parametrize(
    "payload, message",
    [
        ({"demo": "nope"}, "unknown demo 'nope'"),
        ({"demo": "vtrace", "params": {"max_lag": 99}}, "max_lag must be between 1 and 20, got 99"),
        ({"demo": "vtrace", "params": {"lag": 2}}, "unknown parameter 'lag'"),
        ({"demo": "vtrace", "params": {"max_lag": 10**400}}, "got a 401-digit number"),
        ({"demo": "vtrace", "params": {"rho_bar": "NaN"}}, "rho_bar must be a number"),
        ({"demo": "vtrace", "params": []}, "Expected a dictionary"),
        ({"demo": "vtrace", "params": {"trials": "three"}}, "trials must be a whole number"),
        ({"demo": "vtrace", "params": {"trials": 2.5}}, "trials must be a whole number"),
        ({"demo": "vtrace", "params": {"trials": True}}, "trials must be a whole number"),
        ({"demo": "sync-vs-async", "params": {"lr": 5}}, "lr must be between 0.01 and 2, got 5"),
        ({"demo": "fault-tolerance", "params": {"kill": "maybe"}}, "kill must be true or false"),
        ({"demo": "sampling-throughput", "params": {"learn_us": -1}}, "learn_us must be between"),
    ],
)
def test_api_refuses_bad_runs_with_400(api_client, alice, payload, message):
    api_client.force_authenticate(alice)
    response = api_client.post("/api/demo-runs/", payload, format="json")
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_api_shows_own_runs_and_points_since(api_client, alice, bob):
    run = finished_run(alice)
    api_client.force_authenticate(alice)
    body = api_client.get(f"/api/demo-runs/{run.pk}/", {"since": 4}).json()
    assert [p["seq"] for p in body["points"]] == [5, 6]
    assert body["status"] == "succeeded" and body["summary"]["items"] == 2
    claim = body["summary"]["claim"]
    assert claim["verdict"] == "shown" and claim["text"].startswith("Parallel tasks finished")
    assert [p["holds"] for p in claim["parts"]] == [True, True] and claim["breaches"] == []
    assert body["summary"]["figures"]["tasks_s"]["median"] == 0.21
    assert body["summary"]["conditions"]["load_1m"] == 0.3
    api_client.force_authenticate(bob)
    response = api_client.get(f"/api/demo-runs/{run.pk}/")
    assert response.status_code == 404 and response.json()["error"]


def test_api_too_many_runs_is_429(api_client, alice, settings):
    settings.DEMOS_MAX_ACTIVE_RUNS_PER_USER = 1
    DemoRun.objects.create(user=alice, demo="vtrace")
    api_client.force_authenticate(alice)
    response = api_client.post("/api/demo-runs/", {"demo": "vtrace"}, format="json")
    assert response.status_code == 429 and "at most 1" in response.json()["error"]


def test_the_web_process_never_imports_ray(tmp_path):
    """URLs, views, API, tasks and the rendered demo pages leave Ray unimported."""
    script = textwrap.dedent(
        """
        import os, sys
        import django
        django.setup()
        from django.core.management import call_command
        call_command("migrate", verbosity=0)
        import config.urls, apps.demos.tasks, apps.demos.api  # noqa
        from django.test import Client
        client = Client()
        for url in ["/demos/", "/demos/tasks-vs-actors/", "/api/demos/"]:
            assert client.get(url).status_code == 200, url
        print(sorted(m for m in ("ray", "torch") if m in sys.modules))
        """
    )
    env = {
        **__import__("os").environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'web.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "true",
    }
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_alice_cancels_her_queued_run_from_its_page(client, alice):
    run = DemoRun.objects.create(user=alice, demo="vtrace")
    client.force_login(alice)
    assert "Cancel run" in client.get(run.get_absolute_url()).content.decode()
    response = client.post(reverse("demos:cancel", args=[run.pk]), follow=True)
    run.refresh_from_db()
    assert run.status == Status.CANCELLED
    page = response.content.decode()
    assert f"Run {run.pk} is cancelled." in page and "Cancel run" not in page


@pytest.fixture
def broker_down():
    """The real Celery app, pointed at a Redis port where nothing listens, and put back whole."""
    from config.celery import app

    nowhere = "redis://127.0.0.1:1/0"
    env = {k: os.environ.get(k) for k in ("CELERY_BROKER_URL", "CELERY_BROKER_WRITE_URL")}
    # Read before the environment changes: Celery's broker_url prefers CELERY_BROKER_URL, so
    # reading it afterwards would "restore" the dead address for every later test.
    real = app.conf.broker_url
    saved_pools = app._pool, app.amqp._producer_pool
    os.environ["CELERY_BROKER_URL"] = nowhere
    os.environ.pop("CELERY_BROKER_WRITE_URL", None)
    app.conf.broker_url, app._pool, app.amqp._producer_pool = nowhere, None, None
    try:
        yield
    finally:
        if app._pool is not None:  # connections to the dead address, made by this test
            app._pool.force_close_all()
        for key, value in env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        app.conf.broker_url = real
        app._pool, app.amqp._producer_pool = saved_pools


@pytest.mark.django_db(transaction=True)  # on_commit runs at the commit, as in production
def test_a_run_the_broker_refuses_fails_at_once_with_503(api_client, alice, broker_down):
    api_client.force_authenticate(alice)
    response = api_client.post("/api/demo-runs/", {"demo": "vtrace"}, format="json")
    assert response.status_code == 503
    assert "the task broker did not answer" in response.json()["error"]
    run = DemoRun.objects.get(user=alice)
    assert run.status == Status.FAILED and run.finished_at  # not queued for 15 minutes
    assert not DemoRun.objects.filter(user=alice, status__in=DemoRun.ACTIVE).exists()


def test_a_run_waiting_for_the_cluster_says_so_and_the_poll_picks_it_up(client, alice):
    run = DemoRun.objects.create(user=alice, demo="sampling-throughput", status=Status.RUNNING)
    client.force_login(alice)
    poll = {"seq": 0, "status": "running", "waiting": ""}
    assert client.get(run.get_absolute_url(), poll, HTTP_HX_REQUEST="true").status_code == 204
    DemoRun.objects.filter(pk=run.pk).update(waiting="waiting for 2 free CPUs (1 of 2 free)")
    response = client.get(run.get_absolute_url(), poll, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "waiting for 2 free CPUs (1 of 2 free)…" in response.content.decode()
    poll["waiting"] = "waiting for 2 free CPUs (1 of 2 free)"
    assert client.get(run.get_absolute_url(), poll, HTTP_HX_REQUEST="true").status_code == 204
