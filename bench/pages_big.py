"""What the site's pages cost at 100,000 cards: home, the study index, the deck page, the stats
page and a team dashboard, before and after the index-speed change, side by side in one run, on
bench/study_load.py's seed as bench/plan_cost.py builds it (PostgreSQL). Run by hand, not in CI.
See bench/README-pages-big.md for the figures.

    .venv/bin/python bench/plan_cost.py seed          # once: BENCH_PG_URL names the database
    git worktree add --detach /tmp/ix-base merge-int  # the code before, to compare with
    .venv/bin/python bench/pages_big.py compare --before /tmp/ix-base --rounds 3 -n 5

Each round starts one process per version, in turn (before, then after), each on its own copy of
the seeded database (a PostgreSQL template copy; the "after" copy is migrated first, so it has
the new index and the "before" one has not), production settings, Django's test client in
process, and its own code: `--before` is a checkout of the code to compare with, put first on
sys.path. Learners: plan_cost's four (300 states; 3,000 due; 1,000 and 10,000 cards studied) and
study_load's `heavy`, who has a state for every card of the 100,000-card deck. The team
dashboard is a team of 50 learners on the big deck, timed with its cache empty (a miss).
It prints each page's median wall time per version, the ratio, the queries of one call, and the
slowest statement's median time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PG_DEFAULT = "postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_ix_plancost"
LEARNERS = [
    ("300 states, 100k-card deck", "learner"),
    ("3,000 due cards", "loop"),
    ("1,000 cards, 8,000 reviews", "plan1k"),
    ("10,000 cards, 80,000 reviews", "plan10k"),
    ("100,000 states (every card)", "heavy"),
]
PAGES = [
    ("home /", "/"),
    ("study index /study/", "/study/"),
    ("deck page (100k cards)", "/decks/bench-100k/"),
    ("stats /study/stats/", "/study/stats/"),
    ("team dashboard (50 members, cache miss)", "team"),
]
TEAM = "bench-team"


def worker(code: str, migrate: bool, n: int) -> None:
    sys.path.insert(0, code)
    os.environ.setdefault("BENCH_PG_URL", PG_DEFAULT)
    from bench import plan_cost

    with plan_cost._copy() as db:
        os.environ.update(plan_cost._env(db))
        import django

        django.setup()
        if migrate:
            from django.core.management import call_command

            call_command("migrate", verbosity=0)
        print(json.dumps(_time(plan_cost, n)))


def _team(ids: dict[str, int]):
    from django.contrib.auth import get_user_model

    from apps.decks.models import Deck
    from apps.teams.models import Membership, Team

    team = Team.objects.create(name="Bench", slug=TEAM, deck=Deck.objects.get(slug="bench-100k"))
    users = get_user_model().objects
    members = list(ids.values()) + list(
        users.filter(username__startswith="bench")
        .order_by("id")
        .values_list("pk", flat=True)[100:145]
    )
    Membership.objects.bulk_create(
        Membership(team=team, user_id=uid, role="owner" if i == 0 else "member")
        for i, uid in enumerate(members)
    )
    return team


def _time(plan_cost, n: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    ids = plan_cost._learner_ids()
    ids["heavy"] = get_user_model().objects.get(username="heavy").pk
    _team(ids)
    out: dict = {}
    for _, who in LEARNERS:
        client = Client()
        client.force_login(get_user_model().objects.get(pk=ids[who]))
        figures: dict = {}
        for _, page in PAGES:
            url = f"/teams/{TEAM}/" if page == "team" else page

            def call(url=url, page=page, client=client):
                if page == "team":
                    cache.clear()
                return client.get(url)

            for _ in range(2):
                response = call()
                assert response.status_code == 200, (who, page, response.status_code)
            wall, slowest, queries = [], [], 0
            for _ in range(n):
                started = time.perf_counter()
                with CaptureQueriesContext(connection) as ctx:
                    response = call()
                wall.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, response.status_code
                times = [float(q["time"]) * 1000 for q in ctx.captured_queries]
                slowest.append(max(times, default=0.0))
                queries = len(ctx.captured_queries)
            figures[page] = {"wall": wall, "slowest": slowest, "queries": queries}
        out[who] = figures
    return out


def compare(before: str, rounds: int, n: int) -> None:
    versions = [("before", str(Path(before).resolve()), False), ("after", str(HERE), True)]
    pooled: dict = {}
    queries: dict = {}
    start_load = os.getloadavg()
    for r in range(rounds):
        for name, code, migrate in versions:
            cmd = [sys.executable, str(Path(__file__).resolve()), "worker", "--code", code,
                   "-n", str(n)] + (["--migrate"] if migrate else [])  # fmt: skip
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=code)
            if done.returncode != 0:
                raise SystemExit(f"{name} failed:\n{done.stderr[-3000:]}")
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            for who, pages in figures.items():
                for page, f in pages.items():
                    cell = pooled.setdefault((who, page, name), {"wall": [], "slowest": []})
                    cell["wall"] += f["wall"]
                    cell["slowest"] += f["slowest"]
                    queries[(who, page, name)] = f["queries"]
        print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    load = os.getloadavg()
    print(f"{rounds} rounds x {n} calls per page, learner and version, alternating; load average "
          f"{start_load[0]:.1f} / {start_load[1]:.1f} / {start_load[2]:.1f} at the start, "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end\n")  # fmt: skip
    print(
        "| learner | page | before: wall p50 | slowest statement | after: wall p50 "
        "| slowest statement | before / after | queries before / after |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, who in LEARNERS:
        for page_label, page in PAGES:
            a, b = pooled[(who, page, "before")], pooled[(who, page, "after")]
            wa, wb = statistics.median(a["wall"]), statistics.median(b["wall"])
            print(
                f"| {label} | {page_label} | {wa:.1f} ms | {statistics.median(a['slowest']):.1f} ms"
                f" | {wb:.1f} ms | {statistics.median(b['slowest']):.1f} ms | {wa / wb:.1f}"
                f" | {queries[(who, page, 'before')]} / {queries[(who, page, 'after')]} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["compare", "worker"])
    parser.add_argument("--before", help="a checkout of the code to compare with")
    parser.add_argument("--code", help="(worker) the checkout whose code to run")
    parser.add_argument("--migrate", action="store_true", help="(worker) migrate the copy first")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-n", type=int, default=5, help="timed calls per page and learner")
    args = parser.parse_args()
    if args.what == "worker":
        worker(args.code, args.migrate, args.n)
    else:
        if not args.before:
            parser.error("compare needs --before (a checkout of the code to compare with)")
        compare(args.before, args.rounds, args.n)


if __name__ == "__main__":
    main()
