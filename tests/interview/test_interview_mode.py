"""Interview mode: while a learner has a date and the mode on, the day's queue is the interview
scheduler's (the review page, its fragment and /api/study/queue/ alike, still one queue), past
SM-2's new-card limit when the date needs it, with the due cards it does not need waiting; SM-2
resumes after the date or with the mode off, every card's SM-2 state as it was left."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.accounts.models import Profile
from apps.decks.models import Card
from apps.interview import plan as interview
from apps.interview.models import StudyPlan
from apps.study import queue, services
from apps.study.models import CardState, ReviewLog
from tests.queries import queries_of_get

pytestmark = pytest.mark.django_db
QUEUE = "/api/study/queue/"


def plan_for(user, days=10, budget=None, mode=True, **extra):
    Profile.objects.filter(user=user).update(
        interview_date=timezone.localdate() + timedelta(days=days), daily_budget_minutes=budget,
        interview_mode=mode, **extra,
    )  # fmt: skip
    fresh(user)


def fresh(user):
    """Forget the profile cached on the user object (profile_for keeps it there)."""
    user._state.fields_cache.pop("profile", None)


def learn(user, deck, slugs, days_ago=8, grade=5):
    """Review these cards `days_ago` days ago (first sights) and once more when SM-2 said."""
    then = timezone.now() - timedelta(days=days_ago)
    for slug in slugs:
        services.review_record(user=user, card=deck.cards.get(slug=slug), grade=grade, now=then)


def grow(deck, n):
    section = deck.sections.first()
    for i in range(n):
        Card.objects.create(
            deck=deck, section=section, slug=f"g-{i}", order=100 + i, front=f"Q{i}", back="A"
        )


def test_without_a_date_the_queue_is_sm2s(api_client, alice, small_deck):
    api_client.force_authenticate(alice)
    body = api_client.get(QUEUE).json()
    assert body["scheduler"] == "sm2" and "waiting" not in body["counts"]


def test_the_interview_queue_introduces_new_cards_past_the_daily_limit(
    api_client, alice, small_deck
):
    Profile.objects.filter(user=alice).update(new_cards_per_day=1)
    plan_for(alice, days=1)  # tomorrow: what the date needs comes today
    api_client.force_authenticate(alice)
    body = api_client.get(QUEUE).json()
    assert body["scheduler"] == "interview"
    assert body["counts"]["new"] == 5 and len(body["cards"]) == 5  # SM-2 would serve 1
    ip = interview.interview_plan(alice)
    assert [c["id"] for c in body["cards"]] == [card_id for card_id, _ in ip.cards]


def test_page_fragment_and_api_serve_the_same_next_card(client, api_client, alice, small_deck):
    learn(alice, small_deck, ["ray-task", "ray-actor"], days_ago=30, grade=3)
    plan_for(alice, days=3, budget=1)  # 5 reviews a day: a choice among seven
    api_client.force_authenticate(alice)
    first = api_client.get(QUEUE).json()["cards"][0]["id"]
    client.force_login(alice)
    page = client.get("/study/review/").content.decode()
    fragment = client.get("/study/review/", HTTP_HX_REQUEST="true").content.decode()
    for html in (page, fragment):
        assert f'name="card" value="{first}"' in html
        assert 'id="queue-scheduler"' in html


def test_a_card_sm2_has_not_made_due_is_graded_in_plan_mode(client, alice, small_deck):
    learn(
        alice,
        small_deck,
        ["ray-task", "ray-actor", "object-store", "rllib-algorithm", "env-runner"],
        days_ago=5,
    )
    CardState.objects.filter(user=alice).update(due_at=timezone.now() + timedelta(days=40))
    plan_for(alice, days=2, budget=20, target_recall=99)  # 90% is reached without a review
    sm2 = {s.card_id: s.schedule for s in CardState.objects.filter(user=alice)}
    client.force_login(alice)
    html = client.get("/study/review/", HTTP_HX_REQUEST="true").content.decode()
    assert 'name="for_interview" value="1"' in html  # not due: the interview asks for it
    card_pk = int(html.split('name="card" value="')[1].split('"')[0])
    response = client.post(
        "/study/review/",
        {"card": card_pk, "grade": "4", "for_interview": "1"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    log = ReviewLog.objects.get(user=alice, card_id=card_pk, kind="plan")
    assert log.state_before == log.state_after
    assert {s.card_id: s.schedule for s in CardState.objects.filter(user=alice)} == sm2
    assert f'name="card" value="{card_pk}"' not in client.get("/study/review/").content.decode()


def test_sm2_due_cards_the_date_does_not_need_wait_and_say_so(
    api_client, client, alice, small_deck
):
    learn(alice, small_deck, ["ray-task"], days_ago=3)
    CardState.objects.filter(user=alice).update(
        stability=5000.0, due_at=timezone.now() - timedelta(hours=1)
    )
    plan_for(alice, days=5)
    api_client.force_authenticate(alice)
    body = api_client.get(QUEUE).json()
    task = small_deck.cards.get(slug="ray-task").pk
    assert task not in [c["id"] for c in body["cards"]] and body["counts"]["waiting"] == 1
    client.force_login(alice)
    assert 'id="waiting-count"' in client.get("/study/review/").content.decode()
    assert "wait" in client.get("/study/plan/").content.decode()
    Profile.objects.filter(user=alice).update(interview_mode=False)  # SM-2 again: still due
    fresh(alice)
    body = api_client.get(QUEUE).json()
    assert body["scheduler"] == "sm2" and task in [c["id"] for c in body["cards"]]


def test_mode_off_or_after_the_date_sm2_resumes_with_the_states_as_left(
    api_client, alice, small_deck
):
    """A card studied in interview mode goes on under SM-2 from what its SM-2 reviews left: a
    due or new card's review was SM-2's own, a plan-mode one changed nothing of SM-2's."""
    Profile.objects.filter(user=alice).update(new_cards_per_day=2)
    plan_for(alice, days=1)
    api_client.force_authenticate(alice)
    for item in api_client.get(QUEUE).json()["cards"]:
        api_client.post(
            "/api/reviews/",
            {"card": item["id"], "grade": 4, "for_interview": item["for_interview"]},
            format="json",
        )
    left = {s.card_id: s.schedule for s in CardState.objects.filter(user=alice)}
    assert len(left) == 5  # five first sights, past the 2-a-day limit
    assert all(s.repetitions == 1 and s.interval_days == 1 for s in left.values())  # SM-2's own
    before = Profile.objects.filter(user=alice).values().get()
    api_client.patch("/api/me/profile/", {"interview_mode": False}, format="json")
    after = Profile.objects.filter(user=alice).values().get()
    assert {k: v for k, v in after.items() if k != "interview_mode"} == {
        k: v for k, v in before.items() if k != "interview_mode"
    }
    body = api_client.get(QUEUE).json()
    assert body["scheduler"] == "sm2" and body["cards"] == []  # nothing due until tomorrow
    tomorrow = timezone.now() + timedelta(days=1, hours=1)
    assert [i.kind for i in queue.queue(alice, now=tomorrow).items] == ["due"] * 5
    Profile.objects.filter(user=alice).update(
        interview_mode=True, interview_date=timezone.localdate() - timedelta(days=1)
    )  # the date is past
    fresh(alice)
    assert interview.today_choice(alice) is None
    assert {s.card_id: s.schedule for s in CardState.objects.filter(user=alice)} == left


