"""What the stats page costs for big histories, before and after the worker stores calibration,
side by side in one run (PostgreSQL). Run by hand, not in CI; figures in
bench/README-stats-page.md.

    .venv/bin/python bench/stats_page.py seed        # once, ~1 min: BENCH_PG_URL names the db
    mkdir -p /tmp/statscal-base && git archive 60e2d36 | tar -x -C /tmp/statscal-base
    .venv/bin/python bench/stats_page.py compare --before /tmp/statscal-base --rounds 2 -n 3

The seed: a 100,000-card deck and learners with n cards x 8 reviews each over 120 days
(plan_cost's pattern: cal1k .. cal10k, 1,000 to 80,000 reviews; cal10k is pages_big's "10,000
cards, 80,000 reviews"), and "heavy" with a state and one review for each of the 100,000 cards
(pages_big's "100,000 states"). Each has a fit row recording an attempt on all their reviews
(no parameters: FSRS's defaults), so no refit is due and the page asks for nothing but the
calibration. Three versions, each its own process per round, in turn, on the same database:
"before" (`--before`, a checkout of the base code first on sys.path), "inline" (this code with
CALIBRATION_INLINE_MAX out of reach: every history scored on the view, as before) and "after"
(this code as it ships: the worker's refresh task is run for each learner first, timed, then the
page reads the stored score); "inline" also times the scoring alone
(`fitting.calibration_and_fit_due`: the fit row, the reviews, the replay). Production settings,
Django's test client in process. It prints the page's median wall time per learner and
version, its queries, the slowest statement, and the worker's time to store each score.
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
PG = os.environ.get("BENCH_PG_URL", "postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_statscal")
SIZES = [("cal1k", 125), ("cal2k", 250), ("cal4k", 500), ("cal5k", 625), ("cal8k", 1000),
         ("cal10k", 10_000)]  # fmt: skip
LEARNERS = [(f"{cards:,} cards, {cards * 8:,} reviews", name) for name, cards in SIZES] + [
    ("100,000 states (one review each)", "heavy")
]
VERSIONS = ("before", "inline", "after")


def _env() -> dict[str, str]:
    sys.path.insert(0, str(HERE))
    from bench import study_load

    return {**study_load.ENV, "DATABASE_URL": PG, "CACHE_URL": "", "LOG_LEVEL": "WARNING",
            "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
            "THROTTLE_USER": "1000000/min", "THROTTLE_WRITE": "1000000/min"}  # fmt: skip


def seed() -> None:
    sys.path.insert(0, str(HERE))
    from bench.common import create_database, django_setup, step

    t = time.perf_counter()
    create_database(PG)
    django_setup(_env())
    from django.contrib.auth.hashers import make_password
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    t = step("migrate", t)
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO decks_deck (slug, title, description, description_html, objectives,"
            " is_published, created_at, updated_at) VALUES ('bench-100k', 'Generated 100k', '',"
            " '', '[]', true, now(), now()) RETURNING id"
        )
        deck = cur.fetchone()[0]
        cur.execute(
            'INSERT INTO decks_section (deck_id, slug, "order", title, summary, summary_html)'
            " SELECT %s, 's' || g, g, 'Section ' || g, '', '' FROM generate_series(0, 99) g",
            [deck],
        )
        cur.execute(
            'INSERT INTO decks_card (deck_id, section_id, slug, "order", front, back, why, tags,'
            " front_html, back_html, why_html, updated_at, kind, note_slug, ordinal, source,"
            " type_answer)"
            " SELECT %(deck)s, s.id, 'c' || g, g %% 1000, 'Question ' || g, 'Answer', '', '[]',"
            "  '<p>Question ' || g || '</p>', '<p>Answer</p>', '', now(), 'basic', 'c' || g, 1,"
            "  '', false FROM generate_series(0, 99999) g"
            ' JOIN decks_section s ON s.deck_id = %(deck)s AND s."order" = g / 1000 ORDER BY g',
            {"deck": deck},
        )
        cur.execute("SELECT min(id) FROM decks_card WHERE deck_id = %s", [deck])
        c0 = cur.fetchone()[0]
        t = step("100,000 cards", t)
        password = make_password("pw-bench-123")
        for name, cards in [*SIZES, ("heavy", 100_000)]:
            cur.execute(
                "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name,"
                " email, is_staff, is_active, date_joined) VALUES (%s, false, %s, '', '', '',"
                " false, true, now()) RETURNING id",
                [password, name],
            )
            uid = cur.fetchone()[0]
            cur.execute(
                "INSERT INTO accounts_profile (user_id, time_zone, new_cards_per_day,"
                " reviews_per_day, target_recall, leech_threshold, extra_new_cards,"
                " interview_mode) VALUES (%s, 'Europe/Berlin', 20, 200, 90, 8, 0, false)",
                [uid],
            )
            per_card = 1 if name == "heavy" else 8
            # plan_cost's histories: eight reviews a card over 120 days at growing gaps
            cur.execute(
                "INSERT INTO study_reviewlog (user_id, card_id, grade, kind, reviewed_at,"
                " duration_ms, state_before, state_after)"
                " SELECT %(u)s, %(c0)s + g, CASE WHEN (g + k) %% 7 = 0 THEN 1"
                "  WHEN (g + k) %% 5 = 0 THEN 3 ELSE 4 END, 'review',"
                "  now() - interval '120 days' + (k * k * 1.8 + g %% 5) * interval '1 day'"
                "  + (g %% 600) * interval '1 minute', 4000 + (g * 7 + k) %% 9000, '{}', '{}'"
                " FROM generate_series(0, %(n)s - 1) g, generate_series(0, %(k)s - 1) k",
                {"u": uid, "c0": c0, "n": cards, "k": per_card},
            )
            cur.execute(
                "INSERT INTO study_cardstate (user_id, card_id, deck_id, repetitions,"
                " ease_factor, interval_days, due_at, needs_redrill, lapses, last_grade,"
                " last_reviewed_at, introduced_at, suspended, leech)"
                " SELECT %(u)s, %(c0)s + g, %(deck)s, 4, 2.30, 20,"
                "  CASE WHEN g %% 10 = 0 THEN now() - interval '2 hours'"
                "       ELSE now() + (1 + g %% 40) * interval '1 day' END,"
                "  false, g %% 3, 4, now() - interval '6 days', now() - interval '120 days',"
                "  false, false FROM generate_series(0, %(n)s - 1) g",
                {"u": uid, "c0": c0, "n": cards, "deck": deck},
            )
            # An attempt at a fit on every review, left on the defaults: no refit is due.
            cur.execute(
                "INSERT INTO study_memoryfit (user_id, parameters, reviews, holdout_parameters,"
                " holdout_split_at) VALUES (%s, '[]', %s, '[]', NULL)",
                [uid, cards * per_card],
            )
        cur.execute("ANALYZE")
    step("learners", t)


def worker(version: str, code: str, n: int) -> None:
    os.environ.update(_env())
    sys.path.insert(0, code)  # before this checkout's own path, which _env put first
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    users = get_user_model().objects
    stored: dict[str, float] = {}
    if version in ("inline", "after"):
        from apps.interview import fitting
        from apps.study.models import MemoryFit

        if version == "inline":
            fitting.CALIBRATION_INLINE_MAX = 10**12
        else:
            MemoryFit.objects.update(calibration_reviews=None, calibration_asked_at=None)
            for _, who in LEARNERS:
                started = time.perf_counter()
                assert fitting.calibration_refresh_run(user_id=users.get(username=who).pk)
                stored[who] = (time.perf_counter() - started) * 1000
    scored: dict[str, list[float]] = {}
    if version == "inline":  # the scoring alone, as the page did it on every view
        for _, who in LEARNERS:
            user = users.get(username=who)
            for _ in range(n):
                started = time.perf_counter()
                fitting.calibration_and_fit_due(user)
                scored.setdefault(who, []).append((time.perf_counter() - started) * 1000)
    out: dict = {"stored": stored, "scored": scored, "pages": {}}
    for _, who in LEARNERS:
        client = Client()
        client.force_login(users.get(username=who))
        for _ in range(2):
            assert client.get("/study/stats/").status_code == 200
        wall, slowest, queries = [], [], 0
        for _ in range(n):
            started = time.perf_counter()
            with CaptureQueriesContext(connection) as ctx:
                response = client.get("/study/stats/")
            wall.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.status_code
            if version == "after" and who in ("cal5k", "cal8k", "cal10k", "heavy"):
                assert b'id="calibration-as-of"' in response.content, who
            slowest.append(max((float(q["time"]) * 1000 for q in ctx.captured_queries), default=0))
            queries = len(ctx.captured_queries)
        out["pages"][who] = {"wall": wall, "slowest": slowest, "queries": queries}
    print(json.dumps(out))


def compare(before: str, rounds: int, n: int) -> None:
    code = {"before": str(Path(before).resolve()), "inline": str(HERE), "after": str(HERE)}
    pooled: dict = {}
    start_load, started = os.getloadavg(), time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    for r in range(rounds):
        for version in VERSIONS:
            cmd = [sys.executable, str(Path(__file__).resolve()), "worker", "--version",
                   version, "--code", code[version], "-n", str(n)]  # fmt: skip
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=code[version])
            if done.returncode != 0:
                raise SystemExit(f"{version} failed:\n{done.stderr[-3000:]}")
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            for who, f in figures["pages"].items():
                cell = pooled.setdefault((who, version), {"wall": [], "slowest": [], "store": []})
                cell["wall"] += f["wall"]
                cell["slowest"] += f["slowest"]
                cell["queries"] = f["queries"]
                if who in figures["stored"]:
                    cell["store"].append(figures["stored"][who])
                cell.setdefault("scored", []).extend(figures["scored"].get(who, []))
        print(f"round {r + 1}/{rounds} done", file=sys.stderr, flush=True)
    load = os.getloadavg()
    print(f"Run {started}-{time.strftime('%H:%M', time.gmtime())} UTC, {rounds} rounds x {n} "
          f"calls per learner and version; load average {start_load[0]:.1f} / "
          f"{start_load[1]:.1f} / {start_load[2]:.1f} at the start, {load[0]:.1f} / "
          f"{load[1]:.1f} / {load[2]:.1f} at the end\n")  # fmt: skip
    print(
        "| learner | before: wall p50 | inline: wall p50 | after: wall p50 | before / after "
        "| slowest statement after | queries before / inline / after | worker: store |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, who in LEARNERS:
        cells = {v: pooled[(who, v)] for v in VERSIONS}
        p50 = {v: statistics.median(c["wall"]) for v, c in cells.items()}
        store = cells["after"]["store"]
        print(
            f"| {label} | {p50['before']:.1f} ms | {p50['inline']:.1f} ms | {p50['after']:.1f} ms"
            f" | {p50['before'] / p50['after']:.1f}"
            f" | {statistics.median(cells['after']['slowest']):.1f} ms"
            f" | {' / '.join(str(cells[v]['queries']) for v in VERSIONS)}"
            f" | {statistics.median(cells['inline']['scored']):.0f} ms"
            f" | {statistics.median(store):.0f} ms |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["seed", "compare", "worker"])
    parser.add_argument("--before", help="a checkout of the base code to compare with")
    parser.add_argument("--version", choices=VERSIONS, help="(worker) which version to time")
    parser.add_argument("--code", help="(worker) the checkout whose code to run")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("-n", type=int, default=3, help="timed calls per learner and version")
    args = parser.parse_args()
    if args.what == "seed":
        seed()
    elif args.what == "worker":
        worker(args.version, args.code, args.n)
    else:
        if not args.before:
            parser.error("compare needs --before (a checkout of the base code)")
        compare(args.before, args.rounds, args.n)


if __name__ == "__main__":
    main()
