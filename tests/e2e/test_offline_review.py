"""Reviewing from the device (issue 32) in Chromium's offline mode, at laptop and phone size:
alice grades 20 cards offline, closes the tab, opens the page again offline (the service worker
serves it, IndexedDB still holds the grades), goes online and finds exactly those 20 reviews at
their moments with the states an online session gives; two devices grade one card offline and
both reviews are kept, the second told of the conflict; a sync cut off half-way resumes without
doubling; a tampered moment is refused with a message and kept on the device; another account
on the same browser never sees alice's cards."""

import time
from datetime import datetime, timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.accounts.models import profile_for
from apps.decks.models import Card, Deck, Section
from apps.study.models import CardState, ReviewLog
from apps.study.scheduler import new_state, review
from tests.e2e.conftest import SIZES
from tests.e2e.test_review import log_in

pytestmark = pytest.mark.django_db(transaction=True)
KEYS = ["3", "1", "4", "2"]  # Good, Again, Easy, Hard, over and over
DECK = "/study/review/offline-deck/"


@pytest.fixture
def deck(alice) -> Deck:
    """25 new cards, and a new-card limit that lets alice see them all today."""
    deck = Deck.objects.create(slug="offline-deck", title="Offline deck", description="Cards.")
    section = Section.objects.create(deck=deck, slug="s", order=0, title="Basics")
    for n in range(25):
        Card.objects.create(deck=deck, section=section, slug=f"c{n}", order=n,
                            front=f"Question {n}?", back=f"Answer {n}.")  # fmt: skip
    profile = profile_for(alice)
    profile.new_cards_per_day = 40
    profile.save()
    return deck


def wait_for(page, script: str, timeout_s: float = 30) -> None:
    """Poll a (possibly async) expression in the page until it is truthy."""
    end = time.monotonic() + timeout_s
    while not page.evaluate(f"async () => Boolean(await ({script}))"):
        assert time.monotonic() < end, f"waited {timeout_s}s for {script}"
        time.sleep(0.1)


def ready(page) -> None:
    """The page reviews from its own queue and the worker keeps the page for offline use."""
    wait_for(page, "window.RayDeckQueue && RayDeckQueue.ready()")
    wait_for(page, "navigator.serviceWorker.controller")
    wait_for(page, "caches.open('raydeck-shell-v1').then((c) => c.match(location.pathname))")
    # The page reviews from memory at once and stores the pack behind: wait for the device's copy.
    wait_for(page, "RayDeckStore.all('cards').then((cards) => cards.length > 0)")


# A store of the device's database read without the page's scripts (any page of the site); [] when
# the database is gone (a logout's Clear-Site-Data) or never made.
IDB_ALL = """async (store) => {
  const dbs = await indexedDB.databases();
  if (!dbs.some((d) => d.name === "raydeck-device")) return [];
  return await new Promise((resolve, reject) => {
    const open = indexedDB.open("raydeck-device");
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains(store)) { db.close(); resolve([]); return; }
      const all = db.transaction(store).objectStore(store).getAll();
      all.onsuccess = () => { db.close(); resolve(all.result); };
      all.onerror = () => reject(all.error);
    };
  });
}"""


def device_rows(page, store: str) -> list[dict]:
    return page.evaluate(IDB_ALL, store)


def outbox(page) -> list[dict]:
    return page.evaluate("RayDeckStore.all('outbox')")


def grade(page, key: str) -> None:
    card = page.locator("#review-card").get_attribute("data-card")
    page.keyboard.press("Space")
    expect(page.locator("#review-back")).to_be_visible()
    page.keyboard.press(key)
    expect(page.locator(f"#review-card:not([data-card='{card}'])")).to_have_count(1)


def waiting(page, n: int) -> None:
    expect(page.locator(".review-page")).to_have_attribute("data-waiting", str(n))


def replayed(user) -> dict[int, dict]:
    """Each card's state as an online session grading at the logged moments would leave it."""
    states: dict[int, dict] = {}
    logs = ReviewLog.objects.filter(user=user, undone_at=None).order_by("reviewed_at", "id")
    for log in logs:
        before = states.get(log.card_id)
        state = before if before is not None else new_state(log.reviewed_at)
        states[log.card_id] = review(state, log.grade, log.reviewed_at)
    return {pk: s.as_json() for pk, s in states.items()}


def stored(user) -> dict[int, dict]:
    return {row.card_id: row.schedule.as_json() for row in CardState.objects.filter(user=user)}


