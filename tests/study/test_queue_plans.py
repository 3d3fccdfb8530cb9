"""The queue's statements read this learner's rows only (issue 30): PostgreSQL's plan of every
statement the queue runs, with many learners' card states in the table, reads the card states
by an index condition, never by a sequential scan of every learner's states. PostgreSQL only
(SQLite's planner is another); it runs in CI's services pass."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.study import queue
from apps.study.services import review_record

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's query plans"),
]

LEARNERS, CARDS = 40, 600
TABLE = "study_cardstate"


@pytest.fixture
def crowded(alice, small_deck):
    """A deck of CARDS cards; LEARNERS learners with a state on every one of them (most due);
    alice with a state on half, a third of those due, a few failed today, and new cards left.
    ANALYZEd, so the planner sees a table where alice's rows are a small part."""
    section = small_deck.sections.first()
    Card.objects.bulk_create(
        Card(
            deck=small_deck,
            section=section,
            slug=f"g-{n}",
            order=10 + n,
            front="f",
            back="b",
            note_slug=f"g-{n}",
        )  # fmt: skip
        for n in range(CARDS)
    )
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"crowd-{n}", password="!") for n in range(LEARNERS)
    )
    now = queue.timezone.now()
    cards = list(small_deck.cards.order_by("id"))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {TABLE} (user_id, card_id, deck_id, repetitions, ease_factor,"
            " interval_days, due_at, needs_redrill, lapses, last_grade, last_reviewed_at,"
            " introduced_at, suspended, leech)"
            " SELECT u.id, c.id, c.deck_id, 2, 2.5, 6, %s - (c.id %% 7) * interval '1 day',"
            " false, 0, 4, %s - interval '3 days', %s - interval '30 days', false, false"
            " FROM auth_user u CROSS JOIN decks_card c WHERE u.id = ANY(%s) OR (u.id = %s"
            " AND c.id = ANY(%s))",
            [now, now, now, [u.pk for u in users], alice.pk, [c.pk for c in cards[: CARDS // 2]]],
        )
    for card in cards[:3]:  # failed today: re-drills
        review_record(user=alice, card=card, grade=1, now=now - timedelta(minutes=5))
    review_record(user=alice, card=cards[-1], grade=4, now=now - timedelta(minutes=5))  # new
    profile = profile_for(alice)
    profile.reviews_per_day = 5000
    profile.save(update_fields=["reviews_per_day"])
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {TABLE}, decks_card, study_reviewlog, study_newcardcursor")
    return small_deck, cards, now


def scans_of(plan: dict, table: str):
    """Every plan node that reads `table`, with its subplans'."""
    if plan.get("Relation Name") == table:
        yield plan
    for child in plan.get("Plans", ()):
        yield from scans_of(child, table)


def full_scans(sql: str) -> list[str]:
    """The nodes of the statement's plan that read every learner's card states: a sequential
    scan of the table."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}")
        (plan,) = cursor.fetchone()[0]
    bad = []
    for node in scans_of(plan["Plan"], TABLE):
        if node["Node Type"] == "Seq Scan":
            bad.append(f"Seq Scan on {TABLE} ({node.get('Filter', 'no filter')})")
    return bad


def statements(run) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        run()
    found = [q["sql"] for q in captured.captured_queries]
    return [sql for sql in found if sql.lstrip().startswith(("SELECT", "("))]  # "(": a UNION


def test_no_queue_statement_scans_other_learners_states(alice, crowded):
    deck, cards, now = crowded
    later = now + timedelta(seconds=1)
    chosen = queue.Chosen(
        cards=[c.pk for c in cards[:8]] + [c.pk for c in cards[-4:]],
        kinds=["due"] * 8 + ["new"] * 4,
        decks=[deck.pk] * 12,
    )
    runs = {
        "whole queue, one deck": lambda: queue.queue(alice, deck, now=later),
        "whole queue, all decks": lambda: queue.queue(alice, None, now=later),
        "next card": lambda: queue.queue(alice, deck, size=1, now=later),
        "the API's ?limit=1": lambda: queue.queue(alice, deck, first=1, now=later),
        "the API's ?limit=1, all decks": lambda: queue.queue(alice, None, first=1, now=later),
        "next card, all decks": lambda: queue.queue(alice, None, size=1, now=later),
        "next 50 (re-drills and due)": lambda: queue.queue(alice, deck, size=50, now=later),
        "next card avoiding one": lambda: queue.queue(
            alice, deck, size=1, avoid=cards[0], now=later
        ),
        "chosen, next card": lambda: queue.queue(alice, deck, size=1, chosen=chosen, now=later),
        "chosen, whole": lambda: queue.queue(alice, deck, chosen=chosen, now=later),
        "chosen, counts": lambda: queue.queue(alice, None, size=0, chosen=chosen, now=later),
        "a card set": lambda: queue.card_set_queue(alice, [c.pk for c in cards[:5]], now=later),
    }
    found, seen = {}, 0
    for name, run in runs.items():
        for sql in statements(run):
            if TABLE not in sql:
                continue
            seen += 1
            if bad := full_scans(sql):
                found[name] = (bad, sql[:300])
    assert seen >= len(runs), "the queue's statements were not captured"
    assert not found, found
