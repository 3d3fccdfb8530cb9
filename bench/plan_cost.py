"""What interview mode costs a request: the same learners with an interview date (30 days ahead,
20 minutes a day, mode on) and without one, side by side in one run, on bench/study_load.py's
seed (PostgreSQL). Run by hand, not in CI. See bench/README-plan-cost.md for the figures.

    .venv/bin/python bench/plan_cost.py seed                 # study_load's seed + two learners
    .venv/bin/python bench/plan_cost.py compare --rounds 3 -n 10

The learners (issue 24's "Speed"): a study_load learner with 300 card states on the 100,000-card
deck; a review-loop learner with 3,000 due cards; `plan1k` with 1,000 cards of the big deck, 8
reviews each; `plan10k` with 10,000 cards and 80,000 reviews. Their stored memories are worked
out from their logs (`services.card_memories_fill`, as migration 0008 does).

Each round starts one process per mode (without a date, with one), in turn, each on its own copy
of the seeded database (made from it as a template), production settings (DEBUG off), Django's
test client in process, and times per learner: the first queue request of the day with a date
(the plan is built: "cold"), GET /api/study/queue/, the review page's htmx fragment, the review
loop (POST a grade as htmx does and read the next card), the study index and the plan page. It
prints each case's median wall time and median CPU time (time.process_time of the Django process;
PostgreSQL's own work is not in it) per mode, the ratio date / no date of the CPU medians, and
the queries of one call. Database names start with raydeck_interview_ (this worktree's own).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

PG = os.environ.get(
    "BENCH_PG_URL", "postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_interview_plancost"
)
LEARNERS = [
    ("300 states, 100k-card deck", "learner"),
    ("3,000 due cards", "loop"),
    ("1,000 cards, 8,000 reviews", "plan1k"),
    ("10,000 cards, 80,000 reviews", "plan10k"),
]
CASES = [
    ("first queue request of the day", "cold"),
    ("GET /api/study/queue/", "api"),
    ("review fragment GET /study/review/", "page"),
    ("review loop: POST grade -> next card", "loop"),
    ("study index GET /study/", "index"),
    ("plan page GET /study/plan/", "plan_page"),
]


def _env(db: str) -> dict[str, str]:
    from bench import study_load

    return {**study_load.ENV, "DATABASE_URL": db, "CACHE_URL": "", "LOG_LEVEL": "WARNING",
            "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
            "THROTTLE_USER": "1000000/min", "THROTTLE_WRITE": "1000000/min"}  # fmt: skip


def seed(users: int, cards: int, logs: int) -> None:
    """study_load's seed into this bench's database, then plan1k and plan10k, then the stored
    memories of the four learners."""
    from bench import study_load

    study_load.PG_URL = PG
    study_load.ENV["DATABASE_URL"] = PG
    study_load.seed(users, cards, logs)
    from django.db import connection

    from apps.study.services import card_memories_fill

    with connection.cursor() as cur:
        cur.execute("SELECT id FROM decks_deck WHERE slug = %s", [study_load.BIG])
        deck = cur.fetchone()[0]
        cur.execute("SELECT min(id) FROM decks_card WHERE deck_id = %s", [deck])
        c0 = cur.fetchone()[0]
        for name, n, offset in (("plan1k", 1000, 20_000), ("plan10k", 10_000, 40_000)):
            cur.execute(
                "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name,"
                " email, is_staff, is_active, date_joined) SELECT password, false, %s, '', '', '',"
                " false, true, now() FROM auth_user WHERE username = 'heavy' RETURNING id",
                [name],
            )
            uid = cur.fetchone()[0]
            cur.execute(
                "INSERT INTO accounts_profile (user_id, time_zone, new_cards_per_day,"
                " reviews_per_day, target_recall, leech_threshold, extra_new_cards,"
                " interview_mode) VALUES (%s, 'Europe/Berlin', 20, 200, 90, 8, 0, true)",
                [uid],
            )
            # eight reviews a card over the last 120 days, at SM-2-like growing gaps; due
            # spread over the next weeks (a tenth today)
            cur.execute(
                "INSERT INTO study_reviewlog (user_id, card_id, grade, kind, reviewed_at,"
                " duration_ms, state_before, state_after)"
                " SELECT %(u)s, %(c0)s + %(off)s + g, CASE WHEN (g + k) %% 7 = 0 THEN 1"
                "  WHEN (g + k) %% 5 = 0 THEN 3 ELSE 4 END, 'review',"
                "  now() - interval '120 days' + (k * k * 1.8 + g %% 5) * interval '1 day'"
                "  + (g %% 600) * interval '1 minute', 4000 + (g * 7 + k) %% 9000, '{}', '{}'"
                " FROM generate_series(0, %(n)s - 1) g, generate_series(0, 7) k",
                {"u": uid, "c0": c0, "off": offset, "n": n},
            )
            cur.execute(
                "INSERT INTO study_cardstate (user_id, card_id, deck_id, repetitions,"
                " ease_factor, interval_days, due_at, needs_redrill, lapses, last_grade,"
                " last_reviewed_at, introduced_at, suspended, leech)"
                " SELECT %(u)s, %(c0)s + %(off)s + g, %(deck)s, 4, 2.30, 20,"
                "  CASE WHEN g %% 10 = 0 THEN now() - interval '2 hours'"
                "       ELSE now() + (1 + g %% 40) * interval '1 day' END,"
                "  false, g %% 3, 4, now() - interval '6 days', now() - interval '120 days',"
                "  false, false FROM generate_series(0, %(n)s - 1) g",
                {"u": uid, "c0": c0, "off": offset, "n": n, "deck": deck},
            )
            cur.execute("INSERT INTO authtoken_token (key, user_id, created) SELECT"
                        " substr(md5(random()::text) || md5(random()::text), 1, 40), %s, now()",
                        [uid])  # fmt: skip
        cur.execute("ANALYZE")
    for uid in _learner_ids().values():
        card_memories_fill(user_id=uid)
    print("memories filled for", _learner_ids(), file=sys.stderr)


def _learner_ids() -> dict[str, int]:
    from django.contrib.auth import get_user_model

    from bench import study_load

    users = get_user_model().objects
    bench = users.filter(username__startswith="bench").order_by("id")
    return {
        "learner": bench[study_load.LOOP_USERS + 5].pk,
        "loop": bench[0].pk,
        "plan1k": users.get(username="plan1k").pk,
        "plan10k": users.get(username="plan10k").pk,
    }


@contextlib.contextmanager
def _copy():
    import psycopg

    base, name = PG.rsplit("/", 1)
    copy = f"{name}_{os.getpid()}"
    with psycopg.connect(base + "/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{copy}" TEMPLATE "{name}"')
    try:
        yield f"{base}/{copy}"
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(base + "/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')


def worker(mode: str, n: int) -> None:
    with _copy() as db:
        os.environ.update(_env(db))
        import django

        django.setup()
        print(json.dumps(_time(mode, n)))


def _time(mode: str, n: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from apps.accounts.models import Profile

    out: dict = {}
    ids = _learner_ids()
    for _, who in LEARNERS:
        user = get_user_model().objects.get(pk=ids[who])
        profile = Profile.objects.get(user=user)
        day = None
        if mode == "date":
            day = profile.local_today() + timedelta(days=30)
        Profile.objects.filter(pk=profile.pk).update(
            interview_date=day, daily_budget_minutes=20, interview_mode=True
        )
        client = Client()
        client.force_login(user)
        runs = _runs(client, user)
        figures: dict = {}
        for _, key in CASES:
            run = runs[key]
            for _ in range(2):
                response = run()
                assert response.status_code == 200, (who, key, response.status_code)
            wall, cpu = [], []
            for _ in range(n):
                started, cpu_started = time.perf_counter(), time.process_time()
                response = run()
                wall.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - cpu_started) * 1000)
                assert response.status_code == 200, response.status_code
            with CaptureQueriesContext(connection) as ctx:
                run()
            figures[key] = {"wall": wall, "cpu": cpu, "queries": len(ctx.captured_queries)}
        out[who] = figures
    return out


def _runs(client, user) -> dict:
    """The cases of one learner, as callables that make one request each."""
    from apps.interview.models import StudyPlan

    htmx = {"HTTP_HX_REQUEST": "true"}
    state: dict = {"form": None, "done": 0}

    def next_card(body: bytes) -> None:
        found = re.search(rb'name="card" value="(\d+)"', body)
        state["form"] = {"card": found[1].decode()} if found else None
        if found and b'name="for_interview" value="1"' in body:
            state["form"]["for_interview"] = "1"

    def loop():
        if state["form"] is None:
            response = client.get("/study/review/", **htmx)
        else:
            shown = str(int(time.time() * 1000) - 3000)
            data = {**state["form"], "grade": "4", "client_id": str(uuid.uuid4()),
                    "shown_at": shown, "done": str(state["done"])}  # fmt: skip
            response = client.post("/study/review/", data, **htmx)
            state["done"] += 1
        next_card(response.content)
        return response

    def cold():
        StudyPlan.objects.filter(user=user).delete()
        return client.get("/api/study/queue/")

    return {
        "cold": cold,
        "api": lambda: client.get("/api/study/queue/"),
        "page": lambda: client.get("/study/review/", **htmx),
        "loop": loop,
        "index": lambda: client.get("/study/"),
        "plan_page": lambda: client.get("/study/plan/"),
    }


def compare(rounds: int, n: int) -> None:
    pooled: dict = {}
    queries: dict = {}
    for r in range(rounds):
        for mode in ("none", "date"):
            cmd = [sys.executable, str(Path(__file__).resolve()), "worker", mode, "-n", str(n)]
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE)
            if done.returncode != 0:
                raise SystemExit(f"{mode} failed:\n{done.stderr[-3000:]}")
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            for who, cases in figures.items():
                for key, f in cases.items():
                    cell = pooled.setdefault((who, key, mode), {"wall": [], "cpu": []})
                    cell["wall"] += f["wall"]
                    cell["cpu"] += f["cpu"]
                    queries[(who, key, mode)] = f["queries"]
        print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    load = os.getloadavg()
    print(f"{rounds} rounds x {n} calls per case, learner and mode, alternating; load average "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end\n")  # fmt: skip
    print(
        "| learner | case | no date: wall p50 | CPU p50 | with a date: wall p50 | CPU p50 "
        "| CPU date / no date | queries no date / date |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, who in LEARNERS:
        for case, key in CASES:
            a, b = pooled[(who, key, "none")], pooled[(who, key, "date")]
            ratio = statistics.median(b["cpu"]) / max(statistics.median(a["cpu"]), 1e-9)
            print(
                f"| {label} | {case} | {statistics.median(a['wall']):.1f} ms "
                f"| {statistics.median(a['cpu']):.1f} ms | {statistics.median(b['wall']):.1f} ms "
                f"| {statistics.median(b['cpu']):.1f} ms | {ratio:.2f} "
                f"| {queries[(who, key, 'none')]} / {queries[(who, key, 'date')]} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["seed", "compare", "worker"])
    parser.add_argument("mode", nargs="?", choices=["none", "date"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-n", type=int, default=10, help="timed calls per case and learner")
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--logs", type=int, default=1_000_000)
    args = parser.parse_args()
    if args.what == "seed":
        seed(args.users, args.cards, args.logs)
    elif args.what == "worker":
        worker(args.mode, args.n)
    else:
        compare(args.rounds, args.n)


if __name__ == "__main__":
    main()
