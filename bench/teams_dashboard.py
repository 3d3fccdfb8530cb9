"""Time the team dashboard for a team of 200 over a 1,000-card deck with realistic review data.

    .venv/bin/python bench/teams_dashboard.py                  # SQLite (a throwaway file)
    .venv/bin/python bench/teams_dashboard.py --db postgres    # database raydeck_bench_teams

PostgreSQL: the role of .ci/run (raydeck/raydeck with CREATEDB) on 127.0.0.1:5432, or set
BENCH_PG_URL. The benchmark builds its own database from scratch and never touches the dev one.

Data: 10 sections x 100 cards; each member has an engagement level (how many cards they have
introduced, how many days of the last 90 they studied, how well they remember), one CardState
per introduced card, ~1 review per card per active day's share, and 0-3 attempts at each of 9
knowledge checks. Timed: `team_progress` alone, then the page, the fragment, the CSV and the API
through Django's test client (full middleware, template rendering, JSON), each the median of
--repeat runs after one warm-up, with the number of queries.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def configure(db: str) -> str:
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if db == "sqlite":
        path = Path(tempfile.mkdtemp(prefix="raydeck-bench-")) / "bench.sqlite3"
        os.environ["DATABASE_URL"] = f"sqlite:///{path}"
        return str(path)
    url = os.environ.get("BENCH_PG_URL", "postgres://raydeck:raydeck@127.0.0.1:5432/")
    import psycopg

    with psycopg.connect(url.rstrip("/") + "/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS raydeck_bench_teams")
        conn.execute("CREATE DATABASE raydeck_bench_teams")
    os.environ["DATABASE_URL"] = url.rstrip("/") + "/raydeck_bench_teams"
    return "raydeck_bench_teams"


def build(members: int, cards: int, days: int, seed: int):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from apps.accounts.models import Profile
    from apps.decks.models import Card, Deck, Section
    from apps.quizzes.models import Attempt, Quiz
    from apps.study.models import CardState, ReviewLog
    from apps.teams.models import Membership, Team

    rng = random.Random(seed)
    now = timezone.now()
    deck = Deck.objects.create(slug="bench", title="Bench deck")
    sections = Section.objects.bulk_create(
        [Section(deck=deck, slug=f"s{i}", order=i, title=f"Section {i + 1}") for i in range(10)]
    )
    Card.objects.bulk_create(
        [Card(deck=deck, section=sections[i * 10 // cards], slug=f"c{i}", order=i,
              front=f"Question {i}?", back="Answer.") for i in range(cards)],
        batch_size=2000,
    )  # fmt: skip
    card_ids = list(Card.objects.filter(deck=deck).order_by("order").values_list("id", flat=True))
    User = get_user_model()
    users = User.objects.bulk_create([User(username=f"member{i:03}") for i in range(members)])
    zones = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Tokyo"]
    Profile.objects.bulk_create([Profile(user=u, time_zone=rng.choice(zones)) for u in users])
    team = Team.objects.create(name="Bench cohort", slug="bench-cohort", deck=deck)
    Membership.objects.bulk_create(
        [Membership(team=team, user=u, role="owner" if i == 0 else "member",
                    hidden=rng.random() < 0.1) for i, u in enumerate(users)]
    )  # fmt: skip
    # Other people's data the dashboard must skip: 50 strangers on the same deck.
    strangers = User.objects.bulk_create([User(username=f"stranger{i:02}") for i in range(50)])

    states, logs = [], []
    for user in users + strangers:
        engagement = rng.betavariate(2, 2)
        introduced = rng.sample(card_ids, int(cards * engagement))
        active_days = [d for d in range(days) if rng.random() < engagement]
        memory = 0.6 + 0.35 * rng.random()
        for card_id in introduced:
            reps = rng.choice([0, 1, 2, 3, 4, 5]) if rng.random() < memory else 0
            states.append(
                CardState(user=user, card_id=card_id, deck=deck, repetitions=reps,
                          interval_days=reps * 3, due_at=now + timedelta(days=rng.randint(-12, 30)),
                          last_reviewed_at=now - timedelta(days=rng.randint(0, days)))
            )  # fmt: skip
        per_day = max(1, len(introduced) // max(1, len(active_days)) * 2)
        for day in active_days:
            for _ in range(rng.randint(per_day // 2, per_day)):
                grade = rng.choice([4, 5, 3, 4]) if rng.random() < memory else rng.choice([0, 1, 2])
                logs.append(
                    ReviewLog(user=user, card_id=rng.choice(card_ids), grade=grade, kind="review",
                              reviewed_at=now - timedelta(days=day, minutes=rng.randint(0, 1439)),
                              state_after={})
                )  # fmt: skip
    CardState.objects.bulk_create(states, batch_size=5000)
    ReviewLog.objects.bulk_create(logs, batch_size=5000)
    quizzes = Quiz.objects.bulk_create(
        [Quiz(deck=deck, slug=f"kc-{i}", title=f"Check {i}", kind="knowledge_check", order=i)
         for i in range(9)]
    )  # fmt: skip
    Attempt.objects.bulk_create(
        [Attempt(user=u, quiz=q, score=rng.randint(0, 10), max_score=10, submitted_at=now)
         for u in users for q in quizzes for _ in range(rng.choice([0, 0, 1, 1, 2, 3]))],
        batch_size=5000,
    )  # fmt: skip
    return team, users[0], len(states), len(logs)


def timed(fn, repeat: int):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    fn()  # warm-up: connection, template loading, caches
    times = []
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as queries:
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, min(times) * 1000, len(queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    args = parser.parse_args()

    where = configure(args.db)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from apps.teams.selectors import team_progress

    call_command("migrate", verbosity=0)
    start = time.perf_counter()
    team, owner, n_states, n_logs = build(args.members, args.cards, args.days, args.seed)
    built = time.perf_counter() - start
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    print(f"database: {connection.vendor} ({where})")
    print(f"data: {args.members} members (+50 strangers), {args.cards} cards, {n_states} card "
          f"states, {n_logs} reviews over {args.days} days; built in {built:.1f} s")  # fmt: skip

    client = Client()
    client.force_login(owner)
    url = f"/teams/{team.slug}/"

    def get(path, **headers):
        response = client.get(path, **headers)
        assert response.status_code == 200, (path, response.status_code)
        return response

    rows = [
        ("team_progress (selectors only)", lambda: team_progress(team)),
        ("dashboard page (GET, rendered)", lambda: get(url)),
        (
            "sort fragment (htmx)",
            lambda: get(
                url + "?sort=username", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="member-table"
            ),
        ),  # fmt: skip
        ("CSV export", lambda: get(url + "progress.csv")),
        ("API progress (JSON)", lambda: get(f"/api/teams/{team.slug}/progress/")),
    ]
    print(f"{'what':34} {'median ms':>10} {'min ms':>8} {'queries':>8}")
    for name, fn in rows:
        median, best, queries = timed(fn, args.repeat)
        print(f"{name:34} {median:10.1f} {best:8.1f} {queries:8d}")
    print(f"page size: {len(get(url).content) / 1024:.0f} KiB")
    connection.close()
    if not args.keep:
        drop(args.db, where)


def drop(db: str, where: str) -> None:
    if db == "sqlite":
        shutil.rmtree(Path(where).parent, ignore_errors=True)
        return
    import psycopg

    url = os.environ.get("BENCH_PG_URL", "postgres://raydeck:raydeck@127.0.0.1:5432/")
    with psycopg.connect(url.rstrip("/") + "/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {where}")


if __name__ == "__main__":
    main()
