"""A 16,512-card deck on PostgreSQL: what an author's move, edit, restore and lists cost.

    .venv/bin/python bench/big_deck.py                  # 16,512 cards in one section
    .venv/bin/python bench/big_deck.py --sections 8     # the same cards over 8 sections
    .venv/bin/python bench/big_deck.py --cards 4000     # quicker

The deck is the size of the 2 MiB YAML file issue 28's attacker imported (the limits allow it),
written here in bulk (the import itself is bench/imports_bench.py's subject): every card with its
first revision, 20 learners with a state for 300 cards each. Each operation goes through Django's
test client (every middleware, the serializer or the template) with the settings a web process
runs with (the web's statement_timeout), timed `--repeat` times; the figure is the median.

Beside it, in the same run, the old move (`old_order_swap`, the code before issue 28: lock every
card of the section and renumber them all in one CASE statement) on sections of growing size,
under a 60 s statement_timeout of its own: its cost grows with the square of the section.

PostgreSQL: the role of .ci/run (raydeck/raydeck with CREATEDB) on 127.0.0.1:5432; the bench drops
and creates its own database (BENCH_PG_URL, default raydeck_hardening_bigdeck).
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

DEFAULT_URL = "postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_hardening_bigdeck"
LEARNERS, STUDIED = 20, 300


def build(cards: int, sections: int):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from apps.authoring.models import Revision
    from apps.authoring.services import card_data
    from apps.decks.models import Card, Deck, Section
    from apps.study.models import CardState

    User = get_user_model()
    staff = User.objects.create_user("bench-staff", password="x", is_staff=True)
    deck = Deck.objects.create(slug="big", title="Big deck", is_published=True)
    rows = [
        Section.objects.create(deck=deck, slug=f"part-{s}", order=s, title=f"Part {s}")
        for s in range(sections)
    ]
    per = -(-cards // sections)
    made = []
    for i in range(cards):
        section = rows[i // per]
        card = Card(
            deck=deck, section=section, slug=f"card-{i}", order=i % per,
            front=f"What does worker {i} do with rollout {i}?",
            back=f"It sends batch {i} to the learner.", tags=[f"t{i % 7}"],
        )  # fmt: skip
        card.render()
        made.append(card)
    Card.objects.bulk_create(made, batch_size=2000)
    made = list(Card.objects.filter(deck=deck).select_related("section").order_by("id"))
    Revision.objects.bulk_create(
        [Revision(card=c, number=1, data=card_data(c), source="import") for c in made],
        batch_size=2000,
    )
    now = timezone.now()
    for n in range(LEARNERS):
        learner = User.objects.create_user(f"learner-{n}", password="x")
        CardState.objects.bulk_create(
            [CardState(user=learner, card=c, deck=deck, due_at=now, repetitions=1,
                       interval_days=1, introduced_at=now)
             for c in made[n * 7 : n * 7 + STUDIED]],
            batch_size=2000,
        )  # fmt: skip
    return staff, deck, made


def old_order_swap(siblings, row, direction: str) -> bool:
    """The move before issue 28 (apps/authoring/services/fields.py then), kept to compare."""
    rows = list(siblings.order_by("order", "id").select_for_update())
    index = next(i for i, item in enumerate(rows) if item.pk == row.pk)
    other = index - 1 if direction == "up" else index + 1
    if direction not in ("up", "down") or not 0 <= other < len(rows):
        return False
    rows[index], rows[other] = rows[other], rows[index]
    for position, item in enumerate(rows):
        item.order = position
    siblings.model.objects.bulk_update(rows, ["order"])
    return True


def timed(repeat: int, call) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=16_512)
    parser.add_argument("--sections", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--old-sizes", default="500,1000,2000,4000", help="section sizes to time the old move on"
    )
    args = parser.parse_args()
    url = os.environ.get("BENCH_PG_URL", DEFAULT_URL)
    create_database(url)
    django_setup(
        {"DEBUG": "true", "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": url,
         "THROTTLE_WRITE": "100000/min", "THROTTLE_USER": "100000/min", "LOG_LEVEL": "WARNING",
         "ALLOWED_HOSTS": "testserver"}
    )  # fmt: skip
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.test import Client
    from rest_framework.test import APIClient

    from apps.authoring.models import Revision
    from apps.decks.models import Card, Section

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    staff, deck, cards = build(args.cards, args.sections)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("SHOW statement_timeout")
        timeout = cursor.fetchone()[0]
    load = os.getloadavg()
    print(f"{args.cards} cards in {args.sections} section(s), {LEARNERS} learners x {STUDIED} "
          f"states; built in {time.perf_counter() - started:.0f} s; statement_timeout {timeout}; "
          f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")  # fmt: skip

    api = APIClient()
    api.force_authenticate(staff)
    page = Client()
    page.force_login(staff)
    api.get("/api/decks/")  # the first request of a process loads the URLconf
    middle = cards[len(cards) // 2]
    results = []

    def row(label, seconds, response, note=""):
        size = len(response.content) if response is not None else 0
        status = response.status_code if response is not None else "-"
        results.append((label, seconds, status, size, note))
        print(f"  {label:<44} {seconds * 1000:9.1f} ms  {status}  {size / 1024:8.1f} KiB {note}",
              flush=True)  # fmt: skip

    direction = iter(["up", "down"] * args.repeat)
    s, r = timed(
        args.repeat,
        lambda: api.post(
            f"/api/author/cards/{middle.pk}/move/", {"direction": next(direction)}, format="json"
        ),
    )
    row("POST /api/author/cards/<middle>/move/", s, r)
    s, r = timed(
        args.repeat,
        lambda: page.post(
            f"/author/cards/{middle.pk}/move/", {"direction": "up"}, HTTP_HX_REQUEST="true"
        ),
    )
    row("POST /author/cards/<middle>/move/ (htmx)", s, r)
    n = iter(range(10_000))
    s, r = timed(
        args.repeat,
        lambda: api.patch(
            f"/api/author/cards/{middle.pk}/", {"back": f"It sends batch {next(n)}."}, format="json"
        ),
    )
    row("PATCH /api/author/cards/<middle>/", s, r)
    # Each restore brings back another text: revision 1 and 2 in turn.
    older = iter(list(Revision.objects.filter(card=middle, number__in=[1, 2])) * args.repeat)
    s, r = timed(
        args.repeat,
        lambda: api.post(f"/api/author/revisions/{next(older).pk}/restore/", {}, format="json"),
    )
    row("POST /api/author/revisions/<1 or 2>/restore/", s, r)
    s, r = timed(args.repeat, lambda: api.get(f"/api/author/decks/{deck.slug}/cards/"))
    row("GET /api/author/decks/big/cards/ (page 1)", s, r)
    last = (args.cards + 99) // 100
    s, r = timed(args.repeat, lambda: api.get(f"/api/author/decks/{deck.slug}/cards/?page={last}"))
    row(f"GET /api/author/decks/big/cards/?page={last}", s, r)
    s, r = timed(args.repeat, lambda: page.get(f"/author/decks/{deck.slug}/"))
    row("GET /author/decks/big/ (page 1)", s, r)
    s, r = timed(args.repeat, lambda: page.get(f"/author/decks/{deck.slug}/?page={last}"))
    row(f"GET /author/decks/big/?page={last}", s, r)
    s, r = timed(1, lambda: api.delete(f"/api/author/decks/{deck.slug}/"))
    row("DELETE /api/author/decks/big/ (unconfirmed)", s, r)
    print(f"  load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    # The old move, side by side, on sections of growing size (its own 60 s bound).
    bound = settings.DB_STATEMENT_TIMEOUT_S
    print(f"old move (every card of the section renumbered in one statement; the web's bound is"
          f" {bound} s, so the old move would be cut there), beside the new one:")  # fmt: skip
    for size in [int(x) for x in args.old_sizes.split(",") if x]:
        section = Section.objects.create(deck=deck, slug=f"old-{size}", order=1000 + size,
                                         title="old")  # fmt: skip
        Card.objects.bulk_create(
            [Card(deck=deck, section=section, slug=f"old-{size}-{i}", order=i, front="F",
                  back="B") for i in range(size)], batch_size=2000)  # fmt: skip
        one = Card.objects.filter(section=section, order=size // 2).get()
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE decks_card")
        started = time.perf_counter()
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL statement_timeout = '60s'")
            old_order_swap(section.cards.all(), one, "up")
        old_s = time.perf_counter() - started
        started = time.perf_counter()
        from apps.authoring.services import card_move

        card_move(card=one, direction="up")
        new_s = time.perf_counter() - started
        print(f"  {size:6d} cards: old {old_s * 1000:9.1f} ms   new {new_s * 1000:7.1f} ms",
              flush=True)  # fmt: skip
    print(f"  load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