def test_twenty_grades_offline_survive_a_closed_tab_and_sync_at_their_moments(person, alice, deck):
    page = person
    log_in(page)
    page.goto(DECK)
    ready(page)
    page.context.set_offline(True)
    for n in range(20):
        grade(page, KEYS[n % 4])
    expect(page.locator("#offline-banner")).to_have_text("offline: 20 reviews waiting")
    assert ReviewLog.objects.filter(user=alice).count() == 0
    # The banner counts a grade when it is given; the device stores it a moment later.
    wait_for(page, "RayDeckStore.all('outbox').then((rows) => rows.length === 20)")
    made = outbox(page)
    assert len(made) == 20 and len({r["client_id"] for r in made}) == 20
    device = page.evaluate("RayDeckStore.all('cards')")

    context = page.context
    page.close()  # the tab is closed; opened again, still offline
    page = context.new_page()
    page.goto(DECK)
    expect(page.locator("#offline-banner")).to_have_text("offline: 20 reviews waiting")
    expect(page.locator("#review-front")).to_be_visible()
    assert len(outbox(page)) == 20

    context.set_offline(False)
    waiting(page, 0)
    logs = list(ReviewLog.objects.filter(user=alice).order_by("reviewed_at", "id"))
    assert len(logs) == 20
    assert [str(log.client_id) for log in logs] == [r["client_id"] for r in made]
    assert [log.reviewed_at for log in logs] == [datetime.fromisoformat(r["reviewed_at"])
                                                 for r in made]  # fmt: skip
    assert [log.grade for log in logs] == [r["grade"] for r in made]
    assert stored(alice) == replayed(alice)
    # and the device showed the states the server now holds
    on_device = {c["card"]: c["state"] for c in device if c["state"]}
    server = stored(alice)
    for pk, state in on_device.items():
        assert state["interval_days"] == server[pk]["interval_days"]
        assert state["ease_factor"] == server[pk]["ease_factor"]
        assert state["repetitions"] == server[pk]["repetitions"]
        assert state["lapses"] == server[pk]["lapses"]
    assert outbox(page) == []
    page.screenshot(path=f"/tmp/ux-offline-{person.size}.png")


def device(browser, live_server, size="laptop"):
    phone = size == "phone"
    context = browser.new_context(base_url=live_server.url, viewport=SIZES[size],
                                  is_mobile=phone, has_touch=phone)  # fmt: skip
    context.set_default_timeout(10_000)
    page = context.new_page()
    log_in(page)
    page.goto(DECK)
    ready(page)
    return page


def test_two_devices_grading_one_card_offline_keep_both_reviews_and_tell_of_it(
    browser, live_server, alice, deck
):
    laptop, phone = device(browser, live_server), device(browser, live_server, "phone")
    first = laptop.locator("#review-card").get_attribute("data-card")
    assert phone.locator("#review-card").get_attribute("data-card") == first
    laptop.context.set_offline(True)
    phone.context.set_offline(True)
    grade(laptop, "3")  # Good on the laptop
    time.sleep(0.05)
    grade(phone, "1")  # Again on the phone, a moment later
    laptop.context.set_offline(False)
    waiting(laptop, 0)
    phone.context.set_offline(False)
    waiting(phone, 0)
    logs = ReviewLog.objects.filter(user=alice, card_id=first).order_by("reviewed_at")
    assert [log.grade for log in logs] == [4, 1]  # both kept, in time order
    front = Card.objects.get(pk=first).front
    expect(phone.locator("#sync-notice")).to_contain_text(front.rstrip("?"))
    expect(phone.locator("#sync-notice")).to_contain_text("another device")
    assert stored(alice)[int(first)] == replayed(alice)[int(first)]
    for page in (laptop, phone):
        page.context.close()


def test_a_sync_cut_off_half_way_resumes_without_doubling(person, alice, deck):
    page = person
    log_in(page)
    page.goto(DECK)
    ready(page)
    page.context.set_offline(True)
    for n in range(10):
        grade(page, KEYS[n % 4])
    sent = {"n": 0}

    def cut(route):
        sent["n"] += 1
        if sent["n"] <= 4:
            route.continue_()
        elif sent["n"] == 5:  # the server records it, the answer is lost on the way back
            route.fetch()
            route.abort()
        else:
            route.abort()

    page.route("**/api/reviews/", cut)
    page.context.set_offline(False)
    waiting(page, 6)  # four accepted; the fifth recorded but its answer lost: it waits too
    assert ReviewLog.objects.filter(user=alice).count() == 5
    page.unroute("**/api/reviews/")
    page.evaluate("RayDeckSync.sync()")  # the retry timer's round, without its 15 s
    waiting(page, 0)
    made = set(ReviewLog.objects.filter(user=alice).values_list("client_id", flat=True))
    assert len(made) == ReviewLog.objects.filter(user=alice).count() == 10


