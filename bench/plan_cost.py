"""What the interview plan costs a learner with a date, two checkouts of the app side by side in
one run (issue 19's leftovers: every study queue request builds the learner's plan). Run by hand,
not in CI.

    git -C /work/main archive 816885c | tar -x -C /tmp/planspeed-base   # the code before
    .venv/bin/python bench/plan_cost.py compare --base /tmp/planspeed-base
    .venv/bin/python bench/plan_cost.py profile                          # where the time goes

`compare` first seeds one SQLite database (or PostgreSQL: BENCH_PG_URL names a database the
bench owns, e.g. postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_planspeed; each process then
works on a copy made from it as a template) with this tree (the schema is the same in both): a
published deck of `--cards` synthetic cards in 10 sections, a learner `planner` whose `--reviews`
reviews of history (at most: a card's reviews stop at today; the seed prints how many) were made
over the last `--history` days at SM-2's due times (grades drawn from a seeded generator: mostly
Good, some Hard, Easy and misses; a tenth of the cards never seen, so the plan introduces new
ones), and an interview date `--days` days ahead with a 20-minute budget
and a 90% target. Each round then starts one process per checkout, in turn (base, this tree,
base, ...), each on its own copy of that database (so the review loop's grades start from the
same state), on the production settings (DEBUG off), and times in process:

- `interview.interview_plan(user)` and `interview.planned_today(user)`, called directly, and
  `interview_plan` with this tree's memos emptied before each call (the first plan a process
  builds for a learner);
- GET /api/study/queue/ and the review page's htmx fragment (GET /study/review/);
- the review loop: POST a grade as htmx does and read the next card from the fragment;
- the study index (GET /study/) and the plan page (GET /study/plan/).

It prints each case's wall-time median and p90 per checkout, the median of the per-round ratios
(this tree / base), the median CPU time (time.process_time) of one call, and the queries of one
call per checkout. `profile` runs cProfile over `interview_plan` in this tree (or `--tree`) and
prints the top functions by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
WORK = Path(tempfile.gettempdir()) / "planspeed-bench"
SEED = WORK / "seed.sqlite3"
# PostgreSQL instead of SQLite: the seeded database's URL (each process works on a copy of it).
PG = os.environ.get("BENCH_PG_URL", "")
USER = "planner"
CASES = [
    ("interview_plan(user), memos cold", "cold"),
    ("interview_plan(user)", "plan"),
    ("planned_today(user)", "planned"),
    ("GET /api/study/queue/", "api"),
    ("review fragment GET /study/review/", "page"),
    ("review loop: POST grade -> next card", "loop"),
    ("study index GET /study/", "index"),
    ("plan page GET /study/plan/", "plan_page"),
]


def _env(db: str) -> dict[str, str]:
    return {
        "DATABASE_URL": db,
        "DEBUG": "false",
        "SECRET_KEY": "bench-only-" + "x" * 60,
        "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "SECURE_HSTS_SECONDS": "0",
        "DJANGO_SETTINGS_MODULE": "bench.study_settings",
        "CELERY_BROKER_URL": "memory://",
        "CACHE_URL": "",
        "CACHE_DIR": str(WORK / f"cache-{os.getpid()}"),
        "THROTTLE_USER": "1000000/min",
        "THROTTLE_WRITE": "1000000/min",
        "LOG_LEVEL": "WARNING",
    }


def _setup(tree: Path, db: str) -> None:
    sys.path.insert(0, str(tree))
    os.chdir(tree)
    os.environ.update(_env(db))
    import django

    django.setup()
    import apps

    assert str(Path(apps.__file__).resolve()).startswith(str(tree.resolve())), apps.__file__


def seed(cards: int, reviews: int, days: int, history: int) -> None:
    """The database every worker copies (built with this tree; the schema is the same)."""
    WORK.mkdir(exist_ok=True)
    SEED.unlink(missing_ok=True)
    _setup(HERE, PG or f"sqlite:///{SEED}")
    if PG:
        from bench.common import create_database

        create_database(PG)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.utils import timezone

    from apps.accounts.models import profile_for
    from apps.decks.models import Card, Deck, Section
    from apps.study import scheduler
    from apps.study.models import CardState, ReviewLog

    call_command("migrate", verbosity=0)
    deck = Deck.objects.create(slug="bench-plan", title="Bench plan", is_published=True)
    sections = [
        Section.objects.create(deck=deck, slug=f"s{i}", order=i, title=f"Section {i}")
        for i in range(10)
    ]
    Card.objects.bulk_create(
        Card(
            deck=deck,
            section=sections[i % 10],
            slug=f"c{i}",
            order=i,
            front=f"Question {i}?",
            back=f"Answer {i}.",
            front_html=f"<p>Question {i}?</p>",
            back_html=f"<p>Answer {i}.</p>",
        )
        for i in range(cards)
    )
    user = get_user_model().objects.create_user(USER, password="x" * 12)
    now = timezone.now()
    rng = random.Random(19)
    seen = list(Card.objects.filter(deck=deck).order_by("id"))[: max(1, cards * 9 // 10)]
    per_card = max(1, reviews // len(seen))
    logs, states = [], []
    for card in seen:
        at = now - timedelta(days=history) + timedelta(minutes=rng.randrange(0, 60 * 24 * 20))
        schedule = scheduler.new_state(at)
        for _ in range(per_card):
            if at >= now - timedelta(minutes=5):
                break
            grade = rng.choices([1, 3, 4, 5], weights=[15, 15, 55, 15])[0]
            after = scheduler.review(schedule, grade, at)
            logs.append(
                ReviewLog(
                    user=user,
                    card=card,
                    grade=grade,
                    kind="review",
                    reviewed_at=at,
                    duration_ms=rng.randrange(3_000, 20_000),
                    state_before=schedule.as_json(),
                    state_after=after.as_json(),
                )  # fmt: skip
            )
            schedule = after
            at = max(at + timedelta(minutes=10), schedule.due_at)
        state = CardState(user=user, card=card, deck=deck)
        state.apply(schedule)
        states.append(state)
    ReviewLog.objects.bulk_create(logs)
    CardState.objects.bulk_create(states)
    profile = profile_for(user)
    profile.interview_date = scheduler.local_date(now, profile.zone) + timedelta(days=days)
    profile.daily_budget_minutes = 20
    profile.target_recall = 90
    profile.save()
    due = sum(1 for s in states if scheduler.is_due(s.schedule, now, profile.zone))
    print(
        f"seeded {cards} cards, {len(logs)} reviews of {len(seen)} cards ({due} due today), "
        f"interview in {days} days",
        file=sys.stderr,
    )


def worker(tree: Path, n: int) -> None:
    """Time every case in this process, with `tree`'s apps, and print the figures as JSON."""
    with _copy() as db:
        _setup(tree, db)
        _time_cases(n)
    shutil.rmtree(WORK / f"cache-{os.getpid()}", ignore_errors=True)


