"""One set of numbers: the home and stats pages, the team dashboard, its CSV and the API agree on
learned, retention and readiness for the same learner, because all take them from
apps.study.progress."""

import csv
import io
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from apps.site import selectors
from apps.study import progress
from apps.study.models import CardState
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
    # a new card (not in retention) seen two days ago, due yesterday, passed today: 1 of 1
    review_record(user=alice, card=task, grade=4, now=now - timedelta(days=2))
    review_record(user=alice, card=task, grade=4, now=now)
    review_record(user=alice, card=actor, grade=1, now=now)  # failed at first sight: not in it
    review_record(user=alice, card=actor, grade=5, now=now)  # a same-day re-drill: not in it
    deck, member = figures(alice, team)
    assert deck.learned == member.cards_learned == 1  # the actor has had one pass only
    assert deck.retention == member.retention == 1.0
    expected = progress.readiness(learned=1, cards=5, knowledge=0.0, retention=1.0)
    assert deck.readiness == pytest.approx(member.readiness) == pytest.approx(0.5 * 1 / 5 + 0.2)
    assert expected == pytest.approx(deck.readiness)
    core = selectors.stats(alice).mastery[0]
    assert (core.title, core.learnt, core.learnt_pct) == ("Ray core", 1, 33)


def learn(user, card, *, days_ago: int, passes: int = 2):
    """`passes` reviews graded 4, each on the day the last one made the card due."""
    at = timezone.now() - timedelta(days=days_ago)
    for _ in range(passes):
        review_record(user=user, card=card, grade=4, now=at)
        at = CardState.objects.get(user=user, card=card).due_at + timedelta(minutes=1)


def test_learned_is_the_one_docs_using_md_states_on_every_page_csv_and_api(
    alice, small_deck, team, client
):
    """docs/using.md: a card is learned when its SM-2 repetitions are at least 2 and it is not
    overdue by more than 7 days. Home, stats, the dashboard, its CSV and the API all say so."""
    cards = {c.slug: c for c in small_deck.cards.all()}
    learn(alice, cards["ray-task"], days_ago=3)  # 2 passes, due in 6 days: learned
    learn(alice, cards["ray-actor"], days_ago=1, passes=1)  # one pass: not yet
    learn(alice, cards["object-store"], days_ago=30)  # 2 passes, overdue 22 days: not any more
    learn(alice, cards["rllib-algorithm"], days_ago=10)  # 2 passes, overdue 3 days: learned
    state = CardState.objects.get(user=alice, card=cards["object-store"])
    assert state.repetitions == 2 and state.due_at < timezone.now() - timedelta(days=7)
    assert progress.LEARNED_MIN_REPETITIONS == 2 and progress.LEARNED_OVERDUE_DAYS == 7
    docs = " ".join((Path(__file__).resolve().parents[2] / "docs" / "using.md").read_text().split())
    assert "repetitions are at least 2 and it is not overdue by more than 7 days" in docs

    client.force_login(alice)
    home = client.get("/").content.decode()
    assert "2 of 5 cards learned" in home
    stats = client.get("/study/stats/").content.decode()
    assert re.search(r"<td>2 of 5</td>", stats)  # readiness per deck
    assert "<td>1 (33%)" in stats and "<td>1 (50%)" in stats  # mastery: Ray core, RLlib
    dashboard = client.get(f"/teams/{team.slug}/").content.decode()
    table = dashboard[dashboard.index('id="member-table"') :]
    row = re.search(r"<th scope=\"row\">alice.*?</tr>", table, re.S).group(0)
    assert re.findall(r"<td>([^<]*)</td>", row)[1:3] == ["40%", "2"]  # mastery, learned
    rows = list(csv.DictReader(io.StringIO(client.get(f"/teams/{team.slug}/progress.csv")
                                           .content.decode())))  # fmt: skip
    assert (rows[0]["username"], rows[0]["cards_learned"], rows[0]["mastery_pct"]) == (
        "alice", "2", "40",
    )  # fmt: skip
    assert rows[0]["mastery_pct:ray-core"] == "33" and rows[0]["mastery_pct:rllib"] == "50"
    api = client.get(f"/api/teams/{team.slug}/progress/").json()
    [me] = [m for m in api["members"] if m["username"] == "alice"]
    assert me["cards_learned"] == 2 and me["mastery_overall"] == pytest.approx(0.4)
    assert me["mastery"] == {"ray-core": pytest.approx(1 / 3, abs=1e-4), "rllib": 0.5}


def test_readiness_is_zero_while_nothing_is_learned_whatever_the_other_parts():
    assert progress.readiness(learned=0, cards=10, knowledge=1.0, retention=1.0) == 0
    assert progress.readiness(learned=5, cards=10, knowledge=1.0, retention=None) == 0.55
    assert progress.retention(0, 0) is None
