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
from bench.common import create_database, django_setup, step  # noqa: E402

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

    from apps.accounts.models import Profile

    call_command("migrate", verbosity=0)
    call_command("seed", verbosity=0)
    t = step("migrate + shipped deck", t)
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO decks_deck (slug, title, description, description_html, objectives,"
            " is_published, created_at, updated_at) VALUES (%s, 'Generated 100k', '', '', '[]',"
            " true, now(), now()) RETURNING id",
            [BIG],
        )
        deck = cur.fetchone()[0]
        cur.execute(
            'INSERT INTO decks_section (deck_id, slug, "order", title, summary, summary_html)'
            " SELECT %s, 's' || g, g, 'Section ' || g, '', '' FROM generate_series(0, 99) g",
            [deck],
        )
        per_section = -(-cards // 100)
        cur.execute(
            'INSERT INTO decks_card (deck_id, section_id, slug, "order", front, back, why, tags,'
            " front_html, back_html, why_html, updated_at, kind, note_slug, ordinal, source,"
            " type_answer)"
            " SELECT %(deck)s, s.id, 'c' || g, g %% %(per)s,"
            "  'Generated question ' || g || ': what does a Ray actor keep between calls?',"
            "  'Its **state**, in its own worker process (card ' || g || ').', '', '[]',"
            "  '<p>Generated question ' || g || ': what does a Ray actor keep between calls?</p>',"
            "  '<p>Its <strong>state</strong>, in its own worker process (card ' || g || ').</p>',"
            "  '', now(), 'basic', 'c' || g, 1, '', false"
            " FROM generate_series(0, %(n)s - 1) g"
            ' JOIN decks_section s ON s.deck_id = %(deck)s AND s."order" = g / %(per)s'
            " ORDER BY g",
            {"deck": deck, "per": per_section, "n": cards},
        )
        cur.execute("SELECT min(id), max(id), count(*) FROM decks_card WHERE deck_id = %s", [deck])
        first, last, count = cur.fetchone()
        assert last - first + 1 == count == cards, "card ids are not contiguous"
        t = step(f"{cards} cards", t)

        password = make_password("pw-bench-123")
        cur.execute(
            "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name,"
            " email, is_staff, is_active, date_joined)"
            " SELECT %s, false, name, '', '', '', false, true, now() FROM ("
            "  SELECT 'bench' || lpad(g::text, 4, '0') AS name FROM generate_series(0, %s - 1) g"
            "  UNION ALL SELECT 'heavy') names ORDER BY name",
            [password, users],
        )
        cur.execute(
            f"INSERT INTO {Profile._meta.db_table} (user_id, time_zone, new_cards_per_day,"
            " reviews_per_day, target_recall, leech_threshold, extra_new_cards, interview_mode)"
            " SELECT id, (ARRAY['UTC', 'Europe/Berlin', 'America/New_York',"
            " 'Asia/Tokyo'])[1 + id %% 4], 20, 200, 90, 8, 0, true FROM auth_user",
            [],
        )
        cur.execute(
            "INSERT INTO authtoken_token (key, user_id, created) SELECT"
            " substr(md5(random()::text) || md5(random()::text), 1, 40), id, now() FROM auth_user"
        )
        cur.execute("SELECT min(id) FROM auth_user WHERE username LIKE 'bench%%'", [])
        u0 = cur.fetchone()[0]
        cur.execute("SELECT id FROM auth_user WHERE username = 'heavy'")
        heavy = cur.fetchone()[0]
        t = step(f"{users + 1} users, profiles, tokens", t)

        state_cols = (
            "user_id, card_id, deck_id, repetitions, ease_factor, interval_days, due_at,"
            " needs_redrill, lapses, last_grade, last_reviewed_at, introduced_at, suspended, leech"
        )
        # heavy: every card of the big deck, 2% due today or overdue.
        cur.execute(
            f"INSERT INTO study_cardstate ({state_cols})"
            " SELECT %(u)s, %(c0)s + g, %(deck)s, 1 + g %% 8, 1.30 + (g %% 150) / 100.0,"
            "  1 + g %% 365,"
            "  CASE WHEN g %% 50 = 0 THEN now() - (g %% 97) * interval '1 hour'"
            "       ELSE now() + (1 + g %% 300) * interval '1 day' END,"
            "  false, g %% 3, 4, now() - interval '2 days', now() - interval '60 days',"
            "  false, false"
            " FROM generate_series(0, %(n)s - 1) g",
            {"u": heavy, "c0": first, "deck": deck, "n": cards},
        )
        # learners: 300 states on the big deck (a third due); review-loop learners 3,000, all due.
        cur.execute(
            f"INSERT INTO study_cardstate ({state_cols})"
            " SELECT u, %(c0)s + ((u * 7919 + k * 331) %% %(n)s), %(deck)s, 1 + k %% 6,"
            "  1.30 + (k %% 150) / 100.0, 1 + k %% 200,"
            "  CASE WHEN u < %(u0)s + %(loop)s OR k %% 3 = 0"
            "       THEN now() - (1 + k %% 30) * interval '1 day'"
            "       ELSE now() + (1 + k %% 200) * interval '1 day' END,"
            "  false, k %% 2, 4, now() - interval '3 days', now() - interval '90 days',"
            "  false, false"
            " FROM generate_series(%(u0)s, %(u0)s + %(users)s - 1) u,"
            "  LATERAL generate_series(0, CASE WHEN u < %(u0)s + %(loop)s"
            "   THEN 2999 ELSE 299 END) k",
            {"c0": first, "n": cards, "deck": deck, "u0": u0, "users": users, "loop": LOOP_USERS},
        )
        # heavy took the big deck's cards in order, as the queue offers them: its new-card
        # cursor is past the last one. The learners' 300 cards are scattered: no cursor.
        cur.execute(
            "INSERT INTO study_newcardcursor (user_id, deck_id, after_card_id) VALUES (%s, %s, %s)",
            [heavy, deck, last],
        )
        t = step("card states", t)

        iso = "'YYYY-MM-DD\"T\"HH24:MI:SS+00:00'"
        state = (
            "json_build_object('repetitions', {n}, 'ease_factor', '2.50', 'interval_days', {i},"
            " 'due_at', to_char({at} + ({i}) * interval '1 day', " + iso + "),"
            " 'needs_redrill', false, 'redrill_anchor', null, 'lapses', 0, 'last_grade', {g},"
            " 'last_reviewed_at', to_char({at}, " + iso + "))"
        )
        log_cols = (
            "user_id, card_id, grade, kind, reviewed_at, duration_ms, state_before, state_after"
        )
        heavy_logs = min(cards, logs)
        cur.execute(
            f"INSERT INTO study_reviewlog ({log_cols})"
            " SELECT %(u)s, %(c0)s + g, 1 + g %% 5, 'review', at, 4000 + g %% 9000,"
            f" {state.format(n='g %% 8', i='g %% 365', at='at', g='1 + g %% 5')},"
            f" {state.format(n='1 + g %% 8', i='1 + g %% 365', at='at', g='1 + g %% 5')}"
            " FROM (SELECT g, now() - (1 + g %% 365) * interval '1 day' - (g %% 23) * interval"
            "  '1 hour' AS at FROM generate_series(0, %(n)s - 1) g) x",
            {"u": heavy, "c0": first, "n": heavy_logs},
        )
        per_user = max(0, (logs - heavy_logs) // users)
        cur.execute(
            f"INSERT INTO study_reviewlog ({log_cols})"
            " SELECT u, %(c0)s + ((u * 7919 + (k %% 300) * 331) %% %(n)s), 1 + (u + k) %% 5,"
            "  'review', at, 3000 + k %% 7000,"
            f" {state.format(n='k %% 6', i='k %% 200', at='at', g='1 + (u + k) %% 5')},"
            f" {state.format(n='1 + k %% 6', i='1 + k %% 200', at='at', g='1 + (u + k) %% 5')}"
            " FROM (SELECT u, k, now() - (1 + (k * 37) %% 365) * interval '1 day'"
            "  - (k %% 19) * interval '1 hour' AS at"
            "  FROM generate_series(%(u0)s, %(u0)s + %(users)s - 1) u,"
            "  generate_series(0, %(per)s - 1) k) x",
            {"c0": first, "n": cards, "u0": u0, "users": users, "per": per_user},
        )
        cur.execute("SELECT count(*) FROM study_reviewlog")
        total_logs = cur.fetchone()[0]
        t = step(f"{total_logs} review logs (all before today, so today's limits are fresh)", t)
        cur.execute("ANALYZE")
        t = step("ANALYZE", t)

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
    from apps.study import selectors

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
        selectors.queue(user, deck, size=size)
        timings = []
        for _ in range(repeat):
            started = time.perf_counter()
            q = selectors.queue(user, deck, size=size)
            timings.append((time.perf_counter() - started) * 1000)
        with CaptureQueriesContext(connection) as ctx:
            selectors.queue(user, deck, size=size)
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
