"""Undo racing a grade: `POST /api/reviews/` and `POST /api/reviews/undo/` of one learner at the
same moment. Each must see the other whole, so whatever order they land in, a card's state is
the replay of its live (not undone) reviews, and no live review points at a deleted state.

Two threads against the real PostgreSQL test database, 100 rounds; SQLite serialises writers,
so there is no race to lose there (CI runs this in its PostgreSQL pass)."""

import contextlib
import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from apps.decks.models import Card
from apps.study import scheduler
from apps.study.models import CardState, ReviewLog
from apps.study.services import CardNotDue, NothingToUndo, review_record, review_undo

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 100
BASE = datetime(2020, 1, 6, 9, 0, tzinfo=UTC)


def replay(logs: list[ReviewLog]) -> scheduler.CardSchedule | None:
    """The schedule the card's live reviews give, graded in time order from a new card."""
    state = None
    for log in logs:
        state = scheduler.review(state or scheduler.new_state(log.reviewed_at), log.grade,
                                 log.reviewed_at)  # fmt: skip
    return state


def fast_commits() -> None:
    """This thread's connection commits without waiting for the disk: the test database need
    not survive a crash, and the locks under test are the same."""
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO off")


def test_undo_and_grade_of_one_learner_never_leave_the_state_behind_the_log(alice, small_deck):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL row locks (CI runs it with DATABASE_URL=postgres://...)")
    section = small_deck.sections.first()
    cards = Card.objects.bulk_create(
        Card(deck=small_deck, section=section, slug=f"race-{k}", order=10 + k, front="F", back="B")
        for k in range(ROUNDS)
    )
    start, done = threading.Barrier(2), threading.Barrier(2)
    errors: list[BaseException] = []

    def grader():
        from django.db import connection as own

        try:
            fast_commits()
            for k, card in enumerate(cards):
                at = BASE + timedelta(days=20 * k)
                review_record(user=alice, card=card, grade=4, now=at)  # a new card: no state before
                race_at = at + timedelta(days=2)
                if k % 2:  # a card with a state before the review the undo takes
                    review_record(user=alice, card=card, grade=5, now=at + timedelta(days=1))
                    race_at = at + timedelta(days=8)
                start.wait()
                # CardNotDue: the undo went first and the card is due later, a fair outcome
                with contextlib.suppress(CardNotDue):
                    review_record(user=alice, card=card, grade=5, now=race_at)
                done.wait()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
            start.abort(), done.abort()
        finally:
            own.close()

    def undoer():
        from django.db import connection as own

        try:
            fast_commits()
            for _ in cards:
                start.wait()
                with contextlib.suppress(NothingToUndo):
                    review_undo(user=alice)
                done.wait()
        except threading.BrokenBarrierError:
            pass
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
            start.abort(), done.abort()
        finally:
            own.close()

    threads = [threading.Thread(target=grader), threading.Thread(target=undoer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []

    states = {s.card_id: s for s in CardState.objects.filter(user=alice)}
    live = ReviewLog.objects.filter(user=alice, undone_at=None).order_by("reviewed_at", "id")
    by_card: dict[int, list[ReviewLog]] = {}
    for log in live:
        by_card.setdefault(log.card_id, []).append(log)
    orphans = sorted(card_id for card_id in by_card if card_id not in states)
    assert orphans == [], "live reviews whose card state was deleted"
    behind = [
        card.slug
        for card in cards
        if (states[card.pk].schedule if card.pk in states else None)
        != replay(by_card.get(card.pk, []))
    ]
    assert behind == [], "card states that are not the replay of their live reviews"
