"""Sibling burying, as a learner lives it: the cards of one cloze or reverse note are not
introduced on the same day, a review buries its note's new cards until tomorrow, an undo
un-buries them, due siblings are still served (just not right after each other), and what the
API and the review page count is what they serve."""

import contextlib
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.accounts.models import profile_for
from apps.decks.models import Card, Deck, Section
from apps.study import compiled_sql, queue, selectors
from apps.study.models import CardState, NewCardCursor, ReviewLog
from apps.study.services import StudyError, card_suspend, review_record, review_undo
from tests.study.queue_reference import reference_queue

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
CLOZE = "Ray's {{c1::tasks}} are stateless, its {{c2::actors}} keep state in {{c3::a worker}}."


@pytest.fixture
def notes_deck(db) -> Deck:
    """A cloze note of three deletions, a reverse note, then ten basic cards, in that order."""
    deck = Deck.objects.create(slug="notes", title="Notes")
    part = Section.objects.create(deck=deck, slug="s", title="S")
    for n in (1, 2, 3):
        Card.objects.create(
            deck=deck, section=part, slug=f"ray-cloze-c{n}", order=0, kind="cloze",
            note_slug="ray-cloze", ordinal=n, front=CLOZE, back="",
        )  # fmt: skip
    for n, slug in ((1, "actor"), (2, "actor-reverse")):
        Card.objects.create(
            deck=deck, section=part, slug=slug, order=1, kind="reverse", note_slug="actor",
            ordinal=n, front="A Ray actor", back="A stateful worker process",
        )  # fmt: skip
    for i in range(10):
        Card.objects.create(deck=deck, section=part, slug=f"b{i}", order=2 + i, front="f", back="b")
    return deck


def by_slug(deck, slug) -> Card:
    return deck.cards.get(slug=slug)


def kinds(q) -> list[tuple[str, str]]:
    return [(item.kind, item.card.slug) for item in q.items]


def new_slugs(q) -> list[str]:
    return [item.card.slug for item in q.items if item.kind == "new"]


def agrees_with_reference(user, deck, now) -> queue.Queue:
    """The whole queue equals its reference, and the sized queue counts as the whole one."""
    whole = queue.queue(user, deck, now=now)
    items, counts, limits = reference_queue(user, deck, now=now)
    got = [(i.kind, i.card.slug, i.state.pk if i.state else None) for i in whole.items]
    assert (got, whole.counts, whole.limits) == (items, counts, limits)
    sized = queue.queue(user, deck, size=1, now=now)
    assert sized.counts == whole.counts
    assert kinds(sized) == kinds(whole)[:1]
    return whole


def study_the_day(user, deck, now) -> list[str]:
    """Grade every card the queue serves today, in its order, Good (4), as the review page
    does (the next card asked for after each grade); the new cards introduced, in order."""
    introduced = []
    for step in range(100):
        at = now + timedelta(minutes=step)
        q = agrees_with_reference(user, deck, at)
        if not q.items:
            return introduced
        card = Card.objects.get(pk=q.items[0].card.pk)
        if q.items[0].kind == "new":
            introduced.append(card.slug)
        review_record(user=user, card=card, grade=4, now=at)
    raise AssertionError("the day never ended")


