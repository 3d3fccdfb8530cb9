"""Reviews made offline and synced later (issue 32), through POST /api/reviews/ as a device sends
them: each with its moment (reviewed_at) and what it knew of the card (based_on)."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import Profile
from apps.study import scheduler
from apps.study.memory import MemoryModel
from apps.study.models import CardState, ReviewLog
from apps.study.scheduler import CardSchedule
from apps.study.services import review_record

pytestmark = pytest.mark.django_db
REVIEWS = "/api/reviews/"


def iso(moment):
    return moment.isoformat()


def device(user):
    """A device of `user`: its own API client (token-less, as the page's session would be)."""
    client = APIClient()
    client.force_authenticate(user)
    return client


def sync(client, card, grade, at, based_on="absent", client_id=None, **extra):
    body = {"card": card.pk, "grade": grade, "client_id": client_id or str(uuid.uuid4()),
            "reviewed_at": iso(at), **extra}  # fmt: skip
    if based_on != "absent":
        body["based_on"] = iso(based_on) if based_on is not None else None
    return client.post(REVIEWS, body, format="json")


def snapshot(user):
    rows = CardState.objects.filter(user=user)
    states = {s.card_id: (s.schedule, s.memory, s.leech) for s in rows}
    logs = list(ReviewLog.objects.filter(user=user).order_by("id").values())
    return states, logs


@pytest.fixture
def task(small_deck):
    return small_deck.cards.get(slug="ray-task")


@pytest.fixture
def day0():
    """09:00 UTC three days ago: the first review of the stories below."""
    today = timezone.now().astimezone(UTC).replace(hour=9, minute=0, second=0, microsecond=0)
    return today - timedelta(days=3)


@pytest.fixture
def learnt(alice, task, day0):
    """alice reviewed the card online three days ago with 4: due a day later."""
    log, _ = review_record(user=alice, card=task, grade=4, now=day0)
    return log


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("future", ["is in the future", "60 seconds"]),
        ("too_old", ["is older than 7 days", "the oldest moment taken now is"]),
        ("before_based_on", ["is before based_on"]),
        ("before_last_review", ["is before this card's last review at", "send based_on"]),
    ],
)
def test_a_moment_out_of_bounds_is_refused_with_the_moment_and_the_bound(
    alice, task, learnt, day0, case, words
):
    now = timezone.now()
    at, based_on = {
        "future": (now + timedelta(minutes=2), day0),
        "too_old": (now - timedelta(days=7, minutes=1), "absent"),
        "before_based_on": (day0 + timedelta(days=1), day0 + timedelta(days=2)),
        "before_last_review": (day0 - timedelta(hours=1), "absent"),
    }[case]
    before = snapshot(alice)
    response = sync(device(alice), task, 4, at, based_on)
    assert response.status_code == 400
    (message,) = response.json()["reviewed_at"]
    assert at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") in message
    for word in words:
        assert word in message
    assert response.json()["error"] == f"reviewed_at: {message}"
    assert snapshot(alice) == before  # nothing changed


def test_a_moment_needs_its_utc_offset(alice, task):
    response = device(alice).post(
        REVIEWS, {"card": task.pk, "grade": 4, "reviewed_at": "2026-12-01T09:30:00"}, format="json"
    )
    assert response.status_code == 400
    assert "has no UTC offset" in response.json()["reviewed_at"][0]
    assert not ReviewLog.objects.exists()


def test_the_hold_days_come_from_the_setting(alice, task, learnt, day0, settings):
    settings.RAYDECK_OFFLINE_HOLD_DAYS = 1
    response = sync(device(alice), task, 4, day0 + timedelta(days=1, hours=1), day0)
    assert response.status_code == 400
    assert "older than 1 days" in response.json()["reviewed_at"][0]


def test_sm2_is_applied_at_the_moment_as_an_online_review_then_would(alice, task, learnt, day0):
    at = day0 + timedelta(days=2, hours=3)  # due since yesterday
    response = sync(device(alice), task, 5, at, day0)
    assert response.status_code == 201
    body = response.json()
    assert body["conflict"] is None
    expected = scheduler.review(scheduler.review(scheduler.new_state(day0), 4, day0), 5, at)
    state = CardState.objects.get(user=alice, card=task)
    assert state.schedule == expected
    assert body["state"]["due_at"] == iso(expected.due_at).replace("+00:00", "Z")
    log = ReviewLog.objects.get(pk=body["id"])
    assert log.reviewed_at == at and log.kind == "review"
    # FSRS memory at that moment's local day too
    model = MemoryModel()
    memory = model.reviewed(model.reviewed(None, 4, day0.date()), 5, at.date())
    assert state.memory == memory


