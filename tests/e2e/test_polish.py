"""The journey's rough edges, as alice meets them on a laptop (1280x800) and a phone (390x844,
touch): a long code card graded without scrolling, its cloze blank inside code shown as [...],
a suspension undone, a session summary that counts the session; the card browser found from the
menu, saying when nothing matches and marking what does; the home page's one next step using the
page's width; the interview plan's card by keyboard; charts a phone can read."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.accounts.models import profile_for
from apps.decks.models import Card, Section
from apps.demos.models import DemoPoint, DemoRun
from apps.study.models import CardState
from apps.study.services import review_record
from apps.teams.services import team_create
from tests.e2e.test_review import log_in

pytestmark = pytest.mark.django_db(transaction=True)

CODE = "\n".join(f"    step_{i} = runner.sample()  # line {i} of a long rollout" for i in range(45))
LONG_CARD = f"""What does this rollout loop do?

```python
import ray

@ray.remote
class Runner:
    def sample(self):
{CODE}
```"""


def press(page, locator):
    locator.tap() if page.size == "phone" else locator.click()


def inside_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    return (
        box is not None
        and box["y"] >= 0
        and box["y"] + box["height"] <= page.viewport_size["height"]
    )


@pytest.fixture
def code_cards(small_deck):
    """Two cards first in the deck: a long code card and a cloze whose blank is inside code."""
    core = Section.objects.get(slug="ray-core")
    # new cards come in the order they were made: these two first, then the deck's five again
    rest = list(Card.objects.filter(deck=small_deck).order_by("id").values())
    Card.objects.filter(deck=small_deck).delete()
    Card.objects.create(deck=small_deck, section=core, slug="long-code", order=0,
                        front=LONG_CARD, back="It samples 45 steps from an actor.")  # fmt: skip
    Card.objects.create(deck=small_deck, section=core, slug="get-c1", order=1, kind="cloze",
                        note_slug="get", front="Wait for a result with `ray.{{c1::get}}(ref)`.",
                        back="")  # fmt: skip
    for row in rest:
        row.pop("id")
        Card.objects.create(**{**row, "order": row["order"] + 2})
    return small_deck


def test_a_long_code_card_is_graded_in_view_a_suspension_undone_a_session_counted(
    person, alice, code_cards
):
    page = person
    # a review earlier today, in another session: the day's figures, not this session's
    earlier = timezone.now() - timedelta(hours=2)
    review_record(user=alice, card=code_cards.cards.get(slug="object-store"), grade=4, now=earlier)
    log_in(page)
    page.goto("/study/review/ray-basics/")
    expect(page.locator("#review-front")).to_contain_text("What does this rollout loop do?")
    press(page, page.locator("#reveal"))
    good = page.locator(".grade-buttons button", has_text="Good")
    expect(good).to_be_visible()
    assert inside_viewport(page, good), "the grades of a long card are below the fold"
    page.screenshot(path=f"/tmp/ux-{page.size}-long-card.png")
    press(page, good)

    front = page.locator("#review-front")
    expect(front).to_contain_text("Wait for a result with")
    expect(front.locator("code")).to_have_text("ray.[...](ref)")  # not \[...\]
    press(page, page.locator("#suspend"))
    notice = page.locator(".review-notice")
    expect(notice).to_contain_text("Card suspended")
    expect(notice.get_by_role("link", name="Your suspended cards")).to_be_visible()
    press(page, notice.get_by_role("button", name="Undo: unsuspend it"))
    expect(page.locator("#review-front")).to_contain_text("Wait for a result with")
    assert not CardState.objects.get(user=alice, card__slug="get-c1").suspended

    profile = profile_for(alice)
    profile.new_cards_per_day = 4  # object-store earlier, long-code, then two more: the end
    profile.save()
    # The page reviews from the queue it keeps on the device (issue 32): a limit changed
    # elsewhere reaches it when it loads again (the same session: under an hour's pause).
    page.reload()
    for _ in range(2):
        press(page, page.locator("#reveal"))
        press(page, page.locator(".grade-buttons button", has_text="Good"))
        expect(page.locator("#review-status")).not_to_have_text("")
    summary = page.locator("#review-card")
    expect(summary.locator("#session-summary")).to_contain_text("3 reviews")
    expect(summary.locator("#today-summary")).to_contain_text("Today in all: 4 reviews")
    expect(summary.locator("#session-since")).to_contain_text("This session, since")
    page.screenshot(path=f"/tmp/ux-{page.size}-session-summary.png", full_page=True)


def test_the_card_browser_is_found_says_when_nothing_matches_and_marks_hits(
    person, alice, small_deck
):
    page = person
    review_record(user=alice, card=small_deck.cards.get(slug="ray-actor"), grade=4)
    log_in(page)
    if page.size == "laptop":  # the deck uses the page's width, not a 300 px column
        width = page.locator(".deck-list > li").first.bounding_box()["width"]
        assert width > 800, f"the deck is {width}px wide at 1280"
    expect(page.locator("#next-step")).to_have_count(1)
    if page.size == "phone":
        page.get_by_role("button", name="Menu").tap()
    press(page, page.locator("#site-menu").get_by_role("link", name="Cards", exact=True))
    expect(page.get_by_role("heading", name="Browse cards")).to_be_visible()
    page.wait_for_load_state("load")

    page.get_by_label("Search fronts and backs").fill("zebra")
    expect(page.locator("#no-results")).to_contain_text("No card matches “zebra”")
    page.goto("/study/browse/?state=learning")
    expect(page.locator("#no-results")).to_contain_text("none does now")
    section = page.get_by_label("Section")
    expect(section.locator("option")).to_have_text(["all sections", "01 Ray core", "02 RLlib"])
    section.select_option("ray-core")
    page.goto("/study/browse/?q=actor")
    expect(page.locator(".browse-link mark").first).to_have_text(re.compile("actor", re.I))
    page.screenshot(path=f"/tmp/ux-{page.size}-browse.png", full_page=True)
    press(page, page.locator(".browse-link").first)
    expect(page.locator("#history-title")).to_be_visible()
    expect(page.locator("table")).to_contain_text("Good (4)")


def test_the_interview_queue_takes_the_keyboard(page, alice, small_deck):
    """With a date, the plan page points at the one review queue, which serves the interview
    scheduler's cards with the same keys as SM-2's."""
    page.set_viewport_size({"width": 1280, "height": 800})
    profile = profile_for(alice)
    profile.interview_date = profile.local_today() + timedelta(days=3)
    profile.save()
    log_in(page)
    page.goto("/study/plan/")
    expect(page.locator("#plan-study")).to_have_attribute("href", "/study/review/")
    page.goto("/study/review/")
    expect(page.locator("#queue-scheduler")).to_have_text("interview mode")
    card = page.locator("#review-card")
    first = card.get_attribute("data-card")
    expect(page.locator(".key-hint").first).to_be_visible()
    page.keyboard.press("Space")
    expect(page.locator("#review-back")).to_be_visible()
    page.keyboard.press("3")
    expect(page.locator(f'#review-card[data-card="{first}"]')).to_have_count(0)
    assert CardState.objects.filter(user=alice, card_id=first, last_grade=4).exists()


CHART_TEXT = """() => [...document.querySelectorAll(
    "svg.chart text, svg.demo-chart text, .heatmap th, .heatmap td")]
  .filter(el => el.getClientRects().length && getComputedStyle(el).display !== "none"
          && el.closest("svg, table").getBoundingClientRect().width > 0)
  .map(el => {
    const size = parseFloat(getComputedStyle(el).fontSize);
    const m = el.getScreenCTM && el.getScreenCTM();  // an SVG drawn smaller, larger or rotated
    const scale = m ? Math.hypot(m.a, m.b) : 1;
    return {text: el.textContent.trim(), px: size * scale, cls: el.getAttribute("class") || ""};
  })"""


def test_charts_are_readable_on_a_phone(phone_page, alice, bob, small_deck):
    """No chart text under 11 CSS px at 390 px wide; whole ticks on counts; labelled axes and
    values on the bars; the demo's line labels its last point."""
    page = phone_page
    now = timezone.now()
    for i, card in enumerate(small_deck.cards.all()):
        review_record(user=alice, card=card, grade=4, now=now - timedelta(days=1 + i))
    profile = profile_for(alice)
    profile.interview_date = profile.local_today() + timedelta(days=20)
    profile.save()
    team = team_create(user=alice, name="Ray cohort", deck=small_deck)
    run = DemoRun.objects.create(user=alice, demo="sampling-throughput", params={"max_actors": 3},
                                 status=DemoRun.Status.SUCCEEDED, progress=1.0, finished_at=now,
                                 last_seq=3)  # fmt: skip
    for seq, y in enumerate([81.0, 55.5, 31.0], start=1):
        DemoPoint.objects.create(run=run, seq=seq, data={"series": "idle", "x": seq, "y": y})
    log_in(page)
    pages = ["/study/stats/", "/study/plan/", f"/teams/{team.slug}/", f"/demos/runs/{run.pk}/"]
    for url in pages:
        page.goto(url)
        page.wait_for_load_state("load")
        texts = page.evaluate(CHART_TEXT)
        assert texts, f"{url}: no chart drawn"
        small = [t for t in texts if t["text"] and t["px"] < 10.95]
        assert not small, f"{url}: text under 11 px on a phone: {small[:5]}"
        name = url.strip("/").replace("/", "-")
        page.screenshot(path=f"/tmp/ux-phone-chart-{name}.png", full_page=True)
        if url in pages[:2]:  # the bar charts: whole ticks, axis labels, values on bars
            ticks = [t["text"] for t in texts if "tick" in t["cls"]]
            assert ticks and all(re.fullmatch(r"\d+|today|\d+ \w{3}", t) for t in ticks), ticks
            labels = [t["text"] for t in texts if "label" in t["cls"]]
            assert "day" in labels and ({"cards due", "reviews"} & set(labels)), labels
            assert [t for t in texts if "value" in t["cls"]], f"{url}: no value on any bar"
    demo_ticks = [t["text"] for t in page.evaluate(CHART_TEXT) if "tick" in t["cls"]]
    assert "1.5" not in demo_ticks and "2" in demo_ticks  # rollout actors are counted whole
    assert "31" in [t["text"] for t in page.evaluate(CHART_TEXT) if "value" in t["cls"]]
