"""A device's backlog of offline reviews synced through the API (issue 32), beside the online
grade POST, for one learner with 100,000 card states and a big review log. By hand, not in CI.

    .venv/bin/python bench/sync.py --url postgres://raydeck:raydeck@127.0.0.1:5432/<yourdb>
    (make bench-sync BENCH_SYNC_URL=postgres://...)

Seed (generate_series, into a database the bench drops and creates): a generated deck of 100,000
cards; `heavy`, a state on every card and three logged reviews of each (300,000 log rows, 10 to 60
days ago); 400 cards due six days ago (the device's backlog) and 500 due an hour ago (the online
run); the rest due later. Then ANALYZE.

Run, with Django's test client and a session (the whole stack in process, as the review page
posts: session auth, middleware, serializer, service; no HTTP socket):
1. sync: the 500-review backlog (400 cards, 100 of them graded twice: a fail or a Hard, then
   again), in the order the device made them, each with its own client_id, reviewed_at spread
   over the last five days and based_on the state the device graded from. The connection is cut
   half-way: the last 10 answers before the cut are lost, so the device sends those 10 again when
   it resumes (200, not a second review).
2. online: 500 grade POSTs without reviewed_at, of the cards due now, in blocks of 25 taking
   turns with the sync's (side by side on the same machine at the same moment).
3. resend: the whole backlog again (a device restored from an old copy of its queue): all 200.
Rates are reviews over the summed request time (the 10 resent answers count in the sync's time,
not in its reviews). Then checks: exactly 500 new log rows for the backlog's client_ids, each at
its moment; each backlog card's state equals the pure scheduler's reviews applied in order from
its seeded state (an online learner grading at those moments); no client_id twice. Figures:
reviews per second and the median and p90 per POST for each run, statements per POST (BEGIN and
COMMIT aside), and the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

BIG = "bench-sync-100k"
CARDS = 100_000
BACKLOG_CARDS = 400
TWICE = 100
ONLINE = 500
WARM = 10  # cards due now for warming the process up, off both runs
LOGS_PER_CARD = 3
REVIEWS = "/api/reviews/"


def env_for(url: str) -> dict[str, str]:
    return {
        "DATABASE_URL": url,
        "DEBUG": "false",
        "SECRET_KEY": "bench-only-" + "x" * 60,
        "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "SECURE_HSTS_SECONDS": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DB_CONN_MAX_AGE": "600",
        "CELERY_BROKER_URL": "memory://",
        # 1,500 writes in a minute or two: the throttles would answer 429 to the bench itself
        "THROTTLE_USER": "1000000/min",
        "THROTTLE_WRITE": "1000000/min",
    }


def seed() -> dict:
    from django.core.management import call_command
    from django.db import connection

    from bench.common import seed_study, step

    t = time.perf_counter()
    call_command("migrate", verbosity=0)
    t = step("migrate", t)
    with connection.cursor() as cur:
        # g < 400: the backlog's cards, due six days ago; the next 510: due an hour ago (the online
        # run's and the warm-up's).
        seeded = seed_study(
            cur,
            deck_slug=BIG,
            cards=CARDS,
            heavy_due=f"CASE WHEN g < {BACKLOG_CARDS} THEN now() - interval '6 days'"
            f" WHEN g < {BACKLOG_CARDS + ONLINE + WARM} THEN now() - interval '1 hour'"
            " ELSE now() + (1 + g % 300) * interval '1 day' END",
            heavy_interval="1 + g % 30",
            heavy_reviewed_at="now() - interval '10 days' - (g % 7) * interval '1 minute'",
            heavy_cursor=False,
            heavy_log_cards=CARDS,
            heavy_logs_per_card=LOGS_PER_CARD,
            heavy_log_at="now() - interval '10 days' - (k * 20 + g % 7) * interval '1 day' / 3",
        )
    return {"heavy": seeded.heavy, "first": seeded.first_card, "last": seeded.last_card}


def backlog(first_card: int, seeded: dict, now, rng: random.Random) -> list[dict]:
    """500 reviews as a device made them offline, in order: 400 cards, 100 graded twice."""
    cards = [first_card + g for g in range(BACKLOG_CARDS)]
    events = [(card, rng.choice([3, 4, 4, 5, 5, 1])) for card in cards]
    rng.shuffle(events)
    twice = set(rng.sample(range(len(events)), TWICE))
    ordered = []
    for i, (card, grade) in enumerate(events):
        if i in twice:
            ordered.append((card, rng.choice([1, 3])))  # a fail or a Hard: due again that day
            ordered.append((card, rng.choice([4, 5])))
        else:
            ordered.append((card, grade))
    start, span = now - timedelta(days=5), timedelta(days=5) - timedelta(hours=1)
    known = {card: seeded[card].last_reviewed_at for card in cards}
    out = []
    for i, (card, grade) in enumerate(ordered):
        at = start + span * i / len(ordered)
        out.append({"card": card, "grade": grade, "client_id": str(uuid.uuid4()),
                    "reviewed_at": at.isoformat(), "based_on": known[card].isoformat(),
                    "duration_ms": 3000 + i % 4000})  # fmt: skip
        known[card] = at
    return out


def run(url: str) -> dict:
    from bench.common import create_database, django_setup

    create_database(url)
    django_setup(env_for(url))
    load_before = os.getloadavg()
    ids = seed()
    from django.db import connection as seeding

    with seeding.cursor() as cur:
        cur.execute("VACUUM ANALYZE")  # not autovacuum's work in the middle of the runs

    from datetime import datetime

    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from apps.study import scheduler
    from apps.study.models import CardState, ReviewLog

    heavy = get_user_model().objects.get(pk=ids["heavy"])
    first = ids["first"]
    seeded = {
        s.card_id: s.schedule
        for s in CardState.objects.filter(user=heavy, card_id__lt=first + BACKLOG_CARDS + ONLINE)
    }
    now = timezone.now()
    reviews = backlog(first, seeded, now, random.Random(32))
    client = Client(SERVER_NAME="127.0.0.1")
    client.force_login(heavy)
    logs_before = ReviewLog.objects.filter(user=heavy).count()

    def post(body) -> tuple[int, float, int]:
        found = [0]

        def count(execute, sql, params, many, context):
            found[0] += 1
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            t = time.perf_counter()
            response = client.post(REVIEWS, json.dumps(body), content_type="application/json")
            took = time.perf_counter() - t
        if response.status_code not in (200, 201):
            raise SystemExit(f"{response.status_code} {response.content[:300]!r} for {body}")
        return response.status_code, took, found[0]

    def figures(times: list[float], wall: float, n: int, queries: list[int]) -> dict:
        ordered = sorted(times)
        return {"reviews": n, "wall_s": round(wall, 3), "per_s": round(n / wall, 1),
                "p50_ms": round(statistics.median(ordered) * 1000, 2),
                "p90_ms": round(ordered[int(len(ordered) * 0.9)] * 1000, 2),
                "queries": sorted(set(queries))}  # fmt: skip

    # warm up the process (imports, the connection, compiled statements) on cards off the runs
    for g in range(WARM):
        post({"card": first + BACKLOG_CARDS + ONLINE + g, "grade": 4})
    out: dict = {"machine": {"cpus": os.cpu_count(), "load_before_seed": load_before}}

    # 1 and 2 side by side: blocks of 25 synced reviews and 25 online grades in turn, so both
    # see the same machine (the load of other processes, autovacuum after the seed). The backlog
    # is cut half-way and the last 10 answers before the cut were lost: resent on resuming.
    cut, lost, block = len(reviews) // 2, 10, 25
    synced = reviews[:cut] + reviews[cut - lost :]
    online = [{"card": first + BACKLOG_CARDS + g, "grade": 4, "client_id": str(uuid.uuid4())}
              for g in range(ONLINE)]  # fmt: skip
    runs = {"sync": ([], [], {}), "online": ([], [], {})}
    for start in range(0, max(len(synced), len(online)), block):
        for name, bodies in (("sync", synced), ("online", online)):
            times, queries, statuses = runs[name]
            for body in bodies[start : start + block]:
                status, took, n = post(body)
                statuses[status] = statuses.get(status, 0) + 1
                times.append(took)
                queries.append(n)
    for name, n in (("sync", len(reviews)), ("online", ONLINE)):
        times, queries, statuses = runs[name]
        out[name] = figures(times, sum(times), n, queries) | {"statuses": statuses}
    out["load_after_sync"] = os.getloadavg()

    # 3. the whole backlog again
    statuses, times = {}, []
    started = time.perf_counter()
    for body in reviews:
        status, took, _ = post(body)
        statuses[status] = statuses.get(status, 0) + 1
        times.append(took)
    wall = time.perf_counter() - started
    out["resend"] = figures(times, wall, len(reviews), []) | {"statuses": statuses}
    out["load_after"] = os.getloadavg()

    # checks: none lost, none doubled, the states an online learner at those moments would have
    sent = {body["client_id"]: body for body in reviews}
    rows = list(ReviewLog.objects.filter(user=heavy, client_id__in=list(sent)).values_list(
        "client_id", "reviewed_at", "card_id", "grade"
    ))  # fmt: skip
    new_rows = ReviewLog.objects.filter(user=heavy).count() - logs_before - ONLINE - WARM
    assert new_rows == len(reviews) == len(rows), (new_rows, len(rows))
    for client_id, at, card, grade in rows:
        body = sent[str(client_id)]
        assert at == datetime.fromisoformat(body["reviewed_at"]), (client_id, at)
        assert (card, grade) == (body["card"], body["grade"])
    expected = {card: seeded[card] for card in {body["card"] for body in reviews}}
    for body in reviews:
        at = datetime.fromisoformat(body["reviewed_at"])
        expected[body["card"]] = scheduler.review(expected[body["card"]], body["grade"], at)
    states = CardState.objects.filter(user=heavy, card_id__in=list(expected))
    stored = {s.card_id: s.schedule for s in states}
    wrong = [card for card in expected if stored[card] != expected[card]]
    assert not wrong, f"{len(wrong)} states differ from the online replay, e.g. {wrong[:3]}"
    out["checks"] = {"new_log_rows": new_rows, "lost": len(reviews) - len(rows), "doubled": 0,
                     "states_equal_online_replay": len(expected),
                     "log_rows_total": ReviewLog.objects.filter(user=heavy).count(),
                     "card_states": CardState.objects.filter(user=heavy).count()}  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="a PostgreSQL database the bench owns")
    args = parser.parse_args()
    out = run(args.url)
    print(json.dumps(out, indent=2, default=str))
    s, o, r = out["sync"], out["online"], out["resend"]
    print(
        f"\nsync   {s['per_s']:7.1f} reviews/s  p50 {s['p50_ms']} ms  p90 {s['p90_ms']} ms"
        f"  queries {s['queries']}  {s['statuses']}\n"
        f"online {o['per_s']:7.1f} reviews/s  p50 {o['p50_ms']} ms  p90 {o['p90_ms']} ms"
        f"  queries {o['queries']}\n"
        f"resend {r['per_s']:7.1f} reviews/s  {r['statuses']}\n"
        f"checks {out['checks']}\n"
        f"load   {out['machine']} after sync {out['load_after_sync']} after {out['load_after']}"
    )


if __name__ == "__main__":
    main()
