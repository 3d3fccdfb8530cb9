"""The review page's next card, from the grade key to the next card painted, in Chromium against
a server on PostgreSQL with 100,000 card states for the learner (issue 32): the page reviewing
from its own queue (the device pack, the grade posted behind) beside the htmx round trip it
replaced (the same page with the pack withheld, so every grade waits for the server's fragment),
at laptop and phone size, in one run.

    .venv/bin/python bench/review_paint.py             # 100,000 states, 120 grades a path
    .venv/bin/python bench/review_paint.py --grades 200 --states 20000

The page marks `raydeck-grade` at the key (a capture listener) and `raydeck-painted` in the
requestAnimationFrame callback after the next card is in the DOM (the local draw, or htmx's
swap), and measures between them (static/js/review-queue.js); the bench reads the measures.
PostgreSQL: 127.0.0.1:5432 as raydeck/raydeck; the bench drops and creates BENCH_PG_URL
(default raydeck_offcli) and runs `manage.py runserver` on it. Figures: bench/README-paint.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import create_database, django_setup, step  # noqa: E402

DEFAULT_URL = "postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_offcli"
SIZES = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
DUE_TODAY = 1500  # enough due cards for every grade of the run; the rest due over 90 days
PASSWORD = "pw-bench-123"


def seed(states: int) -> None:
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from apps.accounts.models import profile_for
    from apps.decks.models import Card, Deck, Section
    from apps.study.models import CardState

    learner = get_user_model().objects.create_user(username="bench", password=PASSWORD)
    profile = profile_for(learner)
    profile.reviews_per_day = 1000
    profile.save()
    deck = Deck.objects.create(slug="big", title="Big deck", description="Many cards.")
    sections = [
        Section.objects.create(deck=deck, slug=f"s{i}", order=i, title=f"Part {i}")
        for i in range(10)
    ]
    Card.objects.bulk_create(
        [
            Card(
                deck=deck,
                section=sections[i % 10],
                slug=f"c{i}",
                note_slug=f"c{i}",
                order=i,
                front=f"What does rollout worker {i} send?",
                back=f"Batch {i} of trajectories.",
                front_html=f"<p>What does rollout worker {i} send?</p>",
                back_html=f"<p>Batch {i} of trajectories.</p>",
            )  # fmt: skip
            for i in range(states + 50)
        ],
        batch_size=5000,
    )
    now = timezone.now()
    ids = list(Card.objects.filter(deck=deck).order_by("order").values_list("pk", flat=True))
    CardState.objects.bulk_create(
        [
            CardState(
                user=learner,
                card_id=pk,
                deck=deck,
                repetitions=2 + n % 4,
                interval_days=6 + n % 30,
                ease_factor=2.5,
                lapses=n % 3,
                last_grade=4,
                introduced_at=now - timedelta(days=60),
                last_reviewed_at=now - timedelta(days=10 + n % 30),
                due_at=now - timedelta(hours=1 + n)
                if n < DUE_TODAY
                else now + timedelta(days=2 + n % 90),
            )  # fmt: skip
            for n, pk in enumerate(ids[:states])
        ],
        batch_size=5000,
    )


def serve(env: dict[str, str], port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("the server did not start")


def until(page, expression: str, seconds: float = 60) -> None:
    """Poll `expression` (page.evaluate: wait_for_function's eval is refused by the CSP)."""
    end = time.monotonic() + seconds
    while not page.evaluate(expression):
        if time.monotonic() > end:
            raise TimeoutError(expression)
        time.sleep(0.005)


def grades(browser, base: str, size: str, path: str, count: int) -> list[float]:
    """`count` grades (Good) on the review page; the key-to-paint times in ms."""
    phone = size == "phone"
    context = browser.new_context(base_url=base, viewport=SIZES[size], is_mobile=phone,
                                  has_touch=phone)  # fmt: skip
    context.set_default_timeout(60_000)
    if path == "htmx":  # the pack withheld: every grade is the htmx round trip
        context.route("**/api/study/device-pack/", lambda route: route.abort())
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("bench")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    page.goto("/study/review/")
    if path == "device":
        until(page, "window.RayDeckQueue && RayDeckQueue.ready()", 120)
    for n in range(count + 5):  # five to warm up
        card = page.locator("#review-card").get_attribute("data-card")
        page.keyboard.press("Space")
        page.locator("#review-back").wait_for(state="visible")
        page.keyboard.press("3")
        page.locator(f"#review-card:not([data-card='{card}'])").wait_for(state="attached")
        until(page, f"performance.getEntriesByName('raydeck-next-card').length > {n}")
        if path == "device" and n % 20 == 19:  # let the grades behind catch up, as a learner does
            until(page, "document.querySelector('.review-page').dataset.waiting === '0'")
    measured = page.evaluate(
        "performance.getEntriesByName('raydeck-next-card').map((e) => e.duration)"
    )
    context.close()
    return measured[5:]


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", type=int, default=100_000)
    parser.add_argument("--grades", type=int, default=120)
    parser.add_argument("--port", type=int, default=8732)
    args = parser.parse_args()
    url = os.environ.get("BENCH_PG_URL", DEFAULT_URL)
    env = {"DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "true",
           "RAYDECK_PG_RESTART_CMD": ""}  # fmt: skip
    started = time.perf_counter()
    create_database(url)
    django_setup(env)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    started = step("database and migrations", started)
    seed(args.states)
    started = step(f"{args.states:,} card states", started)
    server = serve(env, args.port)
    from playwright.sync_api import sync_playwright

    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    rows = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"),
                args=["--no-sandbox", "--disable-gpu"],
            )
            for size in SIZES:
                for path in ("device", "htmx"):
                    times = grades(browser, f"http://127.0.0.1:{args.port}", size, path,
                                   args.grades)  # fmt: skip
                    rows.append((size, path, times))
                    print(f"  {size:<6} {path:<6} {len(times)} grades: median "
                          f"{statistics.median(times):6.1f} ms  p95 {p95(times):6.1f} ms",
                          flush=True)  # fmt: skip
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    step("browser runs", started)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\n| size | path | grades | median ms | p95 ms | within 16 ms |")
    print("|---|---|---|---|---|---|")
    for size, path, times in rows:
        within = sum(1 for t in times if t <= 16) / len(times)
        print(f"| {size} | {path} | {len(times)} | {statistics.median(times):.1f} | "
              f"{p95(times):.1f} | {within:.0%} |")  # fmt: skip


if __name__ == "__main__":
    main()