def test_the_due_check_is_at_the_moment(alice, task, learnt, day0):
    # Due a day after day0: six hours after it, the card was not due yet.
    response = sync(device(alice), task, 4, day0 + timedelta(hours=6), day0)
    assert response.status_code == 409
    assert "is not due until" in response.json()["error"]
    assert ReviewLog.objects.count() == 1


def test_two_devices_in_crossed_order_keep_both_and_replay_in_time_order(alice, task, learnt, day0):
    phone, laptop = device(alice), device(alice)
    t1, t2 = day0 + timedelta(days=1, hours=2), day0 + timedelta(days=2, hours=5)
    later = sync(laptop, task, 3, t2, day0)  # the laptop's later review arrives first
    assert later.status_code == 201 and later.json()["conflict"] is None
    earlier = sync(phone, task, 1, t1, day0)  # the phone had graded it before, offline
    assert earlier.status_code == 201
    conflict = earlier.json()["conflict"]
    assert conflict["card"] == task.pk
    assert "ray-task" in conflict["message"] and "another device" in conflict["message"]
    assert ReviewLog.objects.filter(user=alice).count() == 3
    steps = scheduler.replay(None, [(day0, 4), (t2, 3), (t1, 1)])
    state = CardState.objects.get(user=alice, card=task)
    assert state.schedule == steps[-1][1]
    # every log row says what it did in time order: state_before is the previous row's after
    logs = list(ReviewLog.objects.filter(user=alice).order_by("reviewed_at"))
    assert [log.reviewed_at for log in logs] == [day0, t1, t2]
    for log, (before, after) in zip(logs, steps, strict=True):
        assert log.state_before == (before.as_json() if before else None)
        assert log.state_after == after.as_json()
    assert logs[1].conflict and not logs[2].conflict
    # the lapse at t1 came after a success, so it counts
    assert state.lapses == 1 == logs[2].state_after["lapses"]
    # FSRS memory is the replay in time order too
    model = MemoryModel()
    assert state.memory == model.replayed([(4, day0.date()), (1, t1.date()), (3, t2.date())])


def test_a_review_on_a_card_new_to_the_device_but_known_here_is_merged(alice, task, learnt, day0):
    at = day0 - timedelta(hours=2)  # before the online review
    response = sync(device(alice), task, 5, at, None)
    assert response.status_code == 201 and response.json()["conflict"]["card"] == task.pk
    first, second = ReviewLog.objects.filter(user=alice).order_by("reviewed_at")
    assert first.reviewed_at == at and first.kind == "new" and first.state_before is None
    assert second.kind == "redrill"  # it was the first review; now a second one that day
    state = CardState.objects.get(user=alice, card=task)
    assert state.schedule == scheduler.replay(None, [(at, 5), (day0, 4)])[-1][1]
    assert state.introduced_at == at


def test_the_same_client_id_again_is_200_with_the_same_body(alice, task, learnt, day0):
    phone, laptop = device(alice), device(alice)
    plain_id, merged_id = str(uuid.uuid4()), str(uuid.uuid4())
    t1, t2 = day0 + timedelta(days=1, hours=2), day0 + timedelta(days=2, hours=5)
    plain = sync(laptop, task, 4, t2, day0, client_id=plain_id)
    merged = sync(phone, task, 3, t1, day0, client_id=merged_id)
    assert (plain.status_code, merged.status_code) == (201, 201)
    rows = ReviewLog.objects.count()
    # a sync cut off and resumed sends both again
    again_merged = sync(phone, task, 3, t1, day0, client_id=merged_id)
    assert again_merged.status_code == 200 and again_merged.json() == merged.json()
    again_plain = sync(laptop, task, 4, t2, day0, client_id=plain_id)
    assert again_plain.status_code == 200
    assert again_plain.json()["id"] == plain.json()["id"]
    # its body's state is its row's as the replay rewrote it (the phone's review landed before)
    stored = ReviewLog.objects.get(pk=plain.json()["id"]).state_after
    again_state = again_plain.json()["state"]
    assert (again_state["interval_days"], again_state["repetitions"]) == (
        stored["interval_days"], stored["repetitions"],
    )  # fmt: skip
    assert ReviewLog.objects.count() == rows


def test_undo_of_a_synced_review_restores_the_state_before_it(alice, task, learnt, day0):
    before = CardState.objects.get(user=alice, card=task).schedule
    assert sync(device(alice), task, 5, day0 + timedelta(days=1, hours=1), day0).status_code == 201
    response = device(alice).post("/api/reviews/undo/")
    assert response.status_code == 200
    assert CardState.objects.get(user=alice, card=task).schedule == before
    assert response.json()["restored"]["interval_days"] == before.interval_days


