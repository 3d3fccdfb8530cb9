"""The card browser as a tool on PostgreSQL: the page sorted by each column, a search, a deep
page, and each bulk action on a page of 50 chosen cards, with a shipped deck of 300 cards and then
of 100,000, for one learner with a schedule on a fifth of them and a private deck of her own (300
cards).

    .venv/bin/python bench/browser_bench.py                    # 300, then 100,000 cards
    .venv/bin/python bench/browser_bench.py --sizes 300,20000  # quicker

Every request goes through Django's test client (every middleware, the template) with the
settings a web process runs with; the figure is the median of `--repeat` runs, beside the
number of queries the request made. Beside the bulk suspend, in the same run: suspending the
same 50 cards one by one through the card's own suspend button (what the browser offered before),
the way a learner had to. Figures: bench/README-browser.md.

PostgreSQL: the role of .ci/run (raydeck/raydeck with CREATEDB) on 127.0.0.1:5432; the bench drops
and creates its own database (BENCH_PG_URL, default raydeck_owncards).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import create_database, django_setup  # noqa: E402

DEFAULT_URL = "postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_owncards"
SECTIONS = 10
STUDIED_SHARE = 5  # a state on one card in five
OWN_CARDS = 300
PAGE = 50


def grow(deck, sections, start: int, stop: int, learner) -> None:
    """Cards start..stop of the shipped deck (HTML written as the renderer would: the bench is
    about the browser, not the renderer), and the learner's states on one card in five."""
    from datetime import timedelta

    from django.utils import timezone

    from apps.decks.models import Card
    from apps.study.models import CardState

    made = [
        Card(
            deck=deck,
            section=sections[i % SECTIONS],
            slug=f"card-{i}",
            note_slug=f"card-{i}",
            order=i // SECTIONS,
            front=f"What does rollout worker {i} send?",
            back=f"Batch {i} of trajectories.",
            tags=[f"t{i % 13}"],
            front_html=f"<p>What does rollout worker {i} send?</p>",
            back_html=f"<p>Batch {i} of trajectories.</p>",
        )  # fmt: skip
        for i in range(start, stop)
    ]
    Card.objects.bulk_create(made, batch_size=5000)
    now = timezone.now()
    ids = Card.objects.filter(deck=deck, order__gte=start // SECTIONS).values_list("pk", flat=True)
    states = [
        CardState(
            user=learner,
            card_id=pk,
            deck=deck,
            due_at=now + timedelta(days=(pk * 7) % 60),
            repetitions=1 + pk % 5,
            interval_days=1 + pk % 90,
            ease_factor=1.3 + (pk % 13) / 10,
            lapses=pk % 7,
            last_reviewed_at=now - timedelta(days=pk % 40),
            introduced_at=now,
        )  # fmt: skip
        for pk in ids
        if pk % STUDIED_SHARE == 0
    ]
    CardState.objects.bulk_create(states, batch_size=5000, ignore_conflicts=True)


def timed(repeat: int, call):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, response, queries = [], None, 0
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as ctx:
            started = time.perf_counter()
            response = call()
            times.append(time.perf_counter() - started)
        queries = len(ctx.captured_queries)
    return statistics.median(times), response, queries


def measure(client, size, cards, repeat, deck, own, other, learner) -> None:
    """Each request at this size, printed as it is timed."""
    from apps.decks.models import Card

    args = argparse.Namespace(repeat=repeat)
    del size  # printed by the caller

    def row(label, result):
        seconds, response, queries = result
        print(f"  {label:<46} {seconds * 1000:8.1f} ms  {queries:3d} queries"
              f"  {response.status_code}", flush=True)  # fmt: skip

    row("GET /study/browse/ (deck order)", timed(args.repeat, lambda: client.get(
        "/study/browse/")))  # fmt: skip
    for column in ("due", "interval", "ease", "lapses", "reviewed", "deck", "tags"):
        for sort in (column, f"-{column}"):
            row(
                f"GET /study/browse/?sort={sort}",
                timed(args.repeat, lambda sort=sort: client.get(f"/study/browse/?sort={sort}")),
            )
    row("GET /study/browse/?q=rollout&sort=-lapses", timed(args.repeat, lambda: client.get(
        "/study/browse/?q=rollout&sort=-lapses")))  # fmt: skip
    last = (cards + PAGE - 1) // PAGE
    row(f"GET /study/browse/?page={last}", timed(args.repeat, lambda: client.get(
        f"/study/browse/?page={last}")))  # fmt: skip
    chosen = list(Card.objects.filter(deck=deck).order_by("-id").values_list("pk", flat=True)[
        :PAGE])  # fmt: skip
    mine = list(Card.objects.filter(deck__owner=learner).values_list("pk", flat=True)[:PAGE])
    for action, extra in (("suspend", {}), ("unsuspend", {}), ("reschedule", {"days": 3}),
                          ("forget", {})):  # fmt: skip
        row(
            f"POST bulk {action} of {PAGE} cards",
            timed(
                args.repeat,
                lambda action=action, extra=extra: client.post(
                    "/study/browse/bulk/", {"action": action, "cards": chosen, **extra}
                ),
            ),
        )
    row(f"POST bulk tag of {PAGE} own cards", timed(args.repeat, lambda: client.post(
        "/my/cards/bulk/", {"action": "tag", "cards": mine, "tag": "drill"})))  # fmt: skip
    targets = iter([other.slug, own.slug] * args.repeat)
    row(
        f"POST bulk move of {PAGE} own cards",
        timed(
            args.repeat,
            lambda: client.post(
                "/my/cards/bulk/", {"action": "move", "cards": mine, "deck": next(targets)}
            ),
        ),
    )

    def one_by_one():
        response = None
        for pk in chosen:
            response = client.post(f"/study/cards/{pk}/suspend/", {"suspended": "1"})
        return response

    row(f"  beside it: {PAGE} single suspends, one by one", timed(
        max(1, args.repeat // 2), one_by_one))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="300,100000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    url = os.environ.get("BENCH_PG_URL", DEFAULT_URL)
    create_database(url)
    django_setup(
        {"DEBUG": "true", "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": url,
         "THROTTLE_WRITE": "1000000/min", "THROTTLE_USER": "1000000/min", "LOG_LEVEL": "WARNING",
         "ALLOWED_HOSTS": "testserver", "OWN_CARDS_MAX": "100000"}
    )  # fmt: skip
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from apps.accounts.models import profile_for
    from apps.authoring import services
    from apps.decks.models import Card, Deck, Section
    from apps.study.models import CardState

    call_command("migrate", verbosity=0)
    learner = get_user_model().objects.create_user("alice", password="x")
    profile_for(learner)
    deck = Deck.objects.create(slug="big", title="Big deck", is_published=True)
    sections = [
        Section.objects.create(deck=deck, slug=f"part-{s}", order=s, title=f"Part {s}")
        for s in range(SECTIONS)
    ]
    own = services.own_deck_create(user=learner, title="Mock interview")
    other = services.own_deck_create(user=learner, title="Later")
    Card.objects.bulk_create(
        [Card(deck=own, section=own.sections.get(), slug=f"own-{i}", note_slug=f"own-{i}",
              order=i, front=f"Own {i}?", back="Mine.", front_html=f"<p>Own {i}?</p>",
              back_html="<p>Mine.</p>") for i in range(OWN_CARDS)]
    )  # fmt: skip
    client = Client()
    client.force_login(learner)
    client.get("/study/browse/")  # the URLconf, the session, the profile
    built = 0
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for size in [int(s) for s in args.sizes.split(",")]:
        started = time.perf_counter()
        grow(deck, sections, built, size, learner)
        built = size
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        cards = Card.objects.count()
        states = CardState.objects.filter(user=learner).count()
        print(f"{cards} cards ({OWN_CARDS} her own), {states} of her states; built in"
              f" {time.perf_counter() - started:.0f} s; load"
              f" {' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip

        measure(client, size, cards, args.repeat, deck, own, other, learner)
        CardState.objects.filter(user=learner, suspended=True).update(suspended=False)
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