def test_a_cloze_note_introduces_one_deletion_a_day_and_the_limit_is_still_met(alice, notes_deck):
    profile = profile_for(alice)
    profile.new_cards_per_day = 5
    profile.save()
    first = queue.queue(alice, notes_deck, now=T0)
    # one card of each note, then basic cards in the buried ones' places: still 5 new
    assert new_slugs(first) == ["ray-cloze-c1", "actor", "b0", "b1", "b2"]
    assert first.counts == {"redrill": 0, "due": 0, "new": 5}
    days = {}
    for day in range(8):
        introduced = study_the_day(alice, notes_deck, T0 + timedelta(days=day))
        days[day] = introduced
        notes = [slug.rsplit("-c", 1)[0] for slug in introduced if slug.startswith("ray-cloze")]
        assert len(notes) <= 1, (day, introduced)  # never two deletions on one day
        assert not {"actor", "actor-reverse"} <= set(introduced), (day, introduced)
    when = {slug: day for day, slugs in days.items() for slug in slugs}
    assert when["ray-cloze-c1"] == 0
    assert when["ray-cloze-c1"] < when["ray-cloze-c2"] < when["ray-cloze-c3"]
    assert when["actor"] == 0 < when["actor-reverse"]
    assert days[0] == ["ray-cloze-c1", "actor", "b0", "b1", "b2"]
    # day 1: c1 and the forward come due and are reviewed first, burying c2 and the reverse:
    # five basic cards take their places
    assert days[1] == ["b3", "b4", "b5", "b6", "b7"]
    assert days[2] == ["ray-cloze-c2", "actor-reverse", "b8", "b9"]  # all that is not buried
    assert days[3] == []  # c2 came due and was reviewed: c3 waits again
    assert days[4] == ["ray-cloze-c3"]
    assert sorted(when) == sorted(notes_deck.cards.values_list("slug", flat=True))


def test_grading_the_forward_buries_the_new_reverse_until_tomorrow(alice, notes_deck):
    forward = by_slug(notes_deck, "actor")
    review_record(user=alice, card=forward, grade=4, now=T0)
    q = agrees_with_reference(alice, notes_deck, T0 + timedelta(minutes=1))
    assert "actor-reverse" not in new_slugs(q)
    assert q.counts["buried"] == 1  # the reverse (the cloze deletions wait for their first)
    later = agrees_with_reference(alice, notes_deck, T0 + timedelta(hours=14))  # 23:00 UTC
    assert "actor-reverse" not in new_slugs(later)
    tomorrow = agrees_with_reference(alice, notes_deck, T0 + timedelta(hours=15))
    assert ("due", "actor") in kinds(tomorrow) and "actor-reverse" in new_slugs(tomorrow)
    assert "buried" not in tomorrow.counts


def test_tomorrow_is_the_learners_local_day(alice, notes_deck):
    profile = profile_for(alice)
    profile.time_zone = "America/Los_Angeles"  # 09:00 UTC is 01:00 in Los Angeles
    profile.save()
    review_record(user=alice, card=by_slug(notes_deck, "actor"), grade=4, now=T0)
    # 07:59 UTC the next day is still the same local day (23:59 in Los Angeles)
    still_today = agrees_with_reference(alice, notes_deck, T0 + timedelta(hours=22, minutes=59))
    assert "actor-reverse" not in new_slugs(still_today)
    tomorrow = agrees_with_reference(alice, notes_deck, T0 + timedelta(hours=23))
    assert "actor-reverse" in new_slugs(tomorrow)


def test_an_undone_review_unburies_its_siblings(alice, notes_deck):
    forward = by_slug(notes_deck, "actor")
    review_record(user=alice, card=forward, grade=4, now=T0)
    day1 = T0 + timedelta(days=1)
    assert "actor-reverse" in new_slugs(queue.queue(alice, notes_deck, now=day1))
    review_record(user=alice, card=forward, grade=4, now=day1)  # the due forward, reviewed
    assert "actor-reverse" not in new_slugs(agrees_with_reference(alice, notes_deck, day1))
    review_undo(user=alice, now=day1)
    back = agrees_with_reference(alice, notes_deck, day1)
    assert ("due", "actor") in kinds(back) and "actor-reverse" in new_slugs(back)
    # undoing the forward's first review: it is new again and leads its note, the reverse waits
    review_undo(user=alice, now=day1)
    fresh = agrees_with_reference(alice, notes_deck, day1)
    assert "actor" in new_slugs(fresh) and "actor-reverse" not in new_slugs(fresh)
    assert "buried" not in fresh.counts


