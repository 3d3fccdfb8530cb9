"""Load benchmark for the study loop on PostgreSQL (issue 3, "Speed"). Run by hand, not in CI.

    .venv/bin/python bench/study_load.py all            # seed, time the queue, load test
    .venv/bin/python bench/study_load.py seed [--users 1000 --cards 100000 --logs 1000000]
    .venv/bin/python bench/study_load.py queue          # queue build in-process, p50/p99
    .venv/bin/python bench/study_load.py load [--duration 30 --rounds 3 --connections 4]

PostgreSQL: the role of .ci/run (raydeck/raydeck with CREATEDB) on 127.0.0.1:5432, or set
BENCH_PG_URL; the benchmark builds its own database (raydeck_bench_study) from scratch.
Load tool: wrk (Debian package `wrk`), driving gunicorn with 2 sync workers on loopback, with
production settings (DEBUG off) plus one bare view (bench/study_urls.py) for comparison.

Data (seed): the shipped deck; a generated deck of --cards cards in 100 sections; --users
learners (bench0000...), each with 300 card states on the big deck (a third due) and their share
of --logs review logs; the first 64 learners (the review-loop learners) have 3,000 due cards each
(the loop moves to the next learner when one is done for the day); "heavy" has a state for every
card of the big deck (2% due). Everyone has the default limits: 20 new cards, 200 reviews a day.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import create_database, django_setup, seed_study, step  # noqa: E402

OUT = ROOT / "var" / "bench"
PG_URL = os.environ.get(
    "BENCH_PG_URL", "postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_bench_study"
)
BIG = "bench-100k"
SHIPPED = "distributed-rl-on-ray"
LOOP_USERS = 64
PORT = int(os.environ.get("BENCH_PORT", "18765"))

ENV = {
    "DATABASE_URL": PG_URL,
    "DEBUG": "false",
    "SECRET_KEY": "bench-only-" + "x" * 60,
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
    "SECURE_SSL_REDIRECT": "false",
    "SESSION_COOKIE_SECURE": "false",
    "CSRF_COOKIE_SECURE": "false",
    "SECURE_HSTS_SECONDS": "0",
    "DJANGO_SETTINGS_MODULE": "bench.study_settings",
    "DB_CONN_MAX_AGE": "600",
    "CELERY_BROKER_URL": "memory://",
}


def seed(users: int, cards: int, logs: int) -> None:
    print(f"seed: {users} users, {cards} generated cards, {logs} review logs into {PG_URL}")
    t = time.perf_counter()
    create_database(PG_URL)
    django_setup(ENV)
    from django.contrib.auth.hashers import make_password
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    call_command("seed", verbosity=0)
    t = step("migrate + shipped deck", t)
    with connection.cursor() as cur:
        heavy_logs = min(cards, logs)
        seeded = seed_study(
            cur,
            deck_slug=BIG,
            cards=cards,
            learners=users,
            password=make_password("pw-bench-123"),
            time_zones=("UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"),
            interview_mode=True,
            tokens=True,
            learner_states=300,
            loop_learners=LOOP_USERS,
            loop_states=3000,
            heavy_log_cards=heavy_logs,
            learner_logs=max(0, (logs - heavy_logs) // users),
        )
    first, last = seeded.first_card, seeded.last_card
    t = time.perf_counter()

    from django.contrib.auth import get_user_model

    OUT.mkdir(parents=True, exist_ok=True)
    learners = get_user_model().objects.filter(username__startswith="bench").order_by("id")
    lines = []
    for user in learners[:LOOP_USERS]:
        session = SessionStore()
        session["_auth_user_id"] = str(user.pk)
        session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        session["_auth_user_hash"] = user.get_session_auth_hash()
        session.create()
        lines.append(f"{session.session_key} {secrets.token_hex(16)}")
    (OUT / "study_creds.txt").write_text("\n".join(lines) + "\n")
    tokens = [u.auth_token.key for u in learners.select_related("auth_token")[:LOOP_USERS]]
    (OUT / "study_tokens.txt").write_text("\n".join(tokens) + "\n")
    heavy_user = get_user_model().objects.select_related("auth_token").get(username="heavy")
    (OUT / "study_heavy_token.txt").write_text(heavy_user.auth_token.key + "\n")
    (OUT / "study_ids.txt").write_text(f"{first} {last}\n")
    step("sessions and tokens for the load test", t)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def time_queue(repeat: int) -> None:
    django_setup(ENV)
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.decks.models import Deck
    from apps.study import queue as study_queue

    users = get_user_model().objects
    heavy = users.get(username="heavy")
    learner = users.filter(username__startswith="bench").order_by("id")[LOOP_USERS + 5]
    big, shipped = Deck.objects.get(slug=BIG), Deck.objects.get(slug=SHIPPED)
    from apps.study.models import CardState

    print(
        f"queue build in-process on PostgreSQL, {repeat} runs each after a warm-up "
        f"(heavy has {CardState.objects.filter(user=heavy).count()} card states)"
    )
    cases = [
        ("heavy, 100k-card deck, next card (size=1)", heavy, big, 1),
        ("heavy, 100k-card deck, whole queue", heavy, big, None),
        ("heavy, all decks, whole queue", heavy, None, None),
        ("learner, 100k-card deck, whole queue", learner, big, None),
        ("learner, shipped deck, whole queue", learner, shipped, None),
    ]
    for label, user, deck, size in cases:
        study_queue.queue(user, deck, size=size)
        timings = []
        for _ in range(repeat):
            started = time.perf_counter()
            q = study_queue.queue(user, deck, size=size)
            timings.append((time.perf_counter() - started) * 1000)
        with CaptureQueriesContext(connection) as ctx:
            study_queue.queue(user, deck, size=size)
        # The database's own share: PostgreSQL's execution time of the same queries.
        db_ms = 0.0
        with connection.cursor() as cur:
            for query in ctx.captured_queries:
                cur.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + query["sql"])
                plan = cur.fetchone()[0]
                plan = plan[0] if isinstance(plan, list) else plan
                db_ms += plan["Execution Time"] + plan["Planning Time"]
        print(
            f"  {label:42s} p50 {statistics.median(timings):6.2f} ms  "
            f"p99 {percentile(timings, 0.99):6.2f} ms  (PostgreSQL {db_ms:5.2f} ms)  "
            f"queries {len(ctx.captured_queries)}  counts {q.counts}"
        )


def start_gunicorn() -> subprocess.Popen:
    env = {**os.environ, **ENV}
    log = open(OUT / "study_gunicorn.log", "w")  # noqa: SIM115 - lives as long as the server
    proc = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "config.wsgi", "--workers", "2",
         "--bind", f"127.0.0.1:{PORT}", "--chdir", str(ROOT), "--log-level", "warning"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    import urllib.request

    first, _ = (OUT / "study_ids.txt").read_text().split()
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{PORT}/bench/bare/{first}/", timeout=2)
            if proc.poll() is not None:  # someone else answers on this port
                raise SystemExit(f"port {PORT} is taken; set BENCH_PORT")
            return proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise SystemExit(f"gunicorn did not start; see {OUT / 'study_gunicorn.log'}")


WRK_LINE = re.compile(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s)\s*$")


def wrk(label: str, script: str, duration: int, connections: int, env: dict) -> dict:
    cmd = [
        "wrk", "-t", str(connections), "-c", str(connections), "-d", f"{duration}s",
        "--latency", "-s", str(ROOT / "bench" / script), f"http://127.0.0.1:{PORT}",
    ]  # fmt: skip
    out = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True).stdout
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    lat = {m[1]: float(m[2]) * scale[m[3]] for m in map(WRK_LINE.match, out.splitlines()) if m}
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out)[1])
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    with open(OUT / f"study_wrk_{re.sub(r'[^a-z0-9]+', '_', label.lower())}.txt", "a") as log:
        log.write(out)
    return {"rps": rps, "p50": lat.get("50"), "p99": lat.get("99"),
            "errors": int(errors[1]) if errors else 0}  # fmt: skip


def load(duration: int, connections: int, rounds: int) -> None:
    """Each scenario runs `rounds` times for duration/rounds seconds, interleaved with the
    others, and the medians are reported: on a shared machine, a neighbour's burst then hits
    every scenario alike instead of one of them."""
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: apt-get install wrk")
    first, last = (OUT / "study_ids.txt").read_text().split()
    for old in OUT.glob("study_wrk_*.txt"):
        old.unlink()
    each = max(1, duration // rounds)
    print(
        f"load: gunicorn 2 sync workers on 127.0.0.1:{PORT}, wrk {connections} connections, "
        f"{rounds} interleaved rounds of {each}s per scenario (medians), {os.cpu_count()} CPUs "
        "shared by server, PostgreSQL and wrk"
    )
    ids = {"STUDY_ID_MIN": first, "STUDY_ID_MAX": last}
    tokens = str(OUT / "study_tokens.txt")
    scenarios = [
        ("bare view: one primary-key read, no auth", "study_get.lua",
         {**ids, "STUDY_PATH": "/bench/bare/{id}/"}),
        ("GET /api/cards/{id}/state/ (token auth, one row)", "study_get.lua",
         {**ids, "STUDY_PATH": "/api/cards/{id}/state/", "STUDY_TOKENS": tokens}),
        ("review loop: POST grade -> next card (htmx page)", "study_review.lua",
         {"STUDY_CREDS": str(OUT / "study_creds.txt"), "STUDY_DECK": BIG,
          "STUDY_THREADS": str(connections)}),
        ("GET /api/study/queue/?deck=<shipped> (learners)", "study_get.lua",
         {"STUDY_PATH": f"/api/study/queue/?deck={SHIPPED}", "STUDY_TOKENS": tokens}),
        ("GET /api/study/queue/?deck=<100k> (heavy user)", "study_get.lua",
         {"STUDY_PATH": f"/api/study/queue/?deck={BIG}",
          "STUDY_TOKENS": str(OUT / "study_heavy_token.txt")}),
    ]  # fmt: skip
    runs: dict[str, list[dict]] = {label: [] for label, _, _ in scenarios}
    server = start_gunicorn()
    try:
        for _ in range(rounds):
            for label, script, env in scenarios:
                runs[label].append(wrk(label, script, each, connections, env))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    medians = {}
    for label, results in runs.items():
        row = {key: statistics.median(r[key] for r in results) for key in ("rps", "p50", "p99")}
        row["errors"] = sum(r["errors"] for r in results)
        medians[label] = row
        print(
            f"  {label:52s} {row['rps']:8.1f} req/s   p50 {row['p50']:7.2f} ms   "
            f"p99 {row['p99']:7.2f} ms   non-2xx {row['errors']}",
            flush=True,
        )
    bare, state, loop = (medians[label] for label, _, _ in scenarios[:3])
    ratios = [
        r3["rps"] / r2["rps"]
        for r2, r3 in zip(runs[scenarios[1][0]], runs[scenarios[2][0]], strict=True)
    ]
    print(
        f"  review loop / one-row API read throughput: {loop['rps'] / state['rps']:.2f} "
        f"(per round: {', '.join(f'{r:.2f}' for r in ratios)}); "
        f"review loop / bare view: {loop['rps'] / bare['rps']:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["seed", "queue", "load", "all"])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--logs", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--duration", type=int, default=30, help="seconds per scenario")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.what in ("seed", "all"):
        seed(args.users, args.cards, args.logs)
    if args.what in ("queue", "all"):
        time_queue(args.repeat)
    if args.what in ("load", "all"):
        load(args.duration, args.connections, args.rounds)


if __name__ == "__main__":
    main()