def test_undo_after_a_replay_restores_the_replay_of_what_is_left(alice, task, learnt, day0):
    t1, t2 = day0 + timedelta(days=1, hours=2), day0 + timedelta(days=2, hours=5)
    assert sync(device(alice), task, 3, t2, day0).status_code == 201
    assert sync(device(alice), task, 1, t1, day0).status_code == 201  # merged before t2
    response = device(alice).post("/api/reviews/undo/")  # the latest recorded: t1's
    assert response.status_code == 200 and response.json()["reviewed_at"].startswith(
        t1.strftime("%Y-%m-%dT%H")
    )
    left = scheduler.replay(None, [(day0, 4), (t2, 3)])
    state = CardState.objects.get(user=alice, card=task)
    assert state.schedule == left[-1][1]
    assert response.json()["restored"]["repetitions"] == left[-1][1].repetitions
    t2_log = ReviewLog.objects.get(user=alice, reviewed_at=t2)
    assert t2_log.state_before == left[0][1].as_json()
    assert state.memory == MemoryModel().replayed([(4, day0.date()), (3, t2.date())])
    # and the next undo takes t2's, back to the online review's state
    assert device(alice).post("/api/reviews/undo/").status_code == 200
    assert CardState.objects.get(user=alice, card=task).schedule == left[0][1]


def test_a_replay_that_makes_a_leech_flags_it_and_its_undo_clears_it(alice, task, learnt, day0):
    Profile.objects.filter(user=alice).update(leech_threshold=1)
    alice._state.fields_cache.pop("profile", None)
    t1, t2 = day0 + timedelta(days=1, hours=2), day0 + timedelta(days=1, hours=5)
    assert sync(device(alice), task, 5, t2, day0).status_code == 201
    assert sync(device(alice), task, 0, t1, day0).status_code == 201  # a lapse, merged
    state = CardState.objects.get(user=alice, card=task)
    assert state.lapses == 1 and state.leech
    assert device(alice).post("/api/reviews/undo/").status_code == 200
    state = CardState.objects.get(user=alice, card=task)
    assert state.lapses == 0 and not state.leech


def test_an_interview_review_synced_is_applied_at_its_moment(alice, task, learnt, day0):
    Profile.objects.filter(user=alice).update(
        interview_date=timezone.localdate() + timedelta(days=5), interview_mode=True
    )
    alice._state.fields_cache.pop("profile", None)
    before = CardState.objects.get(user=alice, card=task)
    at = day0 + timedelta(hours=6)  # not due in SM-2 then: a plan-mode review at that moment
    response = sync(device(alice), task, 4, at, day0, for_interview=True)
    assert response.status_code == 201, response.content
    log = ReviewLog.objects.get(pk=response.json()["id"])
    assert (log.kind, log.reviewed_at) == ("plan", at)
    state = CardState.objects.get(user=alice, card=task)
    assert state.schedule == before.schedule
    assert state.memory == MemoryModel().reviewed(before.memory, 4, at.date())
    # a due moment: SM-2's own review at that moment
    at2 = day0 + timedelta(days=1, hours=6)
    response = sync(device(alice), task, 5, at2, day0, for_interview=True)
    assert response.status_code == 201
    assert CardState.objects.get(user=alice, card=task).schedule == scheduler.review(
        before.schedule, 5, at2
    )


def session_grade_queries(client, body) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.post(REVIEWS, body, content_type="application/json")
    assert response.status_code == 201, response.content
    return len(ctx.captured_queries), [q["sql"] for q in ctx.captured_queries]


@pytest.mark.parametrize("moment", [False, True])
def test_the_grade_post_with_session_auth_costs_eight_queries_in_a_test(
    client, alice, task, learnt, day0, moment
):
    """Inside the test's transaction: session, user, profile; a savepoint, one statement that
    locks the learner and the state and reads them with the card and the FSRS parameters, the
    state's update, the log's insert, the release. Outside tests the savepoint and its release
    are the transaction's BEGIN and COMMIT (which Django's query log does not list): 6."""
    client.force_login(alice)
    body = {"card": task.pk, "grade": 4, "client_id": str(uuid.uuid4())}
    if moment:
        body |= {"reviewed_at": iso(day0 + timedelta(days=1, hours=1)), "based_on": iso(day0)}
    count, sql = session_grade_queries(client, body)
    assert count == 8, "\n".join(sql)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("moment", [False, True])
def test_the_grade_post_with_session_auth_sends_six_statements(client, django_user_model, moment):
    """As production runs it (no test transaction around the request): at most 6 statements
    besides BEGIN and COMMIT (which SQLite's backend logs and PostgreSQL's does not)."""
    from tests.conftest import _user  # the named world, built here without the db fixture

    alice = _user(django_user_model, "alice", None)
    from apps.decks.models import Card, Deck, Section

    deck = Deck.objects.create(slug="d", title="D")
    section = Section.objects.create(deck=deck, slug="s", title="S")
    card = Card.objects.create(deck=deck, section=section, slug="c", front="f", back="b")
    then = timezone.now() - timedelta(days=3)
    review_record(user=alice, card=card, grade=4, now=then)
    client.force_login(alice)
    body = {"card": card.pk, "grade": 4, "client_id": str(uuid.uuid4())}
    if moment:
        body |= {"reviewed_at": iso(then + timedelta(days=1, hours=1)), "based_on": iso(then)}
    _, sql = session_grade_queries(client, body)
    statements = [s for s in sql if not s.strip().upper().startswith(("BEGIN", "COMMIT"))]
    assert len(statements) == 6, "\n".join(sql)


