"""Load benchmark for issue 8, part 7: a realistic mix of learners on PostgreSQL + gunicorn + Redis.
Run by hand, not in CI.

    .venv/bin/python bench/load_mix.py                      # seed, then the load phases
    .venv/bin/python bench/load_mix.py seed [--learners 200 --team-size 25]
    .venv/bin/python bench/load_mix.py run [--duration 30 --connections 8,16,32 --rounds 1]

PostgreSQL: the role of .ci/run (raydeck/raydeck with CREATEDB) on 127.0.0.1:5432; the script
drops and rebuilds its own database (LOAD_PG_URL, default .../raydeck_load). Redis: the shared
cache on its own database number (LOAD_CACHE_URL, default redis://127.0.0.1:6379/9), flushed
before each phase. Load tool: wrk (Debian package `wrk`). Server: gunicorn with the production
config (deploy/gunicorn.conf.py), 2 workers, on loopback, DEBUG off, the app's URLs plus the bare
view of bench/study_urls.py. Throttle rates are raised through the environment so the bench
measures the app, not the throttle (the rates in effect are printed).

The mix (bench/load_mix.lua): every wrk connection is a different learner with an API token.
By weight: grade a card the queue gave it (POST /api/reviews/, a fresh client_id each time) 35,
fetch the queue (GET /api/study/queue/?deck=) 30, a timed knowledge check (GET the quiz, which
starts the attempt, then POST valid answers) 5 (x2 requests), the team dashboard page as the
team's lead 5, demo polling 20: the API (GET /api/demo-runs/{id}/?since=N on a finished run)
and the run page's htmx poll (204 on a running run with nothing new, 286 with the final
fragment on a finished one). Before each phase the schedule, today's reviews and attempts are
put back as seeded, so every phase starts from the same state.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import create_database, django_setup, step  # noqa: E402

OUT = ROOT / "var" / "bench" / "load"
RESULTS = ROOT / "bench" / "results"
PG_URL = os.environ.get("LOAD_PG_URL", "postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_load")
CACHE_URL = os.environ.get("LOAD_CACHE_URL", "redis://127.0.0.1:6379/9")
PORT = int(os.environ.get("LOAD_PORT", "18766"))
DECK = "distributed-rl-on-ray"
DEMO = "sampling-throughput"
WEIGHTS = "35,30,5,5,10,8,2"
HIGH = "1000000/min"  # far above what 2 cores can serve: the throttles never fire

ENV = {
    "DATABASE_URL": PG_URL,
    "CACHE_URL": CACHE_URL,
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
    "LOG_LEVEL": "WARNING",
    # Throttles (DRF, on the shared cache): raised so the app is measured, not the throttle.
    "THROTTLE_USER": HIGH,
    "THROTTLE_ANON": HIGH,
    "THROTTLE_WRITE": HIGH,
    "GUNICORN_WORKERS": "2",
    "GUNICORN_BIND": f"127.0.0.1:{PORT}",
}


def seed(learners: int, team_size: int) -> None:
    print(f"seed: {learners} learners, teams of {team_size}, into {PG_URL}")
    t = time.perf_counter()
    create_database(PG_URL)
    django_setup(ENV)
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from apps.accounts.models import Profile
    from apps.decks.models import Deck
    from apps.demos.models import DemoPoint, DemoRun
    from apps.demos.ray_demos import get_demo
    from apps.quizzes.models import Quiz
    from apps.teams.models import Membership, Team

    call_command("migrate", verbosity=0)
    call_command("seed", verbosity=0)
    t = step("migrate + shipped content", t)

    User = get_user_model()
    password = make_password("pw-load-123")
    people = [User(username=f"learner{i:04}", password=password) for i in range(learners)]
    teams_n = -(-learners // team_size)
    people += [User(username=f"lead{i:02}", password=password) for i in range(teams_n)]
    User.objects.bulk_create(people)
    users = list(User.objects.filter(username__startswith="learner").order_by("username"))
    leads = list(User.objects.filter(username__startswith="lead").order_by("username"))
    zones = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Tokyo"]
    Profile.objects.bulk_create(
        [Profile(user=u, time_zone=zones[i % len(zones)]) for i, u in enumerate(users + leads)]
    )
    Token.objects.bulk_create([Token(user=u, key=Token.generate_key()) for u in users + leads])
    deck = Deck.objects.get(slug=DECK)
    teams = []
    for k, lead in enumerate(leads):
        team = Team.objects.create(
            name=f"Cohort {k + 1}", slug=f"cohort-{k + 1}", deck=deck, created_by=lead
        )
        members = users[k * team_size : (k + 1) * team_size]
        Membership.objects.bulk_create(
            [Membership(team=team, user=lead, role=Membership.Role.OWNER)]
            + [Membership(team=team, user=u, hidden=i % 10 == 9) for i, u in enumerate(members)]
        )
        teams.append(team)
    t = step(f"{len(users)} learners, {len(leads)} leads, teams, tokens", t)

    cards = list(deck.cards.order_by("id").values_list("id", flat=True))
    u0, u1 = users[0].pk, users[-1].pk
    with connection.cursor() as cur:
        # Each learner has met ~3/4 of the deck (the rest are new cards), about half of what
        # they met is due today or overdue, some of it failed yesterday (re-drills).
        cur.execute(
            "INSERT INTO study_cardstate (user_id, card_id, deck_id, repetitions, ease_factor,"
            " interval_days, due_at, needs_redrill, lapses, last_grade, last_reviewed_at,"
            " introduced_at, suspended)"
            " SELECT u, c, %(deck)s, 1 + (u + c) %% 6, 1.30 + ((u * 7 + c) %% 150) / 100.0,"
            "  1 + (u + c) %% 40,"
            "  CASE WHEN (u + c) %% 2 = 0 THEN now() - (1 + (u + c) %% 9) * interval '1 day'"
            "       ELSE now() + (1 + (u + c) %% 30) * interval '1 day' END,"
            "  false, (u + c) %% 3, 1 + (u + c) %% 5,"
            "  now() - (2 + (u + c) %% 9) * interval '1 day',"
            "  now() - interval '40 days', false"
            " FROM generate_series(%(u0)s, %(u1)s) u, unnest(%(cards)s::bigint[]) c"
            " WHERE (u * 31 + c * 17) %% 4 <> 0",
            {"deck": deck.pk, "u0": u0, "u1": u1, "cards": cards},
        )
        # Thirty days of history before today (in every time zone): ~15 reviews a day on the
        # days a learner studied, so the dashboard's streaks, 7/30-day counts and retention
        # have something to add up; today's limits start fresh.
        state = (
            "json_build_object('repetitions', 2, 'ease_factor', '2.50', 'interval_days', 6,"
            " 'due_at', to_char(at + interval '6 days', 'YYYY-MM-DD\"T\"HH24:MI:SS+00:00'),"
            " 'needs_redrill', false, 'redrill_anchor', null, 'lapses', 0, 'last_grade', g,"
            " 'last_reviewed_at', to_char(at, 'YYYY-MM-DD\"T\"HH24:MI:SS+00:00'))"
        )
        cur.execute(
            "INSERT INTO study_reviewlog (user_id, card_id, grade, kind, reviewed_at, duration_ms,"
            " state_before, state_after)"
            f" SELECT u, c, g, 'review', at, 3000 + k * 97 %% 9000, {state}, {state}"
            " FROM (SELECT u, k, (%(cards)s::bigint[])[1 + (u * 13 + k * 7) %% %(n)s] AS c,"
            "  CASE WHEN (u + k) %% 7 = 0 THEN 2 ELSE 3 + (u + k) %% 3 END AS g,"
            "  now() - (2 + d) * interval '1 day' - (k %% 11) * interval '1 minute' AS at"
            "  FROM generate_series(%(u0)s, %(u1)s) u, generate_series(0, 29) d,"
            "  generate_series(0, 14) k WHERE (u + d * 3) %% 5 <> 0) x",
            {"u0": u0, "u1": u1, "cards": cards, "n": len(cards)},
        )
        cur.execute("SELECT count(*) FROM study_cardstate")
        n_states = cur.fetchone()[0]
        cur.execute("SELECT count(*) FROM study_reviewlog")
        n_logs = cur.fetchone()[0]
    t = step(f"{n_states} card states, {n_logs} review logs (all before today)", t)

    # Quizzes: every knowledge check is timed (GET starts the attempt, then POST answers);
    # one valid payload each, scored as a learner would: right on most questions.
    checks = list(
        Quiz.objects.filter(deck=deck, kind=Quiz.Kind.KNOWLEDGE_CHECK).order_by("order", "id")
    )
    lines = []
    for quiz in checks:
        answers = {}
        for i, q in enumerate(quiz.scoring_questions()):
            if i % 4 == 3 and q.choice_ids:  # now and then a wrong pick
                wrong = [c for c in q.choice_ids if c != q.key and c not in (q.key or [])]
                answers[q.id] = wrong[0] if q.kind == "single" else wrong[:1]
            else:
                answers[q.id] = q.key
        lines.append(f"{quiz.slug} {json.dumps({'answers': answers}, separators=(',', ':'))}")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "quizzes.txt").write_text("\n".join(lines) + "\n")

    # Demo runs (no Ray: rows as the worker leaves them): each learner has a finished run
    # with 40 points and one running with 10 (its heartbeat refreshed before each phase).
    spec = get_demo(DEMO)
    keys = [s.key for s in spec.chart.series]
    now = timezone.now()
    runs = []
    summary = {"best_actors": 2, "best_speedup": 1.8, "effect": "2 actors sampled 1.8x as fast"}
    for u in users:
        runs.append(DemoRun(demo=DEMO, user=u, params=spec.defaults(), status="succeeded",
                            progress=1.0, last_seq=40, started_at=now, finished_at=now,
                            heartbeat_at=now, worker="bench:1", cluster_nodes=1, cluster_cpus=2,
                            summary=summary))  # fmt: skip
        runs.append(DemoRun(demo=DEMO, user=u, params=spec.defaults(), status="running",
                            progress=0.25, last_seq=10, started_at=now, heartbeat_at=now,
                            worker="bench:1", cluster_nodes=1, cluster_cpus=2))  # fmt: skip
    DemoRun.objects.bulk_create(runs)
    runs = list(DemoRun.objects.order_by("user_id", "id"))
    DemoPoint.objects.bulk_create(
        [DemoPoint(run=r, seq=s, data={"series": keys[s % len(keys)], "x": 1 + s // 2,
                                       "y": 1000.0 * (1 + s // 2)})
         for r in runs for s in range(1, r.last_seq + 1)],
        batch_size=5000,
    )  # fmt: skip
    by_user = defaultdict(dict)
    for r in runs:
        by_user[r.user_id][r.status] = r.pk
    t = step(f"{len(runs)} demo runs with points", t)

    # Credentials: one line per learner for the Lua script, sessions for the page polls.
    store = import_module(settings.SESSION_ENGINE).SessionStore
    backends = settings.AUTHENTICATION_BACKENDS
    backend = next((b for b in backends if b.endswith("ModelBackend")), backends[-1])

    def session_for(user) -> str:
        session = store()
        session["_auth_user_id"] = str(user.pk)
        session["_auth_user_backend"] = backend
        session["_auth_user_hash"] = user.get_session_auth_hash()
        session.create()
        return session.session_key

    tokens = dict(Token.objects.values_list("user_id", "key"))
    team_of = {}
    for k in range(len(teams)):
        for u in users[k * team_size : (k + 1) * team_size]:
            team_of[u.pk] = k
    lead_lines = [f"{tokens[lead.pk]} {session_for(lead)} {team.slug}"
                  for lead, team in zip(leads, teams, strict=True)]  # fmt: skip
    learner_lines = [
        f"{tokens[u.pk]} {session_for(u)} {by_user[u.pk]['succeeded']} "
        f"{by_user[u.pk]['running']} {team_of[u.pk] + 1}"
        for u in users
    ]
    (OUT / "learners.txt").write_text("\n".join(learner_lines) + "\n")
    (OUT / "leads.txt").write_text("\n".join(lead_lines) + "\n")
    (OUT / "bare_ids.txt").write_text(f"{cards[0]} {cards[-1]}\n")

    # The seeded state every phase starts from.
    with connection.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS bench_seed_cardstate")
        cur.execute("CREATE TABLE bench_seed_cardstate AS TABLE study_cardstate")
        cur.execute(
            "CREATE TABLE bench_seed_marks AS SELECT"
            " (SELECT coalesce(max(id), 0) FROM study_reviewlog) AS log_id,"
            " (SELECT coalesce(max(id), 0) FROM quizzes_attempt) AS attempt_id"
        )
        cur.execute("ANALYZE")
    step("sessions, tokens, snapshot, ANALYZE", t)


def reset() -> None:
    """Put the schedule, today's reviews, attempts and cursors back as seeded; flush the cache."""
    import psycopg
    import redis

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        with conn.transaction():
            conn.execute(
                "DELETE FROM study_reviewlog WHERE id > (SELECT log_id FROM bench_seed_marks)"
            )
            conn.execute(
                "DELETE FROM quizzes_attempt WHERE id > (SELECT attempt_id FROM bench_seed_marks)"
            )
            conn.execute("DELETE FROM study_newcardcursor")
            conn.execute("DELETE FROM study_cardstate")
            conn.execute("INSERT INTO study_cardstate SELECT * FROM bench_seed_cardstate")
            conn.execute("UPDATE demos_demorun SET heartbeat_at = now() WHERE status = 'running'")
        for table in ("study_cardstate", "study_reviewlog", "quizzes_attempt"):
            conn.execute(f"VACUUM ANALYZE {table}")
    redis.Redis.from_url(CACHE_URL).flushdb()


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


