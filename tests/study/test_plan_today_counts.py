"""What the study pages say of today's plan: the plan page's eyebrow names a planned card "new",
"due" or "for your interview"; the study index counts the plan's new cards the queue does not
serve, as the review page's done screen does; and one request builds the plan once."""

import re
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.study import interview
from apps.study.models import CardState
from tests.queries import queries_of_get
from tests.study.test_plan_pages import _grow, learn_all, plan_for

pytestmark = pytest.mark.django_db


def _eyebrow(client) -> tuple[int, str]:
    page = client.get("/study/plan/").content.decode()
    card = int(re.search(r'id="plan-card" data-card="(\d+)"', page).group(1))
    eyebrow = re.search(r'<p class="eyebrow">(.*?)</p>', page, re.S).group(1)
    return card, eyebrow.split(" · ")[1]


def test_a_new_planned_card_is_labelled_new(client, alice, small_deck):
    plan_for(alice, days=3, budget=30, target=99)
    client.force_login(alice)
    card, label = _eyebrow(client)
    assert not CardState.objects.filter(user=alice, card_id=card).exists()
    assert label == "new"


def test_a_due_planned_card_is_labelled_due(client, alice, small_deck):
    learn_all(alice, small_deck)
    CardState.objects.filter(user=alice).update(due_at=timezone.now() - timedelta(days=1))
    plan_for(alice, days=3, budget=30, target=99)
    client.force_login(alice)
    assert _eyebrow(client)[1] == "due"


def test_a_planned_card_sm2_has_not_made_due_is_for_your_interview(client, alice, small_deck):
    learn_all(alice, small_deck)  # all due after the interview
    plan_for(alice, days=1, budget=30, target=99)
    client.force_login(alice)
    assert _eyebrow(client)[1] == "for your interview"


def _limit_new(user, n):
    profile = profile_for(user)
    profile.new_cards_per_day = n
    profile.save()


def _index(client):
    page = client.get("/study/").content.decode()
    count = re.search(r'<strong id="plan-count">(\d+)</strong> for your interview', page)
    new = re.search(r'<a id="plan-new" href="/study/plan/">([^<]*), on your plan page</a>', page)
    return (int(count.group(1)) if count else 0), (new.group(1) if new else None)


def test_the_index_counts_the_plans_new_cards_past_the_limit_as_the_done_screen(
    client, alice, small_deck
):
    plan_for(alice, days=1, budget=30, target=99)
    _limit_new(alice, 1)
    client.force_login(alice)
    ip = interview.interview_plan(alice)
    new = ip.new_today
    assert len(new) == 5  # the plan introduces the whole deck today; the queue serves one
    served = [i.card.pk for i in interview_queue(alice) if i.kind == "new"]
    assert len(served) == 1
    past = [cid for cid in new if cid not in served]
    assert _index(client) == (len(past), "all new")  # the plan asks for no seen card
    # Learn the queue's new card: the queue is done, and the done screen says what is left.
    page = client.get("/study/review/").content.decode()
    card = int(re.search(r'name="card" value="(\d+)"', page).group(1))
    client.post("/study/review/", {"card": card, "grade": 4})
    done = client.get("/study/review/").content.decode()
    left = int(re.search(r"introduces (\d+) more new card", done).group(1))
    assert _index(client) == (left, "all new")


def interview_queue(user):
    from apps.study import queue

    return queue.queue(user).items


def test_the_index_adds_the_plans_new_cards_to_the_cards_the_queue_serves(
    client, alice, small_deck
):
    learn_all(alice, small_deck)  # the five cards seen: the plan asks for them "for interview"
    _grow(small_deck, 3)  # three more, never seen
    plan_for(alice, days=1, budget=30, target=99)
    _limit_new(alice, 0)
    client.force_login(alice)
    ip = interview.interview_plan(alice)
    served = interview_queue(alice)
    plan_served = sum(1 for i in served if i.kind == "plan")
    assert plan_served and len(ip.new_today) == 3
    assert _index(client) == (plan_served + 3, "3 of them new")


def test_without_new_cards_left_the_index_says_only_the_queues_count(client, alice, small_deck):
    learn_all(alice, small_deck)
    plan_for(alice, days=1, budget=30, target=99)
    client.force_login(alice)
    count, label = _index(client)
    assert count and label is None


def test_the_index_with_a_plan_issues_the_same_queries_for_5_or_50_cards(client, alice, small_deck):
    learn_all(alice, small_deck)
    plan_for(alice, days=1, budget=30, target=99)
    _limit_new(alice, 2)
    client.force_login(alice)
    client.get("/study/")
    small = queries_of_get(client, "/study/")
    _grow(small_deck, 45)
    learn_all(alice, SimpleNamespace(cards=small_deck.cards.filter(slug__startswith="extra-1")))
    assert len(interview.interview_plan(alice).new_today) > 5
    assert queries_of_get(client, "/study/") == small


def test_the_index_query_count_with_a_plan_is_pinned(
    client, alice, small_deck, django_assert_num_queries
):
    plan_for(alice, days=1, budget=30, target=99)
    _limit_new(alice, 1)
    client.force_login(alice)
    client.get("/study/")
    # session, user, profile; decks; the day's counts; due counts per deck; the plan once
    # (fitted parameters, states, cards, reviews); the whole queue in one statement; suspended
    # cards. 13 at 816885c: the queue's first card and its counts in two statements. Then the
    # guided path behind the one next step: sections, cards learned, sections read, checkpoint
    # questions, knowledge checks (5); the interview's step reads the same plan.
    with django_assert_num_queries(17):
        client.get("/study/")


def _counting(monkeypatch):
    built = []
    original = interview._interview_plan

    def counted(*args, **kwargs):
        built.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(interview, "_interview_plan", counted)
    return built


@pytest.mark.parametrize("url", ["/study/", "/study/review/", "/study/plan/", "/api/study/queue/"])
def test_one_request_builds_the_plan_once(client, alice, small_deck, monkeypatch, url):
    plan_for(alice, days=1, budget=30, target=99)
    _limit_new(alice, 0)  # the review page is done at once: its done screen counts the plan
    client.force_login(alice)
    built = _counting(monkeypatch)
    response = client.get(url)
    assert response.status_code == 200
    if url == "/study/review/":
        assert "introduces 5 more new cards" in response.content.decode()
    assert len(built) == 1


def test_a_grade_shows_at_once_after_a_plan_was_built(client, alice, small_deck):
    """The plan built in one request is not the next one's: a grade leaves today's plan."""
    learn_all(alice, small_deck)
    plan_for(alice, days=1, budget=30, target=99)
    client.force_login(alice)
    planned = interview.planned_today(alice)
    assert planned
    body = client.get("/api/study/queue/").json()
    first = next(c["id"] for c in body["cards"] if c["for_interview"])
    client.post("/study/review/", {"card": first, "grade": 4, "for_interview": "1"})
    assert first not in interview.planned_today(alice)
    body = client.get("/api/study/queue/").json()
    assert first not in [c["id"] for c in body["cards"] if c["for_interview"]]
    assert first not in [c.pk for c in interview.interview_plan(alice).today_cards]