def test_replay_helpers_agree_with_the_stored_schedule_type():
    # the replay's states are the scheduler's own (a sanity check the tests above lean on)
    at = datetime(2026, 1, 5, 9, tzinfo=UTC)
    ((before, after),) = scheduler.replay(None, [(at, 4)])
    assert before is None and isinstance(after, CardSchedule)


@pytest.mark.django_db(transaction=True)
def test_two_devices_syncing_one_card_at_once_keep_both_in_time_order(django_user_model):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL row locks (CI runs it with DATABASE_URL=postgres://...)")
    import threading

    from apps.decks.models import Card, Deck, Section
    from tests.conftest import _user

    alice = _user(django_user_model, "alice", None)
    deck = Deck.objects.create(slug="d", title="D")
    section = Section.objects.create(deck=deck, slug="s", title="S")
    card = Card.objects.create(deck=deck, section=section, slug="c", front="f", back="b")
    day0 = timezone.now() - timedelta(days=3)
    review_record(user=alice, card=card, grade=4, now=day0)
    t1, t2 = day0 + timedelta(days=1, hours=2), day0 + timedelta(days=2, hours=5)
    barrier = threading.Barrier(2)
    statuses, errors = [], []

    def send(grade, at):
        from django.db import connection as thread_connection

        try:
            client = device(alice)
            barrier.wait()
            statuses.append(sync(client, card, grade, at, day0).status_code)
        except Exception as exc:  # noqa: BLE001 - the assertion below shows what went wrong
            errors.append(exc)
        finally:
            thread_connection.close()

    threads = [threading.Thread(target=send, args=args) for args in ((1, t1), (3, t2))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and statuses == [201, 201]
    logs = list(ReviewLog.objects.filter(user=alice).order_by("reviewed_at"))
    assert [log.grade for log in logs] == [4, 1, 3]
    steps = scheduler.replay(None, [(day0, 4), (t1, 1), (t2, 3)])
    assert CardState.objects.get(user=alice, card=card).schedule == steps[-1][1]
    for log, (_, after) in zip(logs, steps, strict=True):
        assert log.state_after == after.as_json()


@pytest.mark.django_db(transaction=True)
def test_a_grade_waits_for_the_learners_lock_before_it_locks_the_state(django_user_model):
    """Undo and plan-mode grades lock the learner, then the state: a grade must lock in the same
    order (its one statement names the learner first), or a grade and an undo deadlock."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL row locks (CI runs it with DATABASE_URL=postgres://...)")
    import threading

    from django.db import transaction

    from apps.decks.models import Card, Deck, Section
    from apps.study.services import learner_lock
    from tests.conftest import _user

    alice = _user(django_user_model, "alice", None)
    deck = Deck.objects.create(slug="d", title="D")
    section = Section.objects.create(deck=deck, slug="s", title="S")
    card = Card.objects.create(deck=deck, section=section, slug="c", front="f", back="b")
    review_record(user=alice, card=card, grade=4, now=timezone.now() - timedelta(days=3))
    held, release, graded = threading.Event(), threading.Event(), []

    def hold():
        from django.db import connection as thread_connection

        with transaction.atomic():
            learner_lock(alice)
            held.set()
            release.wait(10)
        thread_connection.close()

    def grade():
        from django.db import connection as thread_connection

        graded.append(review_record(user=alice, card=card.pk, grade=5)[1])
        thread_connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    grader = threading.Thread(target=grade)
    grader.start()
    import time

    time.sleep(0.5)  # the grade is waiting for the learner's lock now
    try:
        with transaction.atomic():  # the state is not locked meanwhile
            CardState.objects.select_for_update(nowait=True).get(user=alice, card=card)
    finally:
        release.set()
        holder.join()
        grader.join()
    assert graded == [True]


def test_based_on_to_the_millisecond_is_the_same_review(alice, task, day0):
    """A device that kept last_reviewed_at as a JavaScript Date sends it without microseconds."""
    online = day0 + timedelta(microseconds=123_456)
    review_record(user=alice, card=task, grade=4, now=online)
    as_js = online.replace(microsecond=123_000)
    response = sync(device(alice), task, 5, day0 + timedelta(days=1, hours=1), as_js)
    assert response.status_code == 201 and response.json()["conflict"] is None