class Log:
    """Print and keep every line for bench/results/load-<date>.txt."""

    def __init__(self):
        self.lines: list[str] = []

    def __call__(self, line: str = "") -> None:
        print(line, flush=True)
        self.lines.append(line)


def effective_settings(log: Log) -> None:
    """What the server will run with: cache, throttle rates, session engine, gunicorn config."""
    code = (
        "import json, django; django.setup(); from django.conf import settings as s;"
        "rf = s.REST_FRAMEWORK;"
        "print(json.dumps({'cache': s.CACHES['default']['BACKEND'] + ' ' +"
        " str(s.CACHES['default'].get('LOCATION', '')), 'session': s.SESSION_ENGINE,"
        " 'throttles': rf.get('DEFAULT_THROTTLE_CLASSES', []),"
        " 'rates': rf.get('DEFAULT_THROTTLE_RATES', {}), 'debug': s.DEBUG,"
        " 'middleware': len(s.MIDDLEWARE)}))"
    )
    env = {**os.environ, **ENV}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(out.stderr)
    info = json.loads(out.stdout.strip().splitlines()[-1])
    log(f"settings: DEBUG={info['debug']}, cache {info['cache']}, sessions {info['session']}")
    log(f"throttles: {info['throttles'] or 'none configured'}; rates {info['rates'] or '-'}")
    low = {k: v for k, v in info["rates"].items() if v and rate_per_min(v) < 100_000}
    if low:
        log(f"WARNING: throttle rates low enough to fire during the bench: {low}")
    if "redis" not in info["cache"].lower():
        log("WARNING: the cache is not Redis (settings do not read CACHE_URL yet?)")


