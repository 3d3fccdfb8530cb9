"""An author fixes a typo in a card with the live preview; a learner's schedule stays put."""

import pytest
from playwright.sync_api import expect

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
    expect(preview).to_contain_text("statless")
    # the preview is htmx's (on keyup): keys typed before its deferred script ran send nothing
    page.wait_for_load_state("load")

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
    expect(page.locator(".diff ins").first).to_have_text("**stateless**")


def test_reordering_cards_with_the_keyboard_only(page, small_deck, staff):
    page.goto("/accounts/login/?next=/author/decks/ray-basics/")
    page.get_by_label("Username").fill("staff")
    page.get_by_label("Password").fill("pw-staff-123")
    page.get_by_role("button", name="Log in").click()
    # Until htmx has processed the page, Enter would submit the form natively (a full reload that
    # drops focus), so wait for the page to be loaded after the log-in redirect.
    page.wait_for_url("**/author/decks/ray-basics/")
    page.wait_for_load_state("load")

    down = page.get_by_role("button", name="Move card ray-task down")
    down.focus()
    page.keyboard.press("Enter")
    rows = page.locator("#structure li[id^=card-row] code")
    # Predicates are functions, not expression strings: Playwright evals a string, which the
    # page's CSP (no 'unsafe-eval') refuses.
    page.wait_for_function(
        "() => document.querySelectorAll('#structure li[id^=card-row] code')[1].innerText"
        " == 'ray-task'"
    )
    # htmx gives focus back to the same button (same id) once the swap settles, so Enter again
    # moves the card further; wait for that settle rather than racing it.
    page.wait_for_function(
        "() => document.activeElement && document.activeElement.getAttribute('aria-label')"
        " == 'Move card ray-task down'"
    )
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelectorAll('#structure li[id^=card-row] code')[2].innerText"
        " == 'ray-task'"
    )
    assert rows.all_inner_texts()[:3] == ["ray-actor", "object-store", "ray-task"]
    core = small_deck.sections.get(slug="ray-core")
    assert list(core.cards.order_by("order").values_list("slug", flat=True)) == [
        "ray-actor", "object-store", "ray-task",
    ]  # fmt: skip


def test_author_writes_a_cloze_card_with_its_live_preview(page, small_deck, dave):
    page.goto("/accounts/login/?next=/author/decks/ray-basics/cards/new/")
    page.get_by_label("Username").fill("dave")
    page.get_by_label("Password").fill("pw-dave-123")
    page.get_by_role("button", name="Log in").click()
    # the preview is htmx's (on keyup): keys typed before its deferred script ran send nothing
    page.wait_for_url("**/author/decks/ray-basics/cards/new/")
    page.get_by_label("Kind").select_option("cloze")
    page.get_by_label("Slug").fill("actor-vs-task")
    page.get_by_label("Front (Markdown)").press_sequentially(
        "An actor is {{c1::stateful}}; a task is {{c2::stateless}}.", delay=2
    )
    preview = page.get_by_test_id("preview-front")
    expect(preview.locator(".cloze-preview")).to_have_count(2)
    expect(preview.locator(".cloze-blank").first).to_have_text("[...]")
    page.get_by_label("Source").fill("Ray 2.40 docs: Ray Core > Actors")
    page.screenshot(path="/tmp/cloze-editor.png", full_page=True)
    page.get_by_role("button", name="Create card").click()
    page.get_by_text("Card actor-vs-task-c1 created.").wait_for()
    slugs = small_deck.cards.filter(note_slug="actor-vs-task").values_list("slug", flat=True)
    assert sorted(slugs) == ["actor-vs-task-c1", "actor-vs-task-c2"]
