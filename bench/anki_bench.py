"""Anki parity: .apkg import throughput and card-browser search latency, PostgreSQL and SQLite
side by side in one run.

    .venv/bin/python bench/anki_bench.py              # both databases, one after the other
    .venv/bin/python bench/anki_bench.py --db sqlite  # one of them

PostgreSQL: the role raydeck/raydeck (CREATEDB) on 127.0.0.1:5432, or BENCH_PG_URL; the bench
drops and creates its own database raydeck_anki (never the dev one). SQLite: a throwaway file.

1. Import: a 10,000-note .apkg made with genanki (Basic, Basic-and-reversed and Cloze notes in
   sub-decks, so 10,000 notes make ~11,700 cards), read and checked by import_document (zip,
   SQLite, HTML to text, merge), then written by services.deck_import in one transaction.
   Reported: seconds and rows (cards) per second of each step, and the package's size.
2. Search: 100,000 cards (fronts and backs drawn from a fixed vocabulary, a few rare words
   planted), one learner with 5,000 studied cards; browse.cards_search() for a rare word, a
   common word, two words, a word with a state filter and a sort, and no text at all, each
   evaluated as the page does (count + the page's 50 rows): median and p95 of --repeat runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VOCABULARY = (
    "actor task object store learner sampler replay buffer policy value gradient rollout "
    "worker driver cluster node placement group bundle gang scheduler queue batch trajectory "
    "environment episode reward return advantage critic impala vtrace apex seed r2d2 kuberay "
    "head pod autoscaler resource cpu gpu memory serialization plasma reference future remote "
    "function call stateful stateless lag staleness importance weight truncation off-policy"
)
WORDS = VOCABULARY.split()
RARE = ("spillback", "backpressure", "lineage")


def configure(db: str) -> None:
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if db == "sqlite":
        path = Path(tempfile.mkdtemp(prefix="raydeck-anki-bench-")) / "bench.sqlite3"
        os.environ["DATABASE_URL"] = f"sqlite:///{path}"
        return
    from bench.common import create_database

    url = os.environ.get("BENCH_PG_URL", "postgres://raydeck:raydeck@127.0.0.1:5432/")
    url = url.rstrip("/") + "/raydeck_anki"
    create_database(url)
    os.environ["DATABASE_URL"] = url


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def package(notes: int, folder: Path) -> bytes:
    import genanki

    rng = random.Random(16)
    decks = [genanki.Deck(1_600_000_000 + i, f"Bench::Part {i}") for i in range(10)]
    for i in range(notes):
        deck = decks[i % len(decks)]
        if i % 10 == 8:
            model = genanki.BASIC_AND_REVERSED_CARD_MODEL
            fields = [f"{sentence(rng, 3)} {i}", f"{sentence(rng, 8)} <b>{i}</b>"]
        elif i % 10 == 9:
            model = genanki.CLOZE_MODEL
            fields = [f"{{{{c1::{rng.choice(WORDS)}}}}} {sentence(rng, 6)} {i}", ""]
        else:
            model = genanki.BASIC_MODEL
            fields = [f"What is {sentence(rng, 4)} {i}?", f"{sentence(rng, 12)}<br>{i}"]
        deck.add_note(genanki.Note(model=model, fields=fields, tags=[f"t{i % 20}"]))
    path = folder / "bench.apkg"
    genanki.Package(decks).write_to_file(str(path))
    return path.read_bytes()


def bench_import(notes: int) -> dict:
    from apps.authoring import formats, services
    from apps.authoring.formats import import_document

    with tempfile.TemporaryDirectory() as folder:
        data = package(notes, Path(folder))
    # genanki packs ~0.5 KiB a note: 10,000 notes pass the 2 MiB upload cap, which guards the
    # web import, not the reader; the bench lifts it to time the same code on a bigger file.
    for module in (formats.merge, formats.rows):  # the two readers that check the cap
        module.MAX_FILE_BYTES = max(module.MAX_FILE_BYTES, len(data))
    started = time.perf_counter()
    doc = import_document(data, filename="bench.apkg", deck_slug="bench")
    read_s = time.perf_counter() - started
    rows = sum(len(s.cards) for s in doc.sections)
    started = time.perf_counter()
    result = services.deck_import(doc=doc, user=None)
    write_s = time.perf_counter() - started
    assert result.created == rows, result
    return {
        "notes": notes,
        "cards": rows,
        "package_kib": round(len(data) / 1024),
        "read_s": round(read_s, 2),
        "write_s": round(write_s, 2),
        "read_rows_per_s": round(rows / read_s),
        "write_rows_per_s": round(rows / write_s),
        "total_rows_per_s": round(rows / (read_s + write_s)),
    }


def build_cards(total: int, studied: int):
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone

    from apps.accounts.models import profile_for
    from apps.decks.models import Card, Deck, Section
    from apps.study.models import CardState

    rng = random.Random(100)
    deck = Deck.objects.create(slug="search-bench", title="Search bench")
    sections = [
        Section.objects.create(deck=deck, slug=f"s{i}", order=i, title=f"Section {i}")
        for i in range(20)
    ]
    batch = []
    for i in range(total):
        front, back = f"What is {sentence(rng, 5)}?", sentence(rng, 14)
        if i % 10_000 == 7:
            back += f" {RARE[i // 10_000 % len(RARE)]}"
        card = Card(deck=deck, section=sections[i % 20], slug=f"c{i}", order=i, front=front,
                    back=back, tags=[f"t{i % 50}"])  # fmt: skip
        card.front_html, card.back_html = f"<p>{front}</p>", f"<p>{back}</p>"
        batch.append(card)
        if len(batch) == 5000:
            Card.objects.bulk_create(batch)
            batch = []
    Card.objects.bulk_create(batch)
    user = get_user_model().objects.create_user(username="learner", password="x")
    profile_for(user)
    now = timezone.now()
    ids = list(Card.objects.filter(deck=deck).values_list("id", flat=True)[:studied])
    CardState.objects.bulk_create(
        CardState(
            user=user,
            card_id=pk,
            deck=deck,
            repetitions=rng.randint(0, 6),
            interval_days=rng.randint(0, 60),
            due_at=now + timedelta(days=rng.randint(-5, 60)),
            lapses=rng.randint(0, 9),
            last_reviewed_at=now - timedelta(days=1),
            leech=rng.random() < 0.02,
        )  # fmt: skip
        for pk in ids
    )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return user


QUERIES = {
    "rare word (spillback)": {"q": "spillback"},
    "common word (actor)": {"q": "actor"},
    "two words (replay buffer)": {"q": "replay buffer"},
    "word + state=due + sort=-lapses": {"q": "learner", "state": "due", "sort": "-lapses"},
    "no text, tag=t7, sort=due": {"tag": "t7", "sort": "due"},
    "no filter, page 100": {"page": 100},
}


def bench_search(total: int, repeat: int) -> dict:
    from apps.browse import selectors as browse

    user = build_cards(total, 5000)
    out = {}
    for label, query in QUERIES.items():
        times, count = [], 0
        for i in range(repeat + 1):
            started = time.perf_counter()
            page = browse.cards_search(user, **query)
            count = page.paginator.count
            list(page.object_list)
            if i:  # the first run warms caches
                times.append((time.perf_counter() - started) * 1000)
        times.sort()
        out[label] = {
            "matches": count,
            "median_ms": round(statistics.median(times), 1),
            "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1),
        }
    return out


def run_one(db: str, notes: int, cards: int, repeat: int) -> dict:
    configure(db)
    from bench.common import django_setup

    django_setup({})
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return {"db": db, "import": bench_import(notes), "search": bench_search(cards, repeat)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    if args.db:
        print(json.dumps(run_one(args.db, args.notes, args.cards, args.repeat)))
        return
    results = []
    for db in ("postgres", "sqlite"):
        print(f"{db}...", file=sys.stderr, flush=True)
        done = subprocess.run(
            [sys.executable, __file__, "--db", db, "--notes", str(args.notes),
             "--cards", str(args.cards), "--repeat", str(args.repeat)],  # fmt: skip
            capture_output=True, text=True, check=True, cwd=ROOT,
        )  # fmt: skip
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(json.dumps(results, indent=2))
    pg, lite = results
    print("\nimport (10,000 notes)   PostgreSQL          SQLite")
    for key in ("cards", "package_kib", "read_s", "write_s", "read_rows_per_s",
                "write_rows_per_s", "total_rows_per_s"):  # fmt: skip
        print(f"  {key:22} {pg['import'][key]:>10} {lite['import'][key]:>18}")
    print(f"\nsearch at {args.cards:,} cards: median / p95 ms (matches)")
    for label in QUERIES:
        a, b = pg["search"][label], lite["search"][label]
        print(f"  {label:34} {a['median_ms']:>7} / {a['p95_ms']:<7} ({a['matches']:>6})"
              f"   {b['median_ms']:>7} / {b['p95_ms']:<7} ({b['matches']:>6})")  # fmt: skip


if __name__ == "__main__":
    main()