def test_a_tampered_moment_is_refused_with_a_message_and_kept_on_the_device(person, alice, deck):
    page = person
    log_in(page)
    page.goto(DECK)
    ready(page)
    page.context.set_offline(True)
    for key in ("3", "3", "3"):
        grade(page, key)
    # The third grade is stored, and its (failing) round over, before the rows are tampered with:
    # a round that read the outbox earlier would send what it read once the page is online.
    wait_for(page, "RayDeckStore.all('outbox').then((rows) => rows.length === 3)")
    wait_for(page, "!RayDeckSync.busy()")
    future = (datetime.now().astimezone() + timedelta(hours=2)).isoformat()
    old = (datetime.now().astimezone() - timedelta(days=30)).isoformat()
    page.evaluate(
        """async ([future, old]) => {
          const rows = await RayDeckStore.all('outbox');
          rows[0].reviewed_at = future; rows[1].reviewed_at = old;
          await RayDeckStore.putReview(rows[0]); await RayDeckStore.putReview(rows[1]);
        }""",
        [future, old],
    )
    page.context.set_offline(False)
    expect(page.locator(".review-page")).to_have_attribute("data-refused", "2")
    waiting(page, 0)
    refused = [r for r in outbox(page) if r.get("refused")]
    assert len(refused) == 2  # kept on the device, not dropped
    assert ReviewLog.objects.filter(user=alice).count() == 1
    expect(page.locator("#sync-refused li")).to_have_count(2)
    expect(page.locator("#sync-refused")).to_contain_text("Question 0?")
    expect(page.locator("#sync-refused")).to_contain_text("Question 1?")
    for row in refused:
        assert row["refused"] and row["refused"] != "The server refused this review."


def test_logging_out_clears_the_device_and_bob_never_sees_alices_cards(page, alice, bob, deck):
    log_in(page)
    page.goto(DECK)
    ready(page)
    grade(page, "3")
    waiting(page, 0)
    assert page.evaluate("RayDeckStore.all('cards')")  # alice's pack is on the device
    page.context.set_offline(True)
    grade(page, "1")  # one waiting: it must not reach bob either
    page.context.set_offline(False)
    waiting(page, 0)
    page.get_by_role("button", name="Log out").click()
    expect(
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Log in")
    ).to_be_visible()
    assert device_rows(page, "cards") == [] and device_rows(page, "outbox") == []
    assert page.evaluate("caches.keys()") == []

    log_in(page, "bob")
    page.goto(DECK)
    ready(page)
    cards = page.evaluate("RayDeckStore.all('cards')")
    assert cards and all(c["state"] is None for c in cards)
    assert page.evaluate("RayDeckStore.all('outbox')") == []


def test_a_pack_of_another_account_is_wiped_before_the_page_uses_it(page, alice, bob, deck):
    """Without a logout (the session simply expired): bob's page finds alice's pack and waiting
    grades on the device and wipes them before anything is shown or sent."""
    log_in(page)
    page.goto(DECK)
    ready(page)
    page.context.set_offline(True)
    grade(page, "3")
    page.context.clear_cookies()  # alice's session ends; her grade still waits on the device
    page.context.set_offline(False)
    # Refused without a session (403): kept, not sent as bob, and the learner is told why. The
    # "sending…" in between may be too brief to see; the sentence that stays is what counts.
    expect(page.locator("#offline-banner")).to_have_text(
        "1 review waiting, sent again shortly. "
        "Log in again to send the reviews waiting on this device."
    )
    assert len(outbox(page)) == 1
    log_in(page, "bob")
    page.goto(DECK)
    ready(page)
    assert page.evaluate("RayDeckStore.all('outbox')") == []
    cards = page.evaluate("RayDeckStore.all('cards')")
    assert cards and all(c["state"] is None for c in cards)
    assert not ReviewLog.objects.filter(user=bob).exists()
    assert not ReviewLog.objects.filter(user=alice).exists()


def test_a_grade_the_server_refuses_online_is_shown_and_undone_on_the_page(page, alice, deck):
    """The next card shows at once and the grade goes behind; when the server refuses it (here:
    the card was suspended from another tab meanwhile, 409), the page says so, naming the card,
    and the card's state on the device is as before the grade."""
    log_in(page)
    page.goto(DECK)
    ready(page)
    first = int(page.locator("#review-card").get_attribute("data-card"))
    CardState.objects.create(user=alice, card_id=first, deck=deck, suspended=True,
                             due_at=timezone.now())  # fmt: skip
    grade(page, "3")
    expect(page.locator("#sync-notice")).to_contain_text("Not recorded: “Question 0?”")
    expect(page.locator(".review-page")).to_have_attribute("data-refused", "1")
    # Undone on the device: the refused review is kept, marked, and the device holds no graded
    # state of the card: new again, or gone once the refresh that follows a refusal has stored a
    # pack without the suspended card (which of the two depends on how fast that refresh is).
    wait_for(
        page,
        f"""RayDeckStore.all('outbox').then(async (rows) => {{
        const cards = await RayDeckStore.all('cards');
        return rows.some((r) => r.card === {first} && r.refused)
            && !cards.some((c) => c.card === {first} && c.state !== null);
    }})""",
    )
    assert not ReviewLog.objects.filter(user=alice).exists()
