"""Dashboard figures on a small named world, and a constant number of queries at any size."""

from datetime import UTC, datetime, timedelta

import pytest

from apps.decks.models import Card, Deck, Section
from apps.quizzes.models import Attempt, Quiz
from apps.study.models import CardState, ReviewLog
from apps.teams import selectors
from apps.teams.models import Membership, Team

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


def state(user, deck, slug, *, repetitions, due_in, suspended=False, last=None):
    card = Card.objects.get(deck=deck, slug=slug)
    return CardState.objects.create(
        user=user,
        card=card,
        deck=deck,
        repetitions=repetitions,
        interval_days=max(0, repetitions),
        due_at=NOW + due_in,
        suspended=suspended,
        last_reviewed_at=last,
    )


def review(user, deck, slug, grade, at, *, undone=False):
    return ReviewLog.objects.create(
        user=user,
        card=Card.objects.get(deck=deck, slug=slug),
        grade=grade,
        kind="review",
        reviewed_at=at,
        state_after={},
        undone_at=at if undone else None,
    )


def attempt(user, quiz, score, max_score, *, submitted=True):
    return Attempt.objects.create(
        user=user,
        quiz=quiz,
        score=score if submitted else None,
        max_score=max_score,
        submitted_at=NOW - timedelta(days=1) if submitted else None,
    )


@pytest.fixture
def world(team, small_deck, alice, bob, charlie, dave):
    """alice learns two core cards, bob all of RLlib, charlie (hidden) one card; dave, a stranger,
    learns everything and must count nowhere."""
    d = small_deck
    day = timedelta(days=1)
    state(alice, d, "ray-task", repetitions=2, due_in=3 * day, last=NOW - timedelta(hours=1))
    state(alice, d, "ray-actor", repetitions=4, due_in=-6 * day)  # overdue: learned all the same
    state(alice, d, "object-store", repetitions=0, due_in=-8 * day)  # lapsed (n=0): not learned
    state(alice, d, "rllib-algorithm", repetitions=0, due_in=-timedelta(hours=1))  # failed
    for at, grade in [
        (NOW - timedelta(hours=2), 4),
        (NOW - timedelta(hours=1), 5),
        (NOW - day, 2),
        (NOW - 3 * day, 3),
        (NOW - 10 * day, 1),
        (NOW - 40 * day, 5),  # outside 30 days
    ]:
        review(alice, d, "ray-task", grade, at)
    review(alice, d, "ray-task", 0, NOW - timedelta(minutes=5), undone=True)

    bob.profile.time_zone = "Pacific/Auckland"  # UTC+12 in June: NOW is 00:00 on the 16th there
    bob.profile.save()
    state(bob, d, "rllib-algorithm", repetitions=5, due_in=20 * day)
    state(bob, d, "env-runner", repetitions=5, due_in=20 * day, suspended=True)
    review(bob, d, "env-runner", 4, datetime(2026, 6, 14, 11, 0, tzinfo=UTC))  # 14th 23:00 NZ
    review(bob, d, "env-runner", 2, datetime(2026, 6, 14, 13, 0, tzinfo=UTC))  # 15th 01:00 NZ

    state(charlie, d, "ray-task", repetitions=2, due_in=day)

    for slug in ["ray-task", "ray-actor", "object-store", "rllib-algorithm", "env-runner"]:
        state(dave, d, slug, repetitions=9, due_in=9 * day)
    review(dave, d, "ray-task", 5, NOW - day)

    core = Quiz.objects.create(deck=d, slug="kc-core", title="Core check", kind="knowledge_check")
    final = Quiz.objects.create(deck=d, slug="kc-final", title="Final", kind="knowledge_check")
    checkpoint = Quiz.objects.create(deck=d, slug="cp", title="Checkpoint", kind="checkpoint")
    attempt(alice, core, 3, 4)
    attempt(alice, core, 2, 4)
    attempt(alice, final, 0, 10, submitted=False)  # still open: does not count
    attempt(alice, checkpoint, 1, 1)  # not a knowledge check
    attempt(bob, final, 10, 10)
    attempt(dave, core, 4, 4)
    return {"core": core, "final": final}


def by_name(progress):
    return {m.username: m for m in progress.members}


def mastery(progress, member):
    return {f.section.slug: round(member.mastery[f.section.pk], 4) for f in progress.sections}


