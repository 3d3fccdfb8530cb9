"""What a person reads is text, not Markdown or slugs, on the shipped content, on a laptop and
on a phone: the team's weakest concepts, a demo's "Illustrates:", a section's knowledge-check
link, and breadcrumbs that end in the page they are on."""

import re

import pytest
from playwright.sync_api import expect

from apps.decks.models import Card
from apps.quizzes.models import Quiz
from apps.teams.services import team_create

pytestmark = pytest.mark.django_db(transaction=True)

RAW = re.compile(r"\*\*|`|\[[^\]]*\]\(|(?<![\w-])[a-z0-9]+(?:-[a-z0-9]+){2,}(?![\w-])")


def log_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(f"pw-{username}-123")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Decks")).to_be_visible()


def test_people_read_text_not_markdown_or_slugs(person, seeded, alice, staff):
    page = person
    deck = Card.objects.filter(front__contains="**").first().deck
    team_create(user=alice, name="Cohort", deck=deck)
    log_in(page, "alice")

    page.goto("/teams/cohort/")
    weakest = page.locator(".weakest li a")
    expect(weakest.first).to_be_visible()
    for text in weakest.all_inner_texts():
        assert "**" not in text and "`" not in text, text

    page.goto("/demos/")
    illustrates = page.locator("p", has_text="Illustrates:").locator("a")
    expect(illustrates.first).to_be_visible()
    slugs = set(Card.objects.values_list("slug", flat=True))
    for text in illustrates.all_inner_texts():
        assert text not in slugs and not RAW.search(text), text
    page.screenshot(path=f"/tmp/ux-{page.size}-demos.png")

    check = Quiz.objects.filter(kind="knowledge_check", title__startswith="Knowledge check:")
    section = check.exclude(section=None).first().section
    page.goto(section.get_absolute_url())
    link = page.locator(".knowledge-check-link")
    expect(link).to_be_visible()
    assert "Knowledge check: Knowledge check" not in link.inner_text()
    crumbs = page.locator("nav.breadcrumbs").inner_text().strip()
    assert not crumbs.endswith(("›", "/")), crumbs

    page.context.clear_cookies()
    log_in(page, "staff")
    page.goto("/author/import/")
    crumbs = page.locator("nav.breadcrumbs")
    expect(crumbs).to_have_text("Authoring › Import")
