"""The plan page introduces a note's cards apart: after one card of a cloze or reverse note, the
note's other cards wait behind the rest of today's plan, and none is dropped."""

import pytest

from apps.decks.models import Card, Deck, Section
from apps.study import interview
from tests.study.test_plan_pages import plan_for

pytestmark = pytest.mark.django_db
CLOZE = "Ray's {{c1::tasks}} are stateless, its {{c2::actors}} keep state in {{c3::a worker}}."


@pytest.fixture
def cloze_deck(db) -> Deck:
    deck = Deck.objects.create(slug="notes", title="Notes", is_published=True)
    part = Section.objects.create(deck=deck, slug="s", title="S")
    for n in (1, 2, 3):
        Card.objects.create(deck=deck, section=part, slug=f"c{n}", order=0, kind="cloze",
                            note_slug="ray-cloze", ordinal=n, front=CLOZE, back="")  # fmt: skip
    for i in range(4):
        Card.objects.create(deck=deck, section=part, slug=f"b{i}", order=1 + i, front="f", back="b")
    return deck


def grade_first(client, user) -> str:
    """Grade the card the plan page shows first, as the page's form posts it."""
    card = interview.interview_plan(user).today_cards[0]
    assert client.post("/study/plan/", {"card": card.pk, "grade": 4}).status_code == 302
    return card.slug


def test_a_notes_other_deletions_wait_behind_the_rest_of_the_plan(client, alice, cloze_deck):
    plan_for(alice, days=3, budget=60, target=99)
    client.force_login(alice)
    today = [c.slug for c in interview.interview_plan(alice).today_cards]
    assert set(today) == {"c1", "c2", "c3", "b0", "b1", "b2", "b3"}  # all of it, today
    assert today[0] == "c1"

    shown = [grade_first(client, alice) for _ in today]
    assert sorted(shown) == sorted(today)  # none dropped
    assert shown[0] == "c1"
    assert all(slug.startswith("b") for slug in shown[1:5])  # the other notes come first
    assert interview.interview_plan(alice).today_cards == []