def test_changing_the_budget_or_the_date_re_plans_at_once(client, api_client, alice, small_deck):
    grow(small_deck, 30)
    plan_for(alice, days=10, budget=1)  # 5 reviews a day
    api_client.force_authenticate(alice)
    assert len(api_client.get(QUEUE).json()["cards"]) == 5
    api_client.patch("/api/me/profile/", {"daily_budget_minutes": 2}, format="json")
    assert len(api_client.get(QUEUE).json()["cards"]) == 10
    key = StudyPlan.objects.get(user=alice).key
    api_client.patch(
        "/api/me/profile/",
        {"interview_date": str(timezone.localdate() + timedelta(days=3))},
        format="json",
    )
    api_client.get(QUEUE)
    assert StudyPlan.objects.get(user=alice).key != key


def test_the_plan_is_built_once_a_day_and_the_queue_reads_it(
    api_client, alice, small_deck, django_assert_num_queries
):
    plan_for(alice)
    api_client.force_authenticate(alice)
    api_client.get(QUEUE)  # builds and stores the day's plan
    built = StudyPlan.objects.get(user=alice).built_at
    # the stored plan (the profile is cached on the user); the cards done today; the chosen
    # cards left, seen and new (plain values)
    with django_assert_num_queries(4):
        api_client.get(QUEUE)
    assert StudyPlan.objects.get(user=alice).built_at == built