def rate_per_min(rate: str) -> float:
    num, period = rate.split("/")
    return int(num) * {"s": 60, "m": 1, "h": 1 / 60, "d": 1 / 1440}[period[0]]


def start_gunicorn() -> subprocess.Popen:
    env = {**os.environ, **ENV}
    log = open(OUT / "gunicorn.log", "w")  # noqa: SIM115 - lives as long as the server
    proc = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "config.wsgi",
         "-c", str(ROOT / "deploy" / "gunicorn.conf.py"), "--chdir", str(ROOT),
         "--access-logfile", str(OUT / "access.log"),
         "--access-logformat", "%(m)s %(U)s %(s)s %(D)s", "--log-level", "warning"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    import urllib.request

    first, _ = (OUT / "bare_ids.txt").read_text().split()
    for _ in range(150):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{PORT}/bench/bare/{first}/", timeout=2)
            if proc.poll() is not None:
                raise SystemExit(f"port {PORT} is taken; set LOAD_PORT")
            return proc
        except OSError:
            time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGTERM)
    raise SystemExit(f"gunicorn did not start; see {OUT / 'gunicorn.log'}")


WRK_LINE = re.compile(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s)\s*$")
SCALE = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def wrk(script: str, duration: int, connections: int, env: dict, tag: str) -> dict:
    cmd = [
        "wrk", "-t", str(connections), "-c", str(connections), "-d", f"{duration}s",
        "--timeout", "10s", "--latency", "-s", str(ROOT / "bench" / script),
        f"http://127.0.0.1:{PORT}",
    ]  # fmt: skip
    out = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True)
    text = out.stdout + out.stderr
    (OUT / f"wrk_{tag}.txt").write_text(text)
    lat = {m[1]: float(m[2]) * SCALE[m[3]] for m in map(WRK_LINE.match, text.splitlines()) if m}
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    total = re.search(r"(\d+) requests in", text)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    endpoints = {}
    for m in re.finditer(r"^ENDPOINT (\S+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)$", text, re.M):
        endpoints[m[1]] = [int(x) for x in m.groups()[1:]]
    if rps is None:
        raise SystemExit(f"wrk failed:\n{text}")
    refused = re.findall(r"^REFUSED (.*)$", text, re.M)
    return {
        "rps": float(rps[1]),
        "requests": int(total[1]),
        "p50": lat.get("50"),
        "p99": lat.get("99"),
        "non2xx": int(non2xx[1]) if non2xx else 0,
        "socket": sum(int(x) for x in sock.groups()) if sock else 0,
        "endpoints": endpoints,
        "refused": refused,
    }


