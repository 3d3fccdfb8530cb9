"""Study's figures per member (apps.teams.members), which the team dashboard composes: the same
learned and retention as the learner's own stats page, in two queries for any number of
learners."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from apps.site import selectors
from apps.study.services import review_record
from apps.teams import members

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("days_ago", "streak"),
    [
        ([], 0),
        ([0], 1),
        ([1], 1),  # yesterday's streak survives until today is over
        ([2], 0),
        ([0, 1, 2, 4], 3),
        ([1, 2, 3], 3),
    ],
)
def test_streak_counts_consecutive_days_ending_today_or_yesterday(days_ago, streak):
    today = NOW.date()
    assert members.streak({today - timedelta(days=d) for d in days_ago}, today) == streak


def test_member_figures_agree_with_the_stats_page_in_two_queries(
    alice, bob, small_deck, django_assert_num_queries
):
    task, actor = small_deck.cards.get(slug="ray-task"), small_deck.cards.get(slug="ray-actor")
    now = datetime.now(tz=UTC)
    review_record(user=alice, card=task, grade=4, now=now - timedelta(days=2))
    review_record(user=alice, card=task, grade=4, now=now)
    review_record(user=alice, card=actor, grade=1, now=now)
    with django_assert_num_queries(2):
        figures = members.member_study(
            small_deck, user_ids=[alice.pk, bob.pk], zones={alice.pk: "UTC", bob.pk: "UTC"},
            now=now,
        )  # fmt: skip
    mine, [deck] = figures[alice.pk], selectors.stats(alice, now=now).decks
    assert (mine.cards_learned, mine.retention) == (deck.learned, deck.retention) == (1, 1.0)
    assert (mine.reviews_7d, mine.streak_days, mine.due_backlog) == (3, 1, 1)
    assert mine.learned_by_section == {task.section_id: 1}
    assert figures[bob.pk] == members.MemberStudy()  # nothing studied: zeros, no retention


def test_least_learned_cards_counts_only_the_given_learners(alice, bob, small_deck):
    task = small_deck.cards.get(slug="ray-task")
    now = timezone.now()
    for user in (alice, bob):  # two passes a day or more apart: learned
        review_record(user=user, card=task, grade=5, now=now - timedelta(days=2))
        review_record(user=user, card=task, grade=5, now=now)
    cards = members.least_learned_cards(small_deck, user_ids=[alice.pk], count=10, now=now)
    assert {c.slug: c.learners for c in cards}["ray-task"] == 1
    assert members.least_learned_cards(small_deck, user_ids=[], count=1, now=now)[0].learners == 0