def test_a_due_sibling_is_served_but_not_right_after_its_sibling(alice, notes_deck):
    forward, reverse = by_slug(notes_deck, "actor"), by_slug(notes_deck, "actor-reverse")
    review_record(user=alice, card=forward, grade=4, now=T0)
    review_record(user=alice, card=reverse, grade=4, now=T0 + timedelta(days=1))
    review_record(user=alice, card=by_slug(notes_deck, "b0"), grade=4, now=T0 + timedelta(days=1))
    day = T0 + timedelta(days=2)  # forward (due day 1), reverse and b0 (due day 2): all due
    q = agrees_with_reference(alice, notes_deck, day)
    assert kinds(q)[:3] == [("due", "actor"), ("due", "actor-reverse"), ("due", "b0")]
    review_record(user=alice, card=forward, grade=4, now=day)
    # the whole queue still holds the reverse: due cards are never buried
    assert ("due", "actor-reverse") in kinds(agrees_with_reference(alice, notes_deck, day))
    # the review page's next card, after the forward: b0, then the reverse
    nxt = queue.queue(alice, notes_deck, size=1, avoid=forward, now=day)
    assert kinds(nxt) == [("due", "b0")] and nxt.counts["due"] == 2
    whole = queue.queue(alice, notes_deck, avoid=forward, now=day)
    assert kinds(whole)[:2] == [("due", "b0"), ("due", "actor-reverse")]
    review_record(user=alice, card=by_slug(notes_deck, "b0"), grade=4, now=day)
    alone = queue.queue(alice, notes_deck, size=1, avoid=by_slug(notes_deck, "b0"), now=day)
    assert kinds(alone) == [("due", "actor-reverse")]
    # nothing but the sibling left: it comes, after all
    for card in notes_deck.cards.exclude(note_slug="actor"):
        card_suspend(user=alice, card=card)
    last = queue.queue(alice, notes_deck, size=1, avoid=forward, now=day)
    assert kinds(last) == [("due", "actor-reverse")]


def test_the_page_without_htmx_keeps_a_due_sibling_off_its_pair_too(client, alice, notes_deck):
    forward, reverse = by_slug(notes_deck, "actor"), by_slug(notes_deck, "actor-reverse")
    now = timezone.now()
    review_record(user=alice, card=forward, grade=4, now=now - timedelta(days=2))
    review_record(user=alice, card=reverse, grade=4, now=now - timedelta(days=1))
    review_record(user=alice, card=by_slug(notes_deck, "b0"), grade=4, now=now - timedelta(days=1))
    client.force_login(alice)
    html = client.get("/study/review/notes/").content.decode()
    assert f'name="card" value="{forward.pk}"' in html
    client_id = re.search(r'name="client_id" value="([^"]+)"', html).group(1)
    graded = client.post(
        "/study/review/notes/", {"card": forward.pk, "client_id": client_id, "grade": "4"}
    )
    html = client.get(graded["Location"]).content.decode()
    assert f'name="card" value="{by_slug(notes_deck, "b0").pk}"' in html  # not the reverse


def test_the_api_and_the_review_page_count_what_they_serve(alice, api_client, client, notes_deck):
    profile = profile_for(alice)
    profile.new_cards_per_day = 5
    profile.save()
    review_record(user=alice, card=by_slug(notes_deck, "ray-cloze-c1"), grade=4)
    api_client.force_authenticate(alice)
    body = api_client.get("/api/study/queue/?deck=notes").json()
    served = [c["slug"] for c in body["cards"]]
    assert served == ["actor", "b0", "b1", "b2"]  # one of today's five was c1
    assert body["counts"] == {"redrill": 0, "due": 0, "new": 4, "buried": 2}
    assert body["limits"] == {"new": 4, "due": 200}
    client.force_login(alice)
    html = client.get("/study/review/notes/").content.decode()
    assert "4 new" in html and "2 buried" in html


