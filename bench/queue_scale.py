"""The next card and grade + next card for one learner with 100,000 card states, with 70 and
with 10,000 learners in the table (issue 30), two checkouts side by side in one run. By hand,
not in CI.

    git archive merge-int | tar -x -C /tmp/qs-base          # the code before
    .venv/bin/python bench/queue_scale.py seed --url postgres://.../raydeck_qs_70 --users 70
    .venv/bin/python bench/queue_scale.py seed --url postgres://.../raydeck_qs_10k --users 10000
    .venv/bin/python bench/queue_scale.py time --base /tmp/qs-base \\
        --url postgres://.../raydeck_qs_70 --url postgres://.../raydeck_qs_10k
    .venv/bin/python bench/queue_scale.py http --base /tmp/qs-base --url postgres://.../raydeck_qs_10k

Seed (generate_series): a generated deck of 100,000 cards; `heavy`, a state on every card, 2%
due (2,000, most overdue first); `users - 1` other learners with --per states each (a third
due). The secondary indexes are dropped for the bulk insert and built again after, then ANALYZE.

Time: for each database, one process per checkout in turn (base, this, base, ...), each timing
in process (no HTTP) with that checkout's apps:
- next card (`queue(size=1)`, what the review page asks) at a review limit of 200 and 5,000;
- the whole queue (`queue()`) at both limits;
- GET /api/study/queue/?deck=...&limit=1 through Django's test client (the whole stack, no
  HTTP): the base builds the whole queue and cuts it, this tree reads each list up to 1;
- next card and whole queue of `learner00001`, one of the others (1,000 states, new cards
  left, no new-card cursor yet);
- grade + next card: `review_record` of the next due card, then `queue(size=1, avoid=card)`;
  the graded states are put back and the run's logs deleted at the end of each process.
Each figure is the median (and p90) wall time of -n calls after two warm-ups, and the queries.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
BIG = "bench-100k"
API = f"/api/study/queue/?deck={BIG}&limit=1"


def env_for(url: str) -> dict[str, str]:
    return {
        "DATABASE_URL": url,
        "DEBUG": "false",
        "SECRET_KEY": "bench-only-" + "x" * 60,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "SECURE_HSTS_SECONDS": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DB_CONN_MAX_AGE": "600",
        "CELERY_BROKER_URL": "memory://",
    }


def seed(url: str, users: int, cards: int, per: int) -> None:
    sys.path.insert(0, str(HERE))
    from bench.common import create_database, django_setup, seed_study, step

    t = time.perf_counter()
    create_database(url)
    django_setup(env_for(url))
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    t = step("migrate", t)
    with connection.cursor() as cur:
        seed_study(
            cur,
            deck_slug=BIG,
            cards=cards,
            learners=users - 1,
            learner_prefix="learner",
            learner_digits=5,
            learner_from=1,
            # 2% due, the most overdue 25 hours ago
            heavy_due="CASE WHEN g % 50 = 0 THEN now() - (1 + g % 97) * interval '1 hour'"
            " - interval '1 day' ELSE now() + (1 + g % 300) * interval '1 day' END",
            learner_states=per,
            drop_indexes=True,
        )
        cur.execute("SELECT count(*), pg_size_pretty(pg_total_relation_size('study_cardstate'))"
                    " FROM study_cardstate")  # fmt: skip
        rows, size = cur.fetchone()
        print(f"  {rows} card states, {size}", flush=True)


def worker(tree: Path, url: str, n: int) -> None:
    """Time every case with `tree`'s apps and print the figures as JSON."""
    sys.path.insert(0, str(tree))
    os.chdir(tree)
    from bench.common import django_setup

    django_setup(env_for(url))
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    import apps
    from apps.accounts.models import Profile, profile_for
    from apps.decks.models import Deck
    from apps.study import queue
    from apps.study.models import CardState, ReviewLog
    from apps.study.services import review_record

    assert str(Path(apps.__file__).resolve()).startswith(str(tree.resolve())), apps.__file__
    heavy = get_user_model().objects.get(username="heavy")
    deck = Deck.objects.get(slug=BIG)
    began = timezone.now()
    out = {}

    def timed(name, call, repeat=n):
        for _ in range(2):
            call()
        with counted() as captured:
            call()
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            call()
            times.append(time.perf_counter() - t)
        times.sort()
        out[name] = {
            "p50": statistics.median(times) * 1000,
            "p90": times[int(len(times) * 0.9)] * 1000,
            "queries": captured[0],
        }

    @contextlib.contextmanager
    def counted():
        """The statements run inside, as a one-item list (an execute wrapper: a request's
        reset_queries does not lose them, as it does CaptureQueriesContext's)."""
        found = [0]

        def count(execute, sql, params, many, context):
            found[0] += 1
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            yield found

    graded = []
    # A learner like most: 1,000 states scattered over the deck, no new-card cursor yet.
    learner = get_user_model().objects.get(username="learner00001")
    timed("next card, a 1,000-state learner", lambda: queue.queue(learner, deck, size=1))
    timed("whole queue, a 1,000-state learner", lambda: queue.queue(learner, deck))
    for limit in (200, 5000):
        Profile.objects.filter(user=heavy).update(reviews_per_day=limit)
        heavy = get_user_model().objects.get(pk=heavy.pk)  # the profile afresh
        profile_for(heavy)
        timed(f"next card, limit {limit}", lambda h=heavy: queue.queue(h, deck, size=1))
        timed(f"whole queue, limit {limit}", lambda h=heavy: queue.queue(h, deck), max(5, n // 4))
        client = Client(SERVER_NAME="127.0.0.1")
        client.force_login(heavy)
        timed(f"API ?limit=1, limit {limit}", lambda c=client: c.get(API))

        # timed separately: the grade and the next card, not the lookup of the card to grade
        times, queries = [], 0
        for k in range(n + 2):
            item = queue.queue(heavy, deck, size=1).next
            graded.append(CardState.objects.get(pk=item.state.pk))
            with counted() as captured:
                t = time.perf_counter()
                review_record(user=heavy, card=item.card, grade=4)
                queue.queue(heavy, deck, size=1, avoid=item.card)
                took = time.perf_counter() - t
            if k >= 2:
                times.append(took)
                queries = captured[0]
        times.sort()
        out[f"grade + next card, limit {limit}"] = {
            "p50": statistics.median(times) * 1000,
            "p90": times[int(len(times) * 0.9)] * 1000,
            "queries": queries,
        }
    # Put heavy back as the seed left it: the graded states, no logs of this run, limit 200.
    fields = [f.attname for f in CardState._meta.concrete_fields if not f.primary_key]
    CardState.objects.bulk_update(graded, fields, batch_size=500)
    ReviewLog.objects.filter(user=heavy, reviewed_at__gte=began).delete()
    Profile.objects.filter(user=heavy).update(reviews_per_day=200)
    print(json.dumps(out))


def run(base: Path, urls: list[str], rounds: int, n: int) -> None:
    trees = {"base": base.resolve(), "this": HERE}
    print(f"load average before: {os.getloadavg()}")
    results = {}
    for url in urls:
        for r in range(rounds):
            for label, tree in trees.items():
                found = subprocess.run(
                    [sys.executable, __file__, "worker", "--tree", str(tree), "--url", url,
                     "-n", str(n)],
                    capture_output=True, text=True, check=False,
                )  # fmt: skip
                if found.returncode:
                    sys.exit(f"{label} {url} failed:\n{found.stderr[-3000:]}")
                figures = json.loads(found.stdout.strip().splitlines()[-1])
                for case, f in figures.items():
                    results.setdefault((url, case), {}).setdefault(label, []).append(f)
            name = url.rsplit("/", 1)[1]
            print(f"  {name} round {r + 1} done, load {os.getloadavg()}", flush=True)
    print(f"load average after: {os.getloadavg()}")
    print(f"{'database':<16} {'case':<28} {'base p50':>9} {'p90':>8} {'this p50':>9} {'p90':>8}"
          f" {'this/base':>9} {'queries':>9}")  # fmt: skip
    for (url, case), by in results.items():
        b = statistics.median(f["p50"] for f in by["base"])
        bp = statistics.median(f["p90"] for f in by["base"])
        s = statistics.median(f["p50"] for f in by["this"])
        sp = statistics.median(f["p90"] for f in by["this"])
        q = f"{by['base'][0]['queries']}/{by['this'][0]['queries']}"
        print(f"{url.rsplit('/', 1)[1]:<16} {case:<28} {b:8.2f}ms {bp:6.2f}ms {s:8.2f}ms"
              f" {sp:6.2f}ms {s / b:9.2f} {q:>9}")  # fmt: skip


def http(base: Path, url: str, rounds: int, n: int, port: int) -> None:
    """Over HTTP: each checkout's gunicorn (1 sync worker, production settings plus the bare
    view of bench/study_urls.py) in turn, on the same database; sequential keep-alive requests
    as heavy (a token): the bare one-row read, GET the API's ?limit=1, and POST a grade then GET
    the next card. Heavy's graded states are put back and the logs deleted after each server."""
    import http.client
    import signal

    sys.path.insert(0, str(HERE))
    from bench.common import django_setup

    env = env_for(url) | {"DJANGO_SETTINGS_MODULE": "bench.study_settings"}
    django_setup(env)
    from django.contrib.auth import get_user_model
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from apps.accounts.models import Profile
    from apps.decks.models import Card
    from apps.study.models import CardState, ReviewLog

    heavy = get_user_model().objects.get(username="heavy")
    token = Token.objects.get_or_create(user=heavy)[0].key
    card = Card.objects.filter(deck__slug=BIG).order_by("id").values_list("id", flat=True)[0]
    headers = {"Authorization": f"Token {token}", "Host": "127.0.0.1"}
    fields = [f.attname for f in CardState._meta.concrete_fields if not f.primary_key]
    results: dict = {}
    print(f"load average before: {os.getloadavg()}")
    for r in range(rounds):
        for label, tree in (("base", base.resolve()), ("this", HERE)):
            began = timezone.now()
            saved = list(CardState.objects.filter(user=heavy, due_at__lt=began))
            server = subprocess.Popen(
                [str(HERE / ".venv" / "bin" / "gunicorn"), "config.wsgi", "--workers", "1",
                 "--bind", f"127.0.0.1:{port}", "--chdir", str(tree), "--log-level", "warning"],
                env={**os.environ, **env, "PYTHONPATH": str(tree)}, cwd=str(tree),
                start_new_session=True,
            )  # fmt: skip
            try:
                for _ in range(100):
                    try:
                        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                        conn.request("GET", f"/bench/bare/{card}/", headers=headers)
                        conn.getresponse().read()
                        break
                    except OSError:
                        time.sleep(0.2)

                def get(path, conn=conn):
                    conn.request("GET", path, headers=headers)
                    answer = conn.getresponse()
                    body = answer.read()
                    assert answer.status == 200, (answer.status, body[:300])
                    return body

                def post_grade(conn=conn, get=get):
                    nxt = json.loads(get(API))["cards"][0]["id"]
                    body = json.dumps({"card": nxt, "grade": 4})
                    sent = headers | {"Content-Type": "application/json"}
                    t = time.perf_counter()
                    conn.request("POST", "/api/reviews/", body=body, headers=sent)
                    answer = conn.getresponse()
                    answer.read()
                    assert answer.status == 201, answer.status
                    get(API)
                    return time.perf_counter() - t

                for limit in (200, 5000):
                    Profile.objects.filter(user=heavy).update(reviews_per_day=limit)
                    cases = {
                        "bare one-row read": lambda: get(f"/bench/bare/{card}/"),
                        f"API ?limit=1, limit {limit}": lambda: get(API),
                    }
                    for name, call in cases.items():
                        for _ in range(3):
                            call()
                        times = []
                        for _ in range(n):
                            t = time.perf_counter()
                            call()
                            times.append(time.perf_counter() - t)
                        results.setdefault(name, {}).setdefault(label, []).append(
                            statistics.median(times) * 1000
                        )
                    times = [post_grade() for _ in range(n)]
                    results.setdefault(f"POST grade + GET next, limit {limit}", {}).setdefault(
                        label, []
                    ).append(statistics.median(times) * 1000)
            finally:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=30)
                CardState.objects.bulk_update(saved, fields, batch_size=500)
                ReviewLog.objects.filter(user=heavy, reviewed_at__gte=began).delete()
                Profile.objects.filter(user=heavy).update(reviews_per_day=200)
        print(f"  round {r + 1} done, load {os.getloadavg()}", flush=True)
    print(f"{'case':<36} {'base p50':>9} {'this p50':>9} {'this/base':>9}")
    for name, by in results.items():
        b, t = statistics.median(by["base"]), statistics.median(by["this"])
        print(f"{name:<36} {b:8.2f}ms {t:8.2f}ms {t / b:9.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("seed")
    s.add_argument("--url", required=True)
    s.add_argument("--users", type=int, default=70)
    s.add_argument("--cards", type=int, default=100_000)
    s.add_argument("--per", type=int, default=1000)
    t = sub.add_parser("time")
    t.add_argument("--base", type=Path, required=True)
    t.add_argument("--url", action="append", required=True)
    t.add_argument("--rounds", type=int, default=3)
    t.add_argument("-n", type=int, default=30)
    h = sub.add_parser("http")
    h.add_argument("--base", type=Path, required=True)
    h.add_argument("--url", required=True)
    h.add_argument("--rounds", type=int, default=2)
    h.add_argument("-n", type=int, default=30)
    h.add_argument("--port", type=int, default=18791)
    w = sub.add_parser("worker")
    w.add_argument("--tree", type=Path, required=True)
    w.add_argument("--url", required=True)
    w.add_argument("-n", type=int, default=30)
    args = parser.parse_args()
    if args.cmd == "seed":
        seed(args.url, args.users, args.cards, args.per)
    elif args.cmd == "time":
        run(args.base, args.url, args.rounds, args.n)
    elif args.cmd == "http":
        http(args.base, args.url, args.rounds, args.n, args.port)
    else:
        worker(args.tree, args.url, args.n)


if __name__ == "__main__":
    main()
