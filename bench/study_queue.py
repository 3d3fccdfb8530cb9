"""The study queue and the review loop for a learner with 100,000 card states, two checkouts of
the app side by side in one run (issue 18: one queue on Django's public ORM, no slower than the
code it replaces). Run by hand, not in CI.

    git archive ba4474c | tar -x -C /tmp/queue-base        # the code before (or any commit)
    BENCH_PG_URL=... .venv/bin/python bench/study_load.py seed --users 200 --logs 300000
    BENCH_PG_URL=... .venv/bin/python bench/study_queue.py --base /tmp/queue-base

Each round starts one process per checkout, in turn (base, this tree, base, ...): the same
database, the same Python, the same minute. A process logs in as `heavy` (a state for every card
of the 100,000-card deck, 2% due) with Django's test client on the production settings and times
each request through the whole stack (middleware, view, template or serializer):

- GET /api/study/queue/?deck=<100k> and GET /api/study/queue/ (the whole queue, 200 due cards);
- GET /study/review/<100k>/ as htmx asks it (the next card only);
- the review loop: POST a grade to the review page as htmx does and read the next card from the
  fragment it returns (heavy's daily review limit is lifted for this case only, then restored,
  and the loop's review logs are deleted at the end so the next process starts the day afresh).

It prints each case's wall-time median and p90 per checkout, the median of the per-round ratios
(this tree / base), the median CPU time of the Django process per request (time.process_time:
less moved by the neighbours' load than wall time; PostgreSQL's own work is not in it), and the
queries of one request.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
BIG = "bench-100k"
CASES = [
    ("queue API, 100k deck (whole queue)", "api_deck"),
    ("queue API, all decks (whole queue)", "api_all"),
    ("review page fragment (next card)", "page"),
    ("review loop: POST grade -> next card", "loop"),
]


def worker(tree: Path, n: int) -> None:
    """Time every case in this process, with `tree`'s apps, and print the figures as JSON."""
    sys.path.insert(0, str(tree))
    from bench.common import django_setup
    from bench.study_load import ENV

    django_setup({**ENV, "DATABASE_URL": os.environ.get("BENCH_PG_URL", ENV["DATABASE_URL"])})
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    import apps
    from apps.accounts.models import Profile
    from apps.study.models import ReviewLog

    assert str(Path(apps.__file__).resolve()).startswith(str(tree.resolve())), apps.__file__
    heavy = get_user_model().objects.get(username="heavy")
    began = timezone.now()
    client = Client(SERVER_NAME="127.0.0.1")
    client.force_login(heavy)
    htmx = {"HTTP_HX_REQUEST": "true"}
    page = f"/study/review/{BIG}/"
    state = {"card": None, "done": 0}

    def next_card(body: bytes) -> None:
        found = re.search(rb'name="card" value="(\d+)"', body)
        state["card"] = found[1].decode() if found else None

    def api_deck():
        return client.get(f"/api/study/queue/?deck={BIG}")

    def api_all():
        return client.get("/api/study/queue/")

    def get_page():
        return client.get(page, **htmx)

    def loop():
        if state["card"] is None:
            response = client.get(page, **htmx)
        else:
            data = {
                "card": state["card"],
                "grade": "4",
                "client_id": str(uuid.uuid4()),
                "shown_at": str(int(time.time() * 1000) - 3000),
                "done": str(state["done"]),
            }
            response = client.post(page, data, **htmx)
            state["done"] += 1
        next_card(response.content)
        return response

    out: dict = {"times": {}, "cpu": {}, "queries": {}}
    profile = Profile.objects.get(user=heavy)
    limit = profile.reviews_per_day
    for _, key in CASES:
        run = {"api_deck": api_deck, "api_all": api_all, "page": get_page, "loop": loop}[key]
        if key == "loop":
            Profile.objects.filter(pk=profile.pk).update(reviews_per_day=100_000)
            loop()  # the first card
        try:
            for _ in range(3):
                assert run().status_code == 200
            times, cpu = [], []
            for _ in range(n):
                started, cpu_started = time.perf_counter(), time.process_time()
                response = run()
                times.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - cpu_started) * 1000)
                assert response.status_code == 200, response.status_code
            with CaptureQueriesContext(connection) as ctx:
                run()
            out["times"][key] = times
            out["cpu"][key] = cpu
            out["queries"][key] = len(ctx.captured_queries)
        finally:
            Profile.objects.filter(pk=profile.pk).update(reviews_per_day=limit)
    # The loop's grades would count against today's review limit in the next process: drop
    # their logs (the cards they scheduled stay scheduled; heavy has 2,000 due to start with).
    ReviewLog.objects.filter(user=heavy, reviewed_at__gte=began).delete()
    print(json.dumps(out))


def compare(base: Path, rounds: int, n: int) -> None:
    trees = [("base", base), ("this", HERE)]
    pooled: dict = {name: {key: [] for _, key in CASES} for name, _ in trees}
    pooled_cpu: dict = {name: {key: [] for _, key in CASES} for name, _ in trees}
    ratios: dict = {key: [] for _, key in CASES}
    queries: dict = {}
    for r in range(rounds):
        medians = {}
        for name, tree in trees:
            script = str(Path(__file__).resolve())
            cmd = [sys.executable, script, "--worker", str(tree), "-n", str(n)]
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=tree)
            if done.returncode != 0:
                raise SystemExit(f"{name} failed:\n{done.stderr[-3000:]}")
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            queries[name] = figures["queries"]
            for key, times in figures["times"].items():
                pooled[name][key] += times
                pooled_cpu[name][key] += figures["cpu"][key]
            medians[name] = {k: statistics.median(t) for k, t in figures["times"].items()}
        for _, key in CASES:
            ratios[key].append(medians["this"][key] / medians["base"][key])
        print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    print(f"{rounds} rounds x {n} requests per case and checkout, alternating base and this tree")
    print(f"{'case':40s} {'base p50':>9s} {'p90':>7s} {'this p50':>9s} {'p90':>7s}  "
          f"{'wall this/base (per round)':34s} {'CPU base':>8s} {'this':>7s} {'ratio':>5s}"
          "  queries base/this")  # fmt: skip
    for label, key in CASES:
        b, t = pooled["base"][key], pooled["this"][key]
        cb, ct = pooled_cpu["base"][key], pooled_cpu["this"][key]
        per_round = ", ".join(f"{x:.2f}" for x in ratios[key])
        print(
            f"{label:40s} {statistics.median(b):7.2f}ms {_p90(b):5.2f}ms "
            f"{statistics.median(t):7.2f}ms {_p90(t):5.2f}ms  "
            f"{statistics.median(ratios[key]):.2f} ({per_round})".ljust(35)
            + f"{statistics.median(cb):6.2f}ms {statistics.median(ct):5.2f}ms "
            f"{statistics.median(ct) / statistics.median(cb):5.2f}  "
            f"{queries['base'][key]}/{queries['this'][key]}"
        )


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=Path, help="the other checkout (e.g. the code before)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("-n", type=int, default=30, help="timed requests per case and process")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.n)
    elif args.base:
        compare(args.base, args.rounds, args.n)
    else:
        parser.error("--base is required")


if __name__ == "__main__":
    main()