# Endpoint names for the access log (server-side time per endpoint, from gunicorn's %(D)s).
ROUTES = [
    ("review POST", re.compile(r"^POST /api/reviews/$")),
    ("queue GET", re.compile(r"^GET /api/study/queue/$")),
    ("quiz GET (start)", re.compile(r"^GET /api/quizzes/[\w-]+/$")),
    ("quiz POST (submit)", re.compile(r"^POST /api/quizzes/[\w-]+/attempts/$")),
    ("dashboard GET", re.compile(r"^GET /teams/[\w-]+/$")),
    ("demo run API poll", re.compile(r"^GET /api/demo-runs/\d+/$")),
    ("run page poll", re.compile(r"^GET /demos/runs/\d+/$")),
    ("bare view", re.compile(r"^GET /bench/bare/\d+/$")),
]


def access_log_split(start: int) -> tuple[dict[str, list[float]], int]:
    """Server-side milliseconds per endpoint for the access log's lines after byte `start`."""
    times: dict[str, list[float]] = defaultdict(list)
    path = OUT / "access.log"
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read()
        end = f.tell()
    for line in data.decode(errors="replace").splitlines():
        parts = line.split()
        if len(parts) != 4:
            continue
        key = f"{parts[0]} {parts[1]}"
        name = next((n for n, rx in ROUTES if rx.match(key)), "other")
        if name == "run page poll":
            name += f" {parts[2]}"
        times[name].append(int(parts[3]) / 1000)
    return times, end


