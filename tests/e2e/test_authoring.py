"""An author fixes a typo in a card with the live preview; a learner's schedule stays put."""

import pytest

from apps.authoring.models import DeckAuthor, Revision
from apps.study.models import CardState
from apps.study.services import review_record

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def dave(django_user_model, small_deck):
    user = django_user_model.objects.create_user(username="dave", password="pw-dave-123")
    DeckAuthor.objects.create(deck=small_deck, user=user)
    return user


def test_author_fixes_a_typo_with_the_live_preview(page, small_deck, dave, alice):
    card = small_deck.cards.get(slug="ray-task")
    card.back = "A statless remote function call."
    card.save()
    review_record(user=alice, card=card, grade=5)
    before = CardState.objects.get(user=alice, card=card)

    page.goto("/author/")
    page.get_by_label("Username").fill("dave")
    page.get_by_label("Password").fill("pw-dave-123")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="Authoring").wait_for()

    page.get_by_role("link", name="Ray basics").click()
    page.get_by_role("link", name="What is a Ray task?").click()
    preview = page.get_by_test_id("preview-back")
    assert "statless" in preview.inner_text()

    back = page.get_by_label("Back (Markdown)")
    back.fill("")
    back.press_sequentially("A **stateless** remote function call.", delay=5)
    preview.locator("strong", has_text="stateless").wait_for()
    assert "statless" not in preview.inner_text()

    page.get_by_label("Note for the history").fill("typo")
    page.get_by_role("button", name="Save card").click()
    page.get_by_text("learners' schedules are unchanged").wait_for()

    card.refresh_from_db()
    assert card.back == "A **stateless** remote function call."
    assert card.back_html == "<p>A <strong>stateless</strong> remote function call.</p>\n"
    after = CardState.objects.get(user=alice, card=card)
    assert after.schedule == before.schedule
    assert Revision.objects.filter(card=card).first().note == "typo"

    page.get_by_role("link", name="History").click()
    assert page.locator(".diff ins").first.inner_text() == "**stateless**"