def test_alice_figures(world, team):
    progress = selectors.team_progress(team, now=NOW)
    alice = by_name(progress)["alice"]
    assert mastery(progress, alice) == {"ray-core": round(2 / 3, 4), "rllib": 0.0}
    assert alice.cards_learned == 2
    assert alice.mastery_overall == pytest.approx(0.4)
    assert alice.due_backlog == 3  # ray-actor, object-store, rllib-algorithm
    assert (alice.reviews_7d, alice.reviews_30d) == (4, 5)
    assert alice.retention == pytest.approx(3 / 5)  # 4, 5, 3 of 4, 5, 2, 3, 1
    assert alice.streak_days == 2  # today and yesterday; three days ago is after a gap
    assert alice.knowledge_checks == {world["core"].pk: 0.75}
    assert alice.knowledge == pytest.approx(0.375)  # (0.75 + 0 for the final not taken) / 2
    assert alice.readiness == pytest.approx(0.5 * 0.4 + 0.3 * 0.375 + 0.2 * 0.6)
    assert alice.last_active == NOW - timedelta(hours=1)


def test_bob_figures_follow_his_time_zone(world, team):
    bob = by_name(selectors.team_progress(team, now=NOW))["bob"]
    assert bob.cards_learned == 2  # a suspended card stays learned
    assert bob.due_backlog == 0
    # In Auckland his reviews fall on the 14th and the 15th and today is the 16th: a streak of 2
    # (in UTC both would be on the 14th, a streak of 1).
    assert bob.streak_days == 2
    assert (bob.reviews_7d, bob.retention) == (2, 0.5)
    assert bob.knowledge == pytest.approx(0.5)
    assert bob.readiness == pytest.approx(0.5 * 0.4 + 0.3 * 0.5 + 0.2 * 0.5)


def test_a_member_with_no_reviews_has_no_retention_and_no_streak(world, team):
    charlie = by_name(selectors.team_progress(team, now=NOW))["charlie"]
    assert (charlie.retention, charlie.streak_days, charlie.reviews_30d) == (None, 0, 0)
    assert charlie.readiness == pytest.approx(0.5 * 0.2)


def test_hidden_members_show_no_row_to_others(world, team, alice, charlie):
    progress = selectors.team_progress(team, now=NOW)
    assert [m.username for m in progress.visible_rows(alice.pk)] == ["alice", "bob"]
    assert "charlie" in [m.username for m in progress.visible_rows(charlie.pk)]
    assert (progress.member_count, progress.hidden_count) == (3, 1)


def test_hidden_members_count_in_the_averages(world, team, alice, bob):
    Membership.objects.filter(team=team, user=bob).update(hidden=True)
    averages = selectors.team_progress(team, now=NOW).averages_for(alice.pk)
    assert (averages.counted, averages.left_out) == (3, 0)
    core, rllib = averages.cells
    assert core[1] == pytest.approx((2 / 3 + 0 + 1 / 3) / 3)
    assert rllib[1] == pytest.approx(1 / 3)
    assert core[2] == 2  # heat: 25-49%
    assert averages.cards_learned == pytest.approx(5 / 3)
    assert averages.retention == pytest.approx((0.6 + 0.5) / 2)  # charlie has none


def test_a_lone_hidden_member_is_left_out_of_the_averages_others_see(world, team, alice, charlie):
    """alice sees her row and bob's; with charlie in the average she could work out his."""
    progress = selectors.team_progress(team, now=NOW)
    seen_by_alice = progress.averages_for(alice.pk)
    assert (seen_by_alice.counted, seen_by_alice.left_out) == (2, 1)
    assert seen_by_alice.cards_learned == pytest.approx((2 + 2) / 2)
    seen_by_charlie = progress.averages_for(charlie.pk)  # nobody is hidden from him
    assert (seen_by_charlie.counted, seen_by_charlie.cards_learned) == (3, pytest.approx(5 / 3))


def test_strangers_count_nowhere(world, team):
    progress = selectors.team_progress(team, now=NOW)
    assert "dave" not in by_name(progress)
    assert {w.card.slug: w.learners for w in progress.weakest} == {
        "object-store": 0,
        "ray-actor": 1,
        "rllib-algorithm": 1,
        "env-runner": 1,
        "ray-task": 2,
    }


def test_weakest_cards_come_first_and_link_to_their_card(world, team):
    weakest = selectors.team_progress(team, now=NOW).weakest
    assert [w.card.slug for w in weakest][:2] == ["object-store", "ray-actor"]
    assert weakest[0].card.get_absolute_url() == "/decks/ray-basics/ray-core/#card-object-store"
    assert weakest[0].share == 0