def db_outages(start: int) -> tuple[int, int]:
    """Requests the server answered 503 because PostgreSQL was away (someone restarted it: the
    machine is shared with the failure tests), from gunicorn's log after byte `start`."""
    with open(OUT / "gunicorn.log", "rb") as f:
        f.seek(start)
        data = f.read()
        end = f.tell()
    return data.count(b"database unavailable"), end


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(duration: int, connections: list[int], rounds: int, weights: str, log: Log) -> None:
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: apt-get install wrk")
    lo, hi = (OUT / "bare_ids.txt").read_text().split()
    # The seeded database may predate the code's latest migration (a new column would make
    # every request that writes it a 500): bring it up to date first; a no-op when it is.
    migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"]
    subprocess.run(migrate, env={**os.environ, **ENV}, cwd=ROOT, check=True)
    effective_settings(log)
    log(
        f"load: gunicorn (deploy/gunicorn.conf.py, {ENV['GUNICORN_WORKERS']} workers) on"
        f" 127.0.0.1:{PORT}, wrk -t N -c N,"
        f" {duration}s per phase, {rounds} round(s), {os.cpu_count()} CPUs shared by server,"
        " PostgreSQL, Redis, wrk and the team's test runs"
    )
    log(f"mix weights (review,queue,quiz,dashboard,poll_api,poll_204,poll_286): {weights}")
    common = {
        "LOAD_LEARNERS": str(OUT / "learners.txt"),
        "LOAD_LEADS": str(OUT / "leads.txt"),
        "LOAD_QUIZZES": str(OUT / "quizzes.txt"),
        "LOAD_DECK": DECK,
        "LOAD_WEIGHTS": weights,
    }
    bare_env = {"STUDY_PATH": "/bench/bare/{id}/", "STUDY_ID_MIN": lo, "STUDY_ID_MAX": hi}
    (OUT / "access.log").unlink(missing_ok=True)
    server = start_gunicorn()
    results = []
    try:
        offset = (OUT / "access.log").stat().st_size
        log_at = (OUT / "gunicorn.log").stat().st_size
        for r in range(rounds):
            for c in connections:
                before = uptime()
                bare = wrk("study_get.lua", duration, c, bare_env, f"bare_c{c}_r{r}")
                _, offset = access_log_split(offset)
                reset()
                mix = wrk("load_mix.lua", duration, c, {**common, "LOAD_THREADS": str(c)},
                          f"mix_c{c}_r{r}")  # fmt: skip
                split, offset = access_log_split(offset)
                outages, log_at = db_outages(log_at)
                after = uptime()
                if outages:
                    after += f"\n  NOTE: {outages} requests met PostgreSQL restarting (503)"
                results.append((r, c, bare, mix, split, before, after))
                report(log, r, c, bare, mix, split, before, after)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    if rounds > 1:
        log("")
        log("medians over the rounds:")
        for c in connections:
            rows = [x for x in results if x[1] == c]
            for label, idx in (("bare view", 2), ("mix", 3)):
                med = {k: statistics.median(x[idx][k] for x in rows) for k in ("rps", "p50", "p99")}
                errors = sum(x[idx]["non2xx"] + x[idx]["socket"] for x in rows)
                log(
                    f"  c={c:<3} {label:10s} {med['rps']:8.1f} req/s  p50 {med['p50']:7.2f} ms"
                    f"  p99 {med['p99']:7.2f} ms  errors {errors}"
                )


