"""The queue: order, daily limits, time zones, suspension, and a fixed number of queries."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card, Deck, Section
from apps.study import queue, selectors
from apps.study.models import CardState
from apps.study.services import card_suspend, review_record

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def card(deck, slug):
    return deck.cards.get(slug=slug)


def slugs(q):
    return [(item.kind, item.card.slug) for item in q.items]


def test_a_fresh_learner_gets_new_cards_in_deck_order(alice, small_deck):
    q = queue.queue(alice, small_deck, now=T0)
    assert [s for _, s in slugs(q)] == [
        "ray-task", "ray-actor", "object-store", "rllib-algorithm", "env-runner",
    ]  # fmt: skip
    assert q.counts == {"redrill": 0, "due": 0, "new": 5}


def test_redrills_come_first_then_most_overdue_then_new(alice, small_deck):
    # object-store: learnt on day 0 (due day 1); ray-actor learnt on day 0 at a later hour.
    review_record(user=alice, card=card(small_deck, "object-store"), grade=5, now=T0)
    review_record(user=alice, card=card(small_deck, "ray-actor"), grade=5, now=T0)
    review_record(
        user=alice, card=card(small_deck, "ray-task"), grade=5, now=T0 - timedelta(days=3)
    )  # due day -2: the most overdue
    day3 = T0 + timedelta(days=3)
    review_record(user=alice, card=card(small_deck, "rllib-algorithm"), grade=3, now=day3)
    q = queue.queue(alice, small_deck, now=day3 + timedelta(minutes=1))
    assert slugs(q) == [
        ("redrill", "rllib-algorithm"),
        ("due", "ray-task"),
        ("due", "object-store"),
        ("due", "ray-actor"),
        ("new", "env-runner"),
    ]


def test_a_card_failed_today_comes_back_today_ahead_of_reviews(alice, small_deck):
    task = card(small_deck, "ray-task")
    review_record(user=alice, card=task, grade=5, now=T0)
    review_record(user=alice, card=card(small_deck, "ray-actor"), grade=5, now=T0)
    day1 = T0 + timedelta(days=1)
    review_record(user=alice, card=task, grade=1, now=day1)
    q = queue.queue(alice, small_deck, now=day1 + timedelta(minutes=1))
    assert slugs(q)[:2] == [("redrill", "ray-task"), ("due", "ray-actor")]


def test_daily_new_and_review_limits(alice, small_deck):
    profile = profile_for(alice)
    profile.new_cards_per_day, profile.reviews_per_day = 2, 1
    profile.save()
    q = queue.queue(alice, small_deck, now=T0)
    assert q.counts["new"] == 2
    for item in q.items:  # the whole queue's items are plain values: grade the card itself
        review_record(user=alice, card=Card.objects.get(pk=item.card.pk), grade=5, now=T0)
    assert queue.queue(alice, small_deck, now=T0 + timedelta(hours=1)).counts["new"] == 0
    day1 = T0 + timedelta(days=1)
    q = queue.queue(alice, small_deck, now=day1)
    assert q.counts == {"redrill": 0, "due": 1, "new": 2}  # two due, limit 1; new limit renewed
    review_record(user=alice, card=Card.objects.get(pk=q.items[0].card.pk), grade=5, now=day1)
    assert queue.queue(alice, small_deck, now=day1).counts["due"] == 0


def test_today_follows_the_learners_time_zone(alice, small_deck):
    profile = profile_for(alice)
    profile.time_zone = "America/Los_Angeles"  # UTC-8 in January
    profile.new_cards_per_day = 1
    profile.save()
    # 07:00 UTC on 10 Jan is 23:00 on 9 Jan in Los Angeles.
    late = datetime(2026, 1, 10, 7, 0, tzinfo=UTC)
    review_record(user=alice, card=card(small_deck, "ray-task"), grade=4, now=late)
    still_the_9th = late + timedelta(minutes=59)
    q = queue.queue(alice, small_deck, now=still_the_9th)
    assert q.counts == {"redrill": 0, "due": 0, "new": 0}
    tenth = late + timedelta(hours=1)  # local midnight: a new day, the task card is due
    q = queue.queue(alice, small_deck, now=tenth)
    assert q.counts == {"redrill": 0, "due": 1, "new": 1}


def test_suspended_cards_leave_the_queue(alice, small_deck):
    card_suspend(user=alice, card=card(small_deck, "ray-task"))
    review_record(user=alice, card=card(small_deck, "ray-actor"), grade=0, now=T0)
    card_suspend(user=alice, card=card(small_deck, "ray-actor"))
    q = queue.queue(alice, small_deck, now=T0 + timedelta(minutes=1))
    assert "ray-task" not in [s for _, s in slugs(q)]
    assert "ray-actor" not in [s for _, s in slugs(q)]


def test_users_only_see_their_own_schedule(alice, bob, small_deck):
    review_record(user=alice, card=card(small_deck, "ray-task"), grade=5, now=T0)
    assert queue.queue(bob, small_deck, now=T0).counts["new"] == 5
    assert queue.queue(alice, small_deck, now=T0).counts["new"] == 4


def test_queue_across_decks_skips_unpublished_decks(alice, small_deck):
    draft = Deck.objects.create(slug="draft", title="Draft", is_published=False)
    section = Section.objects.create(deck=draft, slug="s", title="S")
    Card.objects.create(deck=draft, section=section, slug="hidden", front="f", back="b")
    q = queue.queue(alice, now=T0)
    assert "hidden" not in [s for _, s in slugs(q)] and q.counts["new"] == 5


def test_cards_already_studied_leave_the_queue_when_their_deck_is_unpublished(alice, small_deck):
    review_record(user=alice, card=card(small_deck, "ray-task"), grade=1, now=T0)
    assert ("redrill", "ray-task") in slugs(queue.queue(alice, now=T0))
    Deck.objects.filter(pk=small_deck.pk).update(is_published=False)
    q = queue.queue(alice, now=T0)
    assert slugs(q) == []
    assert sum(q.counts.values()) == 0


def test_sized_queue_loads_only_the_next_card_and_counts_the_rest(alice, small_deck):
    review_record(user=alice, card=card(small_deck, "ray-task"), grade=3, now=T0)
    q = queue.queue(alice, small_deck, size=1, now=T0 + timedelta(minutes=1))
    assert slugs(q) == [("redrill", "ray-task")]
    assert q.counts == {"redrill": 1, "due": 0, "new": 4}


def test_due_counts_per_deck_for_the_home_page(alice, small_deck):
    review_record(user=alice, card=card(small_deck, "ray-task"), grade=4, now=T0)
    review_record(user=alice, card=card(small_deck, "ray-actor"), grade=1, now=T0)
    counts = selectors.due_counts(alice, now=T0 + timedelta(minutes=1))
    assert counts[small_deck.pk] == {"due": 1, "new": 3}


# --- query counts: pinned, and the same for 5 cards or 200 --------------------------------


def grow(deck, extra: int):
    section = deck.sections.first()
    Card.objects.bulk_create(
        Card(deck=deck, section=section, slug=f"extra-{i}", order=100 + i, front="f", back="b")
        for i in range(extra)
    )


def learn_everything(user, deck, now):
    """Every card learnt at `now`, the first one left waiting for its re-drill."""
    for i, c in enumerate(deck.cards.all()):
        review_record(user=user, card=c, grade=3 if i == 0 else 4, now=now)
    first = deck.cards.order_by("id").first()
    review_record(user=user, card=first, grade=3, now=timezone.now())  # flagged again today


@pytest.mark.parametrize("extra", [0, 200])
def test_full_queue_query_count_is_constant(alice, small_deck, extra, django_assert_num_queries):
    grow(small_deck, extra)
    profile_for(alice)
    learn_everything(alice, small_deck, T0 - timedelta(days=2))
    # one statement: today's counts, re-drills, due reviews and new cards (was 4 queries)
    with django_assert_num_queries(1):
        q = queue.queue(alice, small_deck)
    assert q.counts == {"redrill": 1, "due": min(4 + extra, 200), "new": 0}
    for item in q.items:  # what the API shows of each card came with the rows
        assert item.card.slug and item.card.deck_id == small_deck.pk


@pytest.mark.parametrize("extra", [0, 200])
def test_next_card_query_count_is_constant(alice, small_deck, extra, django_assert_num_queries):
    grow(small_deck, extra)
    profile_for(alice)
    learn_everything(alice, small_deck, T0 - timedelta(days=2))
    # every count in one round trip (the day's new and reviews, re-drills, due and new cards
    # up to the day's limits), then the next card
    with django_assert_num_queries(2):
        q = queue.queue(alice, small_deck, size=1)
    assert len(q.items) == 1


@pytest.mark.parametrize("extra", [0, 200])
def test_due_counts_query_count_is_constant(alice, small_deck, extra, django_assert_num_queries):
    grow(small_deck, extra)
    profile_for(alice)
    learn_everything(alice, small_deck, T0 - timedelta(days=2))
    with django_assert_num_queries(2):  # today's reviews, then the decks with both counts
        selectors.due_counts(alice)


def test_state_rows_copy_the_card_deck(alice, small_deck):
    review_record(user=alice, card=card(small_deck, "env-runner"), grade=4)
    assert CardState.objects.get(user=alice).deck_id == small_deck.pk


def test_the_card_just_graded_waits_while_others_are_left(alice, small_deck):
    task = card(small_deck, "ray-task")
    review_record(user=alice, card=task, grade=1, now=T0)
    later = T0 + timedelta(seconds=5)
    assert queue.queue(alice, small_deck, size=1, now=later).next.card == task
    q = queue.queue(alice, small_deck, size=1, avoid=task.pk, now=later)
    assert q.next.card.slug == "ray-actor" and q.counts["redrill"] == 1
    for c in small_deck.cards.exclude(pk=task.pk):
        card_suspend(user=alice, card=c)
    alone = queue.queue(alice, small_deck, size=1, avoid=task.pk, now=later)
    assert alone.next.card == task  # nothing else left: it comes back


def test_the_new_card_cursor_skips_known_cards_and_steps_back_on_undo(alice, small_deck):
    from apps.study.models import NewCardCursor
    from apps.study.services import review_undo

    ids = list(small_deck.cards.order_by("id").values_list("id", flat=True))
    review_record(user=alice, card=card(small_deck, "ray-task"), grade=5, now=T0)
    cursor = NewCardCursor.objects.get(user=alice, deck=small_deck)
    assert cursor.after_card_id == ids[0]
    # a card taken out of order (through the API, say) leaves a gap: the cursor stays
    review_record(user=alice, card=card(small_deck, "object-store"), grade=5, now=T0)
    cursor.refresh_from_db()
    assert cursor.after_card_id == ids[0]
    review_record(user=alice, card=card(small_deck, "env-runner"), grade=5, now=T0)
    cursor.refresh_from_db()
    assert cursor.after_card_id == ids[0]  # ray-actor is still unseen before it
    review_record(user=alice, card=card(small_deck, "ray-actor"), grade=5, now=T0)
    cursor.refresh_from_db()
    assert cursor.after_card_id == ids[1]
    q = queue.queue(alice, small_deck, now=T0)
    assert [s for _, s in slugs(q)] == ["rllib-algorithm"]
    # undo the last new card: the cursor steps back so the card is offered again
    review_undo(user=alice)
    cursor.refresh_from_db()
    assert cursor.after_card_id == ids[0]
    q = queue.queue(alice, small_deck, now=T0)
    assert [s for _, s in slugs(q)] == ["ray-actor", "rllib-algorithm"]
    assert [s for _, s in slugs(queue.queue(alice, now=T0))] == [
        "ray-actor", "rllib-algorithm",
    ]  # fmt: skip


def test_a_redrill_left_from_an_earlier_day_is_simply_due(alice, small_deck):
    task = card(small_deck, "ray-task")
    review_record(user=alice, card=task, grade=4, now=T0)
    review_record(user=alice, card=task, grade=3, now=T0 + timedelta(days=1))  # flagged
    two_days_on = T0 + timedelta(days=3)
    q = queue.queue(alice, small_deck, now=two_days_on)
    assert slugs(q)[0] == ("due", "ray-task")
    log, _ = review_record(user=alice, card=task, grade=5, now=two_days_on)
    assert log.kind == "redrill"  # the re-drill rule still applies: n, EF and I unchanged
    assert CardState.objects.get(user=alice, card=task).due_at == T0 + timedelta(days=7)


def other_deck() -> Deck:
    other = Deck.objects.create(slug="other", title="Other", is_published=True)
    part = Section.objects.create(deck=other, slug="s", order=1, title="S")
    for i in range(4):
        Card.objects.create(deck=other, section=part, slug=f"o{i}", order=i, front="f", back="b")
    return other


def queue_story(alice, small_deck, other, now):
    """Walk alice's queue through every kind of card and limit; yields a label after each step,
    where the caller checks that its queue agrees with the whole one."""
    yield "all new"
    review_record(user=alice, card=card(small_deck, "ray-task"), grade=4, now=T0)
    review_record(user=alice, card=card(small_deck, "ray-actor"), grade=5, now=T0)
    review_record(user=alice, card=other.cards.get(slug="o1"), grade=4, now=T0)
    review_record(user=alice, card=card(small_deck, "env-runner"), grade=4, now=T0 - timedelta(1))
    yield "due (most overdue first), then new"
    review_record(user=alice, card=card(small_deck, "ray-task"), grade=1, now=now)
    review_record(user=alice, card=card(small_deck, "object-store"), grade=3, now=now)
    yield "re-drills first"
    profile = profile_for(alice)
    for limit, label in ((1, "limits spent"), (3, "limits partly spent"), (0, "limits of zero")):
        profile.new_cards_per_day, profile.reviews_per_day = limit, limit
        profile.save()
        alice.refresh_from_db()
        yield label
    card_suspend(user=alice, card=card(small_deck, "ray-task"))
    other.is_published = False
    other.save()
    yield "suspended, unpublished"
    review_record(user=alice, card=card(small_deck, "object-store"), grade=4, now=now)
    yield "re-drill passed: nothing left but what the limits hold back"


@pytest.mark.parametrize("whole", [True, False])
def test_the_sized_queue_agrees_with_the_whole_queue(alice, bob, small_deck, whole):
    """The review page's sized queue (the counts, then the first items) counts and orders
    exactly as the whole queue does, for every learner, deck and limit it meets."""
    deck = None if whole else small_deck
    other = other_deck()
    now = T0 + timedelta(days=3)
    for _ in queue_story(alice, small_deck, other, now):
        full = queue.queue(alice, deck, now=now)
        for avoid in [None] + [item.card.pk for item in full.items[:2]]:
            sized = queue.queue(alice, deck, size=1, avoid=avoid, now=now)
            assert sized.counts == full.counts and sized.limits == full.limits
            rest = [i for i in full.items if i.card.pk != avoid] or full.items
            assert slugs(sized) == ([(rest[0].kind, rest[0].card.slug)] if rest else [])
    mine = queue.queue(bob, deck, size=1, now=now)  # another learner
    assert mine.counts == {"redrill": 0, "due": 0, "new": 5}  # other is unpublished


@pytest.mark.parametrize("whole", [True, False])
def test_the_one_statement_queue_agrees_with_its_reference(alice, bob, small_deck, whole):
    """The whole queue (one UNION statement, plain values) lists, orders, counts and limits
    exactly as its lists read one by one as model rows do (tests/study/queue_reference.py),
    for every learner, deck, limit and kind of card it meets; the API's body is made of it."""
    from apps.review.serializers import queue_data
    from tests.study.queue_reference import reference_queue

    deck = None if whole else small_deck
    other = other_deck()
    now = T0 + timedelta(days=3)

    def agree(user=alice):
        whole_queue = queue.queue(user, deck, now=now)
        items, counts, limits = reference_queue(user, deck, now=now)
        got = [(i.kind, i.card.slug, i.state.pk if i.state else None) for i in whole_queue.items]
        assert got == items
        assert whole_queue.counts == counts and whole_queue.limits == limits
        body = queue_data(whole_queue, "x")
        for limit in (1, 2, 3, 200):
            capped = queue_data(whole_queue, "x", limit=limit)
            assert capped == body | {"cards": body["cards"][:limit]}
            # the API's ?limit=: each list read up to the limit, the same body
            first = queue.queue(user, deck, now=now, first=limit)
            assert queue_data(first, "x") == capped
        for avoid in [item.card for item in whole_queue.items[:2]]:  # and after a grade
            after = queue.queue(user, deck, now=now, avoid=avoid)
            assert queue_data(queue.queue(user, deck, now=now, avoid=avoid, first=1), "x") == (
                queue_data(after, "x", limit=1)
            )
        return body

    for step in queue_story(alice, small_deck, other, now):
        body = agree()
        if step == "all new":
            assert len(body["cards"]) == (9 if whole else 5)
        elif step == "re-drills first":
            assert [c["kind"] for c in body["cards"]][:2] == ["redrill", "redrill"]
            assert {c["state"]["ease_factor"] for c in body["cards"][:2]} == {"2.50", "2.36"}
    assert agree(bob)["counts"] == {"redrill": 0, "due": 0, "new": 5}
