"""One set of numbers: the stats page and the team dashboard agree on learned, retention and
readiness for the same learner, because both take them from apps.study.progress."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.site import selectors
from apps.study import progress
from apps.study.services import review_record
from apps.teams import selectors as team_selectors
from apps.teams import services as team_services

pytestmark = pytest.mark.django_db


def figures(alice, team):
    [deck] = selectors.stats(alice).decks or [None]
    member = next(
        m for m in team_selectors.team_progress(team, now=timezone.now()).members
        if m.username == "alice"
    )  # fmt: skip
    return deck, member


@pytest.fixture
def team(alice, small_deck):
    return team_services.team_create(user=alice, name="Cohort", deck=small_deck)


def test_nothing_learned_gives_zero_readiness_and_no_retention_on_both_pages(
    alice, small_deck, team
):
    # alice fails two new cards: reviews, but nothing learned and no review of a studied card
    for slug in ("ray-task", "ray-actor"):
        review_record(user=alice, card=small_deck.cards.get(slug=slug), grade=1)
    deck, member = figures(alice, team)
    assert member.cards_learned == 0 and member.retention is None and member.readiness == 0
    assert deck is None or (deck.learned, deck.retention, deck.readiness) == (0, None, 0)
    assert selectors.stats(alice).retention["all"] == (0, 0)  # shown as "—"


def test_the_stats_page_and_the_dashboard_give_the_same_figures(alice, small_deck, team):
    task, actor = small_deck.cards.get(slug="ray-task"), small_deck.cards.get(slug="ray-actor")
    now = timezone.now()
    # a new card (not in retention) learnt two days ago, due yesterday, passed today: 1 of 1
    review_record(user=alice, card=task, grade=4, now=now - timedelta(days=2))
    review_record(user=alice, card=task, grade=4, now=now)
    review_record(user=alice, card=actor, grade=1, now=now)  # failed at first sight: not in it
    review_record(user=alice, card=actor, grade=5, now=now)  # a same-day re-drill: not in it
    deck, member = figures(alice, team)
    assert deck.learned == member.cards_learned == 2
    assert deck.retention == member.retention == 1.0
    expected = progress.readiness(learned=2, cards=5, knowledge=0.0, retention=1.0)
    assert deck.readiness == pytest.approx(member.readiness) == pytest.approx(0.5 * 2 / 5 + 0.2)
    assert expected == pytest.approx(deck.readiness)
    core = selectors.stats(alice).mastery[0]
    assert (core.title, core.learnt, core.learnt_pct) == ("Ray core", 2, 67)


def test_readiness_is_zero_while_nothing_is_learned_whatever_the_other_parts():
    assert progress.readiness(learned=0, cards=10, knowledge=1.0, retention=1.0) == 0
    assert progress.readiness(learned=5, cards=10, knowledge=1.0, retention=None) == 0.55
    assert progress.retention(0, 0) is None