def report(log, r, c, bare, mix, split, before, after) -> None:
    log("")
    log(f"round {r + 1}, {c} connections   before: {before}")
    for label, res in (("bare view (one pk read, no auth)", bare), ("realistic mix", mix)):
        log(
            f"  {label:34s} {res['rps']:8.1f} req/s  p50 {res['p50']:7.2f} ms  "
            f"p99 {res['p99']:7.2f} ms  requests {res['requests']}  "
            f"errors {res['non2xx'] + res['socket']} (non-2xx/3xx {res['non2xx']}, "
            f"socket/timeout {res['socket']})"
        )
    log(f"  {'per endpoint (wrk side)':24s} {'count':>7} {'share':>6} {'2xx':>7} {'3xx':>5} "
        f"{'4xx':>5} {'5xx':>5} | server ms p50   p99   max")  # fmt: skip
    total = sum(v[0] for v in mix["endpoints"].values()) or 1
    names = {
        "review": "review POST", "queue": "queue GET", "quiz_get": "quiz GET (start)",
        "quiz_post": "quiz POST (submit)", "dashboard": "dashboard GET",
        "poll_api": "demo run API poll", "poll_204": "run page poll 204",
        "poll_286": "run page poll 286",
    }  # fmt: skip
    for key, counts in sorted(mix["endpoints"].items(), key=lambda kv: -kv[1][0]):
        n, c2, c3, c4, c5, _ = counts
        server = split.get(names.get(key, ""), [])
        tail = (f"{pct(server, 0.5):9.1f} {pct(server, 0.99):6.1f} {max(server):6.1f}"
                if server else "")  # fmt: skip
        log(f"  {key:24s} {n:7d} {100 * n / total:5.1f}% {c2:7d} {c3:5d} {c4:5d} {c5:5d} |{tail}")
    for line in mix["refused"][:5]:
        log(f"  refused: {line[:400]}")
    log(f"  after: {after}")