def test_sort_rows_by_any_column_and_fall_back_on_unknown(world, team):
    progress = selectors.team_progress(team, now=NOW)
    rows = progress.members
    assert [m.username for m in selectors.sort_rows(rows, "-readiness")[0]] == [
        "bob",
        "alice",
        "charlie",
    ]
    assert [m.username for m in selectors.sort_rows(rows, "username")[0]][0] == "alice"
    assert selectors.sort_rows(rows, "password")[1] == "-readiness"


def test_heat_levels_are_quarters():
    assert [selectors.heat_level(v) for v in (None, 0, 0.1, 0.25, 0.5, 0.74, 0.75, 1)] == [
        0, 0, 1, 2, 3, 3, 4, 4,
    ]  # fmt: skip


def big_world(size: int, cards: int = 1000) -> Team:
    """A team of `size` members over a deck of `cards` cards in 10 sections, each member with a
    state, a review and a knowledge-check attempt, so every query has rows to group."""
    from django.contrib.auth import get_user_model

    from apps.accounts.models import Profile

    deck = Deck.objects.create(slug="big", title="Big")
    sections = Section.objects.bulk_create(
        [Section(deck=deck, slug=f"s{i}", order=i, title=f"S{i}") for i in range(10)]
    )
    Card.objects.bulk_create(
        [
            Card(deck=deck, section=sections[i % 10], slug=f"c{i}", order=i, front="f", back="b")
            for i in range(cards)
        ]
    )
    card_ids = list(Card.objects.filter(deck=deck).values_list("id", flat=True))
    users = get_user_model().objects.bulk_create(
        [get_user_model()(username=f"u{i:03}") for i in range(size)]
    )
    zones = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"]
    Profile.objects.bulk_create(
        [Profile(user=u, time_zone=zones[i % len(zones)]) for i, u in enumerate(users)]
    )
    team = Team.objects.create(name="Big", slug="big", deck=deck)
    Membership.objects.bulk_create(
        [Membership(team=team, user=u, role="owner" if i == 0 else "member", hidden=i % 7 == 0)
         for i, u in enumerate(users)]
    )  # fmt: skip
    CardState.objects.bulk_create(
        [CardState(user=u, card_id=card_ids[(i * 37 + j) % cards], deck=deck, repetitions=j % 4,
                   due_at=NOW + timedelta(days=j - 3), last_reviewed_at=NOW - timedelta(hours=j))
         for i, u in enumerate(users) for j in range(5)]
    )  # fmt: skip
    ReviewLog.objects.bulk_create(
        [ReviewLog(user=u, card_id=card_ids[(i + j) % cards], grade=j % 6, kind="review",
                   reviewed_at=NOW - timedelta(days=j), state_after={})
         for i, u in enumerate(users) for j in range(3)]
    )  # fmt: skip
    quiz = Quiz.objects.create(deck=deck, slug="big-kc", title="KC", kind="knowledge_check")
    Attempt.objects.bulk_create(
        [Attempt(user=u, quiz=quiz, score=i % 5, max_score=4, submitted_at=NOW) for i, u in
         enumerate(users)]
    )  # fmt: skip
    return team


@pytest.mark.parametrize("size", [5, 200])
def test_progress_takes_eleven_queries_whatever_the_team_size(size, django_assert_num_queries):
    team = big_world(size)
    # seven, the interview dates, two for code exercises, one for the members' own cards
    with django_assert_num_queries(11):
        progress = selectors.team_progress(team, now=NOW)
        rows = progress.visible_rows(progress.members[0].user_id)
        for weak in progress.weakest:
            weak.card.get_absolute_url()
    assert progress.member_count == size
    assert progress.card_count == 1000
    assert len(rows) == size - len(range(0, size, 7)) + 1  # hidden rows left out, owner's own kept
    assert sum(m.cards_learned for m in progress.members) > 0
    assert all(m.reviews_7d == 3 for m in progress.members)


def test_a_lone_hidden_member_is_left_out_of_the_weakest_concepts_others_see(
    world, team, alice, charlie
):
    """Only alice and charlie (hidden) learned ray-task, and alice knows her own cards: a count
    of 2 would tell her that charlie learned it."""
    seen_by_alice = selectors.team_progress(team, now=NOW, viewer_id=alice.pk)
    weakest = {w.card.slug: w for w in seen_by_alice.weakest}
    assert (weakest["ray-task"].learners, weakest["ray-task"].share) == (1, 0.5)
    seen_by_charlie = selectors.team_progress(team, now=NOW, viewer_id=charlie.pk)
    assert {w.card.slug: w.learners for w in seen_by_charlie.weakest}["ray-task"] == 2