@contextlib.contextmanager
def _copy():
    """This process's own copy of the seeded database (SQLite: a file; PostgreSQL: a database
    made from the seeded one as a template), dropped at the end."""
    if not PG:
        db = WORK / f"run-{os.getpid()}.sqlite3"
        shutil.copyfile(SEED, db)
        try:
            yield f"sqlite:///{db}"
        finally:
            db.unlink(missing_ok=True)
        return
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
        for attempt in range(3):  # a server-side hiccup (another suite's restart test) is retried
            try:
                with psycopg.connect(base + "/postgres", autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')
                break
            except psycopg.OperationalError:
                if attempt == 2:
                    raise
                time.sleep(2)


def _time_cases(n: int) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from apps.accounts.models import Profile
    from apps.study import interview

    user = get_user_model().objects.get(username=USER)
    client = Client()
    client.force_login(user)
    htmx = {"HTTP_HX_REQUEST": "true"}
    state: dict = {"form": None, "done": 0}

    def next_card(body: bytes) -> None:
        found = re.search(rb'name="card" value="(\d+)"', body)
        if found is None:
            state["form"] = None
            return
        state["form"] = {"card": found[1].decode()}
        if b'name="for_interview" value="1"' in body:
            state["form"]["for_interview"] = "1"

    def loop():
        if state["form"] is None:
            response = client.get("/study/review/", **htmx)
        else:
            data = {
                **state["form"],
                "grade": "4",
                "client_id": str(uuid.uuid4()),
                "shown_at": str(int(time.time() * 1000) - 3000),
                "done": str(state["done"]),
            }
            response = client.post("/study/review/", data, **htmx)
            state["done"] += 1
        next_card(response.content)
        return response

    class Ok:
        status_code = 200

    def call(fn):
        def run():
            fn(user)
            return Ok

        return run

    def cold():
        # The first plan a process builds for a learner (this tree's memos emptied first; the
        # base has none).
        from apps.study import memory, plan

        for memo in ("_MEMORIES", "_PREDICTED", "_DUE_DAYS"):
            for module in (memory, plan):
                getattr(module, memo, {}).clear()
        interview.interview_plan(user)
        return Ok

    runs = {
        "cold": cold,
        "plan": call(interview.interview_plan),
        "planned": call(interview.planned_today),
        "api": lambda: client.get("/api/study/queue/"),
        "page": lambda: client.get("/study/review/", **htmx),
        "loop": loop,
        "index": lambda: client.get("/study/"),
        "plan_page": lambda: client.get("/study/plan/"),
    }
    out: dict = {"times": {}, "cpu": {}, "queries": {}}
    profile = Profile.objects.get(user=user)
    Profile.objects.filter(pk=profile.pk).update(reviews_per_day=100_000)
    for _, key in CASES:
        run = runs[key]
        if key == "loop":
            loop()  # the first card
        for _ in range(2):
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
            cmd = [sys.executable, script, "worker", "--tree", str(tree), "-n", str(n)]
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
    print(f"{rounds} rounds x {n} calls per case and checkout, alternating base and this tree")
    print(
        f"{'case':38s} {'base p50':>9s} {'p90':>8s} {'this p50':>9s} {'p90':>8s}  "
        f"{'this/base':>9s}  {'CPU base':>8s} {'this':>8s}  queries base/this"
    )
    for label, key in CASES:
        b, t = pooled["base"][key], pooled["this"][key]
        cb, ct = pooled_cpu["base"][key], pooled_cpu["this"][key]
        print(
            f"{label:38s} {statistics.median(b):7.1f}ms {_p90(b):6.1f}ms "
            f"{statistics.median(t):7.1f}ms {_p90(t):6.1f}ms  "
            f"{statistics.median(ratios[key]):9.2f}  "
            f"{statistics.median(cb):6.1f}ms {statistics.median(ct):6.1f}ms  "
            f"{queries['base'][key]}/{queries['this'][key]}"
        )


def profile(tree: Path, top: int) -> None:
    import cProfile
    import pstats

    with _copy() as db:
        _setup(tree, db)
        from django.contrib.auth import get_user_model

        from apps.study import interview

        user = get_user_model().objects.get(username=USER)
        interview.interview_plan(user)  # warm: imports, the connection
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(5):
            interview.interview_plan(user)
        profiler.disable()
        stats = pstats.Stats(profiler).strip_dirs()
        print("5 x interview_plan(user); by cumulative time")
        stats.sort_stats("cumulative").print_stats(top)
        print("by own time")
        stats.sort_stats("tottime").print_stats(top)


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["compare", "profile", "seed", "worker"])
    parser.add_argument("--base", type=Path, help="the other checkout (e.g. the code before)")
    parser.add_argument("--tree", type=Path, default=HERE, help="profile / worker: the checkout")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("-n", type=int, default=10, help="timed calls per case and process")
    parser.add_argument("--cards", type=int, default=200)
    parser.add_argument("--reviews", type=int, default=2000)
    parser.add_argument("--days", type=int, default=30, help="days to the interview")
    parser.add_argument("--history", type=int, default=120, help="days of review history")
    parser.add_argument("--top", type=int, default=25, help="profile: functions to print")
    parser.add_argument("--no-seed", action="store_true", help="reuse the seeded database")
    args = parser.parse_args()
    if args.what == "worker":
        worker(args.tree, args.n)
        return
    if args.what == "seed" or not (args.no_seed and (PG or SEED.exists())):
        cmd = [sys.executable, str(Path(__file__).resolve()), "seed"]
        cmd += ["--cards", str(args.cards), "--reviews", str(args.reviews)]
        cmd += ["--days", str(args.days), "--history", str(args.history)]
        if args.what == "seed":
            seed(args.cards, args.reviews, args.days, args.history)
            return
        subprocess.run(cmd, check=True, cwd=HERE)
    if args.what == "profile":
        profile(args.tree, args.top)
    elif args.base is None:
        parser.error("compare needs --base")
    else:
        compare(args.base, args.rounds, args.n)


if __name__ == "__main__":
    main()