@pytest.mark.parametrize("url", ["/api/study/queue/", "/study/review/", "/study/plan/", "/study/"])
def test_the_query_count_is_flat_in_the_cards_and_reviews(client, alice, small_deck, url):
    learn(alice, small_deck, ["ray-task", "ray-actor"], days_ago=6, grade=4)
    plan_for(alice)
    client.force_login(alice)
    client.get(url)
    few = queries_of_get(client, url)
    grow(small_deck, 60)
    learn(alice, small_deck, [f"g-{i}" for i in range(40)], days_ago=6, grade=4)
    StudyPlan.objects.filter(user=alice).delete()
    client.get(url)
    assert queries_of_get(client, url) == few


def test_the_plan_page_says_today_how_ready_and_what_would_change_it(client, alice, small_deck):
    learn(alice, small_deck, ["ray-task", "ray-actor"], days_ago=4)
    plan_for(alice, days=6, budget=1)
    client.force_login(alice)
    html = client.get("/study/plan/").content.decode()
    line = interview.today_line(alice)
    assert (
        'id="today-line"' in html
        and f'study <strong id="today-cards">{line.cards_today}</strong>' in html
    )
    assert "+10 min a day" in html and "the date 7 days later" in html
    assert line.now <= line.followed <= line.more_time
    assert 'id="plan-sections"' in html and "Ray core" in html
    home = client.get("/").content.decode()
    assert 'id="today-line"' in home
    # the deck's SM-2 counts are labelled as SM-2's: interview mode serves other cards today
    assert "SM-2 would show" in home.split('class="deck-due"')[1].split("</p>")[0]


def test_without_a_date_or_with_the_mode_off_there_is_no_plan(client, alice, small_deck):
    client.force_login(alice)
    assert "No interview date is set" in client.get("/study/plan/").content.decode()
    assert client.get("/api/study/plan/").status_code == 404
    plan_for(alice, mode=False)
    assert "Interview mode is off" in client.get("/study/plan/").content.decode()
    assert client.get("/api/study/plan/").status_code == 404


def test_the_plan_api_is_the_pages_plan(client, alice, small_deck):
    learn(alice, small_deck, ["ray-task"], days_ago=4)
    plan_for(alice, days=6, budget=1)
    client.force_login(alice)
    body = client.get("/api/study/plan/").json()
    line = interview.today_line(alice)
    assert body["recall"]["followed"] == line.followed and body["recall"]["now"] == line.now
    assert body["days_until"] == 6 and len(body["days"]) == 6
    assert body["reviews_per_day"] == 5 and body["days"][0]["planned"] == line.cards_today
    assert {s["section"] for s in body["recall"]["sections"]} == {"ray-core", "rllib"}
    assert body["today_cards"] == [c for c, _ in interview.interview_plan(alice).cards]


def test_readiness_on_the_team_pages_is_the_plans_now(alice, bob, small_deck):
    learn(alice, small_deck, ["ray-task", "ray-actor"], days_ago=4)
    plan_for(alice, days=6)
    ready = interview.interview_readiness([alice.pk, bob.pk], deck_id=small_deck.pk, card_count=5)
    assert ready[bob.pk].interview_date is None and ready[bob.pk].predicted_recall is None
    assert ready[alice.pk].predicted_recall == pytest.approx(interview.today_line(alice).now)
    assert 0 < ready[alice.pk].predicted_recall < 2 / 5


def test_a_learners_own_cards_are_planned_served_and_counted_on_the_day(
    api_client, alice, small_deck
):
    """Cards a learner made for the interview are in its plan from the start (studied or not),
    the one queue serves them, and the predicted recall on the day counts them once reviewed."""
    from apps.authoring.services.own import own_deck_create

    mine = own_deck_create(user=alice, title="Mock interview questions")
    own = Card.objects.create(
        deck=mine, section=mine.sections.first(), slug="ask-me", order=1,
        front="What does a placement group's STRICT_PACK demand?", back="One node for all bundles",
    )  # fmt: skip
    learn(alice, small_deck, ["ray-task", "ray-actor", "object-store"], days_ago=30)
    plan_for(alice, days=1)
    api_client.force_authenticate(alice)
    served = [c["id"] for c in api_client.get(QUEUE).json()["cards"]]
    assert own.pk in served
    ip = interview.interview_plan(alice)
    before = interview.recall_now(alice, ip)
    services.review_record(user=alice, card=own, grade=5)
    assert interview.recall_now(alice, ip) > before  # its memory counts on the day
