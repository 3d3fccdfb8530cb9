"""Home and the study index cost a fixed number of queries whatever the deck's size and the
learner's history, and every count they show is of the cards in use (a retired card is out of
the deck list, the guided path, the deck page and the stats page alike). Their speed at 100,000
cards is bench/pages_big.py's (bench/README-pages-big.md)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.decks.models import Card
from apps.decks.selectors import deck_detail, deck_list
from apps.site import selectors
from apps.study import selectors as study_selectors
from apps.study.models import NewCardCursor
from apps.study.services import review_record

pytestmark = pytest.mark.django_db


def _grow(deck, extra: int) -> None:
    section = deck.sections.last()
    Card.objects.bulk_create(
        Card(deck=deck, section=section, slug=f"x-{i}", note_slug=f"x-{i}", order=50 + i,
             front=f"f{i}", back="b")
        for i in range(extra)
    )  # fmt: skip


@pytest.mark.parametrize("extra", [0, 150])
def test_home_and_the_study_index_cost_the_same_queries_at_any_size(
    client, alice, small_deck, extra, django_assert_num_queries
):
    _grow(small_deck, extra)
    for card in small_deck.cards.order_by("id")[: 3 + extra // 3]:
        review_record(user=alice, card=card, grade=4, now=timezone.now() - timedelta(days=2))
    client.force_login(alice)
    client.get("/")  # the session's first request
    # session, user; the decks with their counts; profile; today's reviews; the due and new
    # counts; the path's sections, learned cards, sections read, checkpoints, knowledge checks
    with django_assert_num_queries(11):
        assert client.get("/").status_code == 200
    # the same, and the suspended cards
    with django_assert_num_queries(12):
        assert client.get("/study/").status_code == 200


def test_a_retired_card_leaves_every_count_of_the_pages(client, alice, small_deck):
    task = small_deck.cards.get(slug="ray-task")
    review_record(user=alice, card=task, grade=4, now=timezone.now() - timedelta(days=8))
    review_record(user=alice, card=task, grade=4, now=timezone.now() - timedelta(days=7))
    core = task.section
    paths = selectors.learning_path(alice, [small_deck])
    assert [(s.cards, s.learned) for s in paths[small_deck.pk].sections] == [(3, 1), (2, 0)]

    Card.all_objects.filter(pk=task.pk).update(retired_at=timezone.now())
    listed = deck_list(alice).get(pk=small_deck.pk)
    assert (listed.card_count, listed.section_count) == (4, 2)
    paths = selectors.learning_path(alice, [small_deck])
    assert [(s.cards, s.learned) for s in paths[small_deck.pk].sections] == [(2, 0), (2, 0)]
    assert paths[small_deck.pk].cards == 4
    shown = deck_detail(alice, small_deck.slug)
    assert [s.card_count for s in shown.sections.all()] == [2, 2]
    mastery = {m.title: m.cards for m in selectors.stats(alice).mastery}
    assert mastery == {core.title: 2, "RLlib": 2}
    client.force_login(alice)
    assert "0 of 4 cards learned" in client.get("/").content.decode()


def test_a_deck_without_cards_or_sections_counts_zero(alice, small_deck):
    empty = type(small_deck).objects.create(slug="empty", title="Empty")
    listed = {d.slug: (d.card_count, d.section_count) for d in deck_list(alice)}
    assert listed == {"ray-basics": (5, 2), "empty": (0, 0)}
    assert selectors.learning_path(alice, [empty])[empty.pk].sections == []


def test_the_new_count_starts_at_the_decks_cursor(alice, small_deck):
    """due_counts bounds each deck's new cards by its own cursor: the count is the queue's."""
    _grow(small_deck, 30)
    ids = list(small_deck.cards.order_by("id").values_list("id", flat=True))
    two_days_ago = timezone.now() - timedelta(days=2)
    for pk in ids[:25]:
        review_record(user=alice, card=Card.objects.get(pk=pk), grade=4, now=two_days_ago)
    assert NewCardCursor.objects.get(user=alice, deck=small_deck).after_card_id == ids[24]
    assert study_selectors.today(alice).new_left == 20
    assert study_selectors.due_counts(alice)[small_deck.pk]["new"] == len(ids) - 25 == 10
    review_record(user=alice, card=Card.objects.get(pk=ids[-1]), grade=4)  # one out of order
    assert study_selectors.due_counts(alice)[small_deck.pk]["new"] == 9