def test_the_cached_sql_buries_as_the_queryset_does(alice, bob, notes_deck, monkeypatch):
    connections[DEFAULT_DB_ALIAS].__dict__.pop("_study_queue_sql", None)
    review_record(user=alice, card=by_slug(notes_deck, "actor"), grade=4, now=T0)
    review_record(user=alice, card=by_slug(notes_deck, "ray-cloze-c2"), grade=4, now=T0)
    for user in (alice, bob):
        for deck in (notes_deck, None):
            for when in (T0, T0 + timedelta(days=1)):
                for size in (None, 1, 3):
                    cached = queue.queue(user, deck, size=size, now=when)
                    with monkeypatch.context() as patch:
                        patch.setattr(compiled_sql, "CACHE_SQL", False)
                        fresh = queue.queue(user, deck, size=size, now=when)
                    assert (kinds(cached), cached.counts) == (kinds(fresh), fresh.counts)


ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.integers(0, 3), st.integers(0, 14), st.integers(0, 5)),  # day, card, grade
        st.just("undo"),
    ),
    max_size=12,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(actions=ACTIONS, new_limit=st.integers(0, 6))
def test_any_history_is_buried_as_the_reference_buries(alice, notes_deck, actions, new_limit):
    """Whatever the learner graded and undid, on whichever days: the queue (whole and sized, in
    the deck and across decks) is its reference, burying siblings included."""
    CardState.objects.filter(user=alice).delete()
    ReviewLog.objects.filter(user=alice).delete()
    NewCardCursor.objects.filter(user=alice).delete()
    profile = profile_for(alice)
    profile.new_cards_per_day = new_limit
    profile.save()
    cards = list(notes_deck.cards.order_by("id"))
    graded = [a for a in actions if a != "undo"]
    days = iter(sorted(day for day, _, _ in graded))
    now = T0
    for n, action in enumerate(actions):
        if action == "undo":
            with contextlib.suppress(StudyError):
                review_undo(user=alice, now=now)
        else:
            now = T0 + timedelta(days=next(days), minutes=n)
            _, card, grade = action
            with contextlib.suppress(StudyError):
                review_record(user=alice, card=cards[card], grade=grade, now=now)
        for deck in (notes_deck, None):
            agrees_with_reference(alice, deck, now + timedelta(seconds=1))


# --- what the study pages count, once siblings are buried ---------------------------------


def index_new(client) -> str:
    html = client.get("/study/").content.decode()
    return html.split("Today:", 1)[1].split("new", 1)[0]


def test_the_study_index_counts_the_new_cards_the_queue_serves(client, alice, notes_deck):
    client.force_login(alice)
    served = queue.queue(alice, notes_deck).counts["new"]
    assert served == 12  # the cloze's c1, the reverse's forward and ten basic cards
    assert selectors.due_counts(alice)[notes_deck.pk]["new"] == served
    assert "<strong>12</strong>" in index_new(client)

    review_record(user=alice, card=by_slug(notes_deck, "ray-cloze-c1"), grade=4)
    review_record(user=alice, card=by_slug(notes_deck, "actor"), grade=4)
    assert queue.queue(alice, notes_deck).counts["new"] == 10  # the basic cards only
    assert selectors.due_counts(alice)[notes_deck.pk]["new"] == 10
    assert "<strong>10</strong>" in index_new(client)
    assert "10 new" in client.get("/").content.decode()


def test_the_done_screen_says_siblings_wait_instead_of_offering_them(client, alice, notes_deck):
    client.force_login(alice)
    for card in notes_deck.cards.order_by("id"):
        if card.kind == "basic" or card.slug in ("ray-cloze-c1", "actor"):
            review_record(user=alice, card=card, grade=5)
    html = client.get("/study/review/notes/").content.decode()
    assert "3 cards are still unseen" in html  # c2, c3 and the reverse card
    assert 'id="buried-until-tomorrow"' in html and "They are siblings" in html
    assert 'id="learn-more"' not in html  # the queue would serve none of them today
    steps = selectors.next_steps(alice, notes_deck)
    assert (steps.unseen, steps.more, steps.buried_only) == (3, 0, True)


def test_learn_more_offers_what_the_queue_would_serve(alice, notes_deck):
    review_record(user=alice, card=by_slug(notes_deck, "ray-cloze-c1"), grade=4)
    steps = selectors.next_steps(alice, notes_deck)
    assert (steps.unseen, steps.more) == (14, 10)  # of the forward and ten basic cards, ten
    assert not steps.buried_only