def profile(repeat: int, top: int, log: Log) -> None:
    """Each endpoint of the mix in-process (Django's test client, the server's settings): median
    wall and CPU time, queries per request, and where the time goes (cProfile, cumulative)."""
    import cProfile
    import io
    import pstats

    os.environ["ALLOWED_HOSTS"] = ENV["ALLOWED_HOSTS"] + ",testserver"
    ENV["ALLOWED_HOSTS"] = os.environ["ALLOWED_HOSTS"]
    reset()
    django_setup(ENV)
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    learners = [line.split() for line in (OUT / "learners.txt").read_text().splitlines()]
    leads = [line.split() for line in (OUT / "leads.txt").read_text().splitlines()]
    quizzes = [line.split(" ", 1) for line in (OUT / "quizzes.txt").read_text().splitlines()]
    client = Client()
    counter = iter(range(10**9))

    def api(method, path, token, body=None):
        kwargs = {"HTTP_AUTHORIZATION": f"Token {token}"}
        if body is not None:
            kwargs.update(data=body, content_type="application/json")
        return getattr(client, method)(path, **kwargs)

    def page(path, session):
        client.cookies["sessionid"] = session
        try:
            return client.get(path, HTTP_HX_REQUEST="true")
        finally:
            del client.cookies["sessionid"]

    queues: dict[str, list[int]] = {}

    def learner():
        return learners[next(counter) % len(learners)]

    def queue():
        token = learner()[0]
        response = api("get", f"/api/study/queue/?deck={DECK}", token)
        queues[token] = [c["id"] for c in response.json()["cards"]]
        return response

    def review():
        me = learner()
        token = me[0]
        if not queues.get(token):  # not timed: the queue this learner would have fetched
            queues[token] = [c["id"] for c in api("get", f"/api/study/queue/?deck={DECK}",
                                                  token).json()["cards"]]  # fmt: skip
        card = queues[token].pop(0)
        body = {"card": card, "grade": 4, "client_id": str(uuid4()), "duration_ms": 3000}
        return ("post", "/api/reviews/", token, json.dumps(body))

    def quiz_post():
        me = learner()
        slug, body = quizzes[next(counter) % len(quizzes)]
        api("get", f"/api/quizzes/{slug}/", me[0])  # starts the timed attempt: not timed
        return ("post", f"/api/quizzes/{slug}/attempts/", me[0], body)

    from uuid import uuid4

    cases = {
        "queue GET": lambda: queue(),
        "review POST": review,
        "quiz GET (start)": lambda: api(
            "get", f"/api/quizzes/{quizzes[next(counter) % len(quizzes)][0]}/", learner()[0]
        ),
        "quiz POST (submit)": quiz_post,
        "dashboard GET": lambda: page(f"/teams/{leads[0][2]}/", leads[0][1]),
        "demo run API poll": lambda: api(
            "get", f"/api/demo-runs/{(me := learner())[2]}/?since=20", me[0]
        ),
        "run page poll (204)": lambda: page(
            f"/demos/runs/{(me := learner())[3]}/?seq=10&status=running", me[1]
        ),
        "run page poll (286)": lambda: page(
            f"/demos/runs/{(me := learner())[2]}/?seq=38&status=running", me[1]
        ),
        "bare view": lambda: client.get("/bench/bare/1/"),
    }
    log(f"in-process (test client, {repeat} timed requests each after 3 warm-ups), {uptime()}")
    log(f"  {'endpoint':22s} {'wall p50':>9} {'cpu p50':>8} {'queries':>8}  status")
    details = []
    for name, make in cases.items():

        def once(make=make):
            prepared = make()
            if isinstance(prepared, tuple):  # a write prepared untimed: time only the POST
                return lambda: api(*prepared)
            return None

        walls, cpus, queries, statuses = [], [], [], set()
        prof = cProfile.Profile()
        for i in range(2 * repeat + 3):
            # even requests are timed, odd ones profiled (the profiler slows what it watches)
            profiled = i >= 3 and i % 2 == 1
            go = once()
            with CaptureQueriesContext(connection) as ctx:
                if profiled:
                    prof.enable()
                w0, c0 = time.perf_counter(), time.process_time()
                response = go() if go else make()
                w1, c1 = time.perf_counter(), time.process_time()
                if profiled:
                    prof.disable()
            if i >= 3 and not profiled:
                walls.append((w1 - w0) * 1000)
                cpus.append((c1 - c0) * 1000)
                queries.append(len(ctx.captured_queries))
                statuses.add(response.status_code)
        log(
            f"  {name:22s} {statistics.median(walls):7.1f}ms {statistics.median(cpus):6.1f}ms"
            f" {statistics.median(queries):8.0f}  {sorted(statuses)}"
        )
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
        details.append((name, out.getvalue()))
    (OUT / "profile.txt").write_text("\n".join(f"==== {name}\n{text}" for name, text in details))
    log(f"  cProfile, cumulative, top {top} per endpoint: {OUT / 'profile.txt'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", nargs="?", choices=["seed", "run", "profile", "all"], default="all")
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument("--team-size", type=int, default=25)
    parser.add_argument("--duration", type=int, default=30, help="seconds per phase")
    parser.add_argument("--connections", default="8,16,32")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--weights",
        default=WEIGHTS,
        help="review,queue,quiz,dashboard,poll_api,poll_204,poll_286 (a quiz is 2 requests)",
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="gunicorn workers (production default: 2*cores+1)"
    )
    parser.add_argument("--repeat", type=int, default=30, help="profile: requests each")
    parser.add_argument("--top", type=int, default=40, help="profile: functions shown")
    parser.add_argument("--no-save", action="store_true", help="do not write bench/results/")
    args = parser.parse_args()
    log = Log()
    if args.what in ("seed", "all"):
        seed(args.learners, args.team_size)
    if args.what == "profile":
        stamp = datetime.datetime.now(datetime.UTC)
        log(f"# bench/load_mix.py {' '.join(sys.argv[1:])}  ({stamp:%Y-%m-%d %H:%M} UTC)")
        profile(args.repeat, args.top, log)
        if not args.no_save:
            RESULTS.mkdir(exist_ok=True)
            with open(RESULTS / f"load-{stamp:%Y-%m-%d}.txt", "a") as f:
                f.write("\n".join(log.lines) + "\n\n")
    if args.what in ("run", "all"):
        stamp = datetime.datetime.now(datetime.UTC)
        log(f"# bench/load_mix.py {' '.join(sys.argv[1:])}  ({stamp:%Y-%m-%d %H:%M} UTC)")
        conns = [int(c) for c in args.connections.split(",")]
        ENV["GUNICORN_WORKERS"] = str(args.workers)
        run(args.duration, conns, args.rounds, args.weights, log)
        if not args.no_save:
            RESULTS.mkdir(exist_ok=True)
            with open(RESULTS / f"load-{stamp:%Y-%m-%d}.txt", "a") as f:
                f.write("\n".join(log.lines) + "\n\n")


if __name__ == "__main__":
    main()
