"""The card browser as a tool: alice picks cards and suspends, unsuspends, reschedules or forgets
them in one go, sorted by any column; each action costs the same queries for 3 cards as for 30."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.browse import selectors as browse
from apps.browse import services as bulk
from apps.decks.models import Card
from apps.study import queue
from apps.study.models import CardState, NewCardCursor, ReviewLog
from apps.study.services import review_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def many(small_deck):
    """Forty more cards in the deck's first section."""
    section = small_deck.sections.first()
    Card.objects.bulk_create(
        Card(
            deck=small_deck,
            section=section,
            slug=f"x-{i}",
            order=10 + i,
            front=f"f {i}",
            back="b",
            note_slug=f"x-{i}",
        )  # fmt: skip
        for i in range(40)
    )
    return list(small_deck.cards.order_by("id"))


def test_suspend_and_unsuspend_take_cards_out_of_and_back_into_the_queue(alice, many):
    review_record(user=alice, card=many[0], grade=4)
    ids = [c.pk for c in many[:3]]
    assert bulk.cards_suspend(user=alice, card_ids=ids) == 3
    assert set(
        CardState.objects.filter(user=alice, suspended=True).values_list("card_id", flat=True)
    ) == set(ids)
    assert not set(ids) & {i.card.pk for i in queue.queue(alice).items}
    bulk.cards_suspend(user=alice, card_ids=ids, suspended=False)
    assert not CardState.objects.filter(user=alice, suspended=True).exists()
    assert CardState.objects.get(user=alice, card=many[0]).interval_days == 1  # schedule kept


def test_reschedule_makes_cards_due_then_and_keeps_their_history(alice, many):
    now = timezone.now()
    review_record(user=alice, card=many[0], grade=5, now=now - timedelta(days=3))
    bulk.cards_reschedule(user=alice, card_ids=[many[0].pk, many[1].pk], days=5, now=now)
    states = {s.card_id: s for s in CardState.objects.filter(user=alice)}
    assert states[many[0].pk].due_at == states[many[1].pk].due_at == now + timedelta(days=5)
    assert states[many[0].pk].repetitions == 1 and states[many[1].pk].repetitions == 0
    assert ReviewLog.objects.filter(user=alice).count() == 1
    with pytest.raises(bulk.StudyError, match="days must be 0 to 36500"):
        bulk.cards_reschedule(user=alice, card_ids=[many[0].pk], days=40000)


def test_forget_makes_cards_new_again_in_their_deck_order(alice, many):
    for card in many[:4]:
        review_record(user=alice, card=card, grade=5)
    cursor = NewCardCursor.objects.get(user=alice)
    assert cursor.after_card_id == many[3].pk
    assert bulk.cards_forget(user=alice, card_ids=[many[1].pk, many[2].pk]) == 2
    cursor.refresh_from_db()
    assert cursor.after_card_id < many[1].pk
    new = [i.card.pk for i in queue.queue(alice).items if i.kind == "new"]
    assert new[:2] == [many[1].pk, many[2].pk]  # new again, where they stand in the deck
    assert ReviewLog.objects.filter(user=alice, card=many[1]).exists()  # their history stays


def test_only_cards_the_learner_may_see_are_touched(alice, bob, many):
    review_record(user=bob, card=many[0], grade=4)
    many[0].deck.is_published = False
    many[0].deck.save()
    assert bulk.cards_suspend(user=alice, card_ids=[many[0].pk]) == 0
    assert bulk.cards_forget(user=alice, card_ids=[many[0].pk]) == 0
    assert CardState.objects.filter(user=bob).count() == 1


@pytest.mark.parametrize("action", ["suspend", "unsuspend", "reschedule", "forget"])
def test_each_bulk_action_costs_the_same_queries_for_3_cards_as_for_30(
    alice, many, action, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = []
    for size in (3, 30):
        ids = [c.pk for c in many[:size]]
        for card in many[: size // 2]:
            if not CardState.objects.filter(user=alice, card=card).exists():
                review_record(user=alice, card=card, grade=4)
        with CaptureQueriesContext(connection) as ctx:
            if action in ("suspend", "unsuspend"):
                bulk.cards_suspend(user=alice, card_ids=ids, suspended=action == "suspend")
            elif action == "reschedule":
                bulk.cards_reschedule(user=alice, card_ids=ids, days=2)
            else:
                bulk.cards_forget(user=alice, card_ids=ids)
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1], counts


def test_the_page_runs_a_bulk_action_and_shows_the_browser_again(client, alice, many):
    client.force_login(alice)
    back = reverse("study:browse") + "?sort=-lapses"
    response = client.post(
        reverse("study:browse-bulk"),
        {"action": "suspend", "cards": [many[0].pk, many[1].pk], "next": back},
        headers={"HX-Request": "true"}, follow=True,
    )  # fmt: skip
    html = response.content.decode()
    assert "2 cards suspended." in html and 'id="results"' in html and "<html" not in html
    response = client.post(
        reverse("study:browse-bulk"), {"action": "reschedule", "cards": [many[0].pk]}, follow=True
    )
    assert "Nothing was done: days: say in how many days" in response.content.decode()
    response = client.post(reverse("study:browse-bulk"), {"action": "forget", "cards": ["x"]},
                           follow=True)  # fmt: skip
    assert "a chosen card is not a card id" in response.content.decode()


@pytest.mark.parametrize("sort", browse.SORTS)
def test_every_column_sorts_both_ways_with_new_cards_last(alice, many, sort):
    now = timezone.now()
    for n, card in enumerate(many[:3]):
        review_record(user=alice, card=card, grade=5 - n, now=now - timedelta(days=n))
    many[4].tags = ["zz"]
    many[4].save()
    page = browse.cards_search(alice, sort=sort)
    assert page.paginator.count == len(many)
    if sort.lstrip("-") not in ("deck", "tags"):
        assert {c.pk for c in list(page)[:3]} == {c.pk for c in many[:3]}  # studied first


def test_the_browser_table_shows_every_column_and_sorts_by_a_header(client, alice, many):
    review_record(user=alice, card=many[0], grade=5)
    client.force_login(alice)
    html = client.get(reverse("study:browse") + "?sort=-interval").content.decode()
    for label in ("Due", "Interval", "Ease", "Lapses", "Last review", "Deck", "Tags"):
        assert f">{label}" in html
    assert 'aria-sort="descending"' in html and "sort=interval" in html  # the header flips it
    assert 'name="cards"' in html and 'id="bulk-suspend"' in html
