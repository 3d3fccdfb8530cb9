"""Every operation has a bound, on a deck as large as the limits allow.

The attack: a 16,512-card deck (a legal 2 MiB import). Moving one card renumbered every card of
its section in one statement that ran on in PostgreSQL for 131 s of CPU after gunicorn had
killed its worker; the author's deck page and card list sent every card (21.5 MB, 7.9 MB). Here
the sections are a few thousand cards (enough to tell "two rows" from "every row" and a page
from the whole deck, in a second); bench/big_deck.py times the 16,512-card deck."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection, transaction
from django.http import HttpResponse
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import path

from apps.authoring import services
from apps.authoring.selectors import STRUCTURE_PAGE_CARDS
from apps.decks.models import Card, Deck, Section
from tests.hardening.conftest import settings_from_env

ROOT = Path(__file__).resolve().parents[2]
PG_URL = "postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_nothing"


def big_section(deck: Deck, slug: str, cards: int, order: int = 0) -> Section:
    section = Section.objects.create(deck=deck, slug=slug, order=order, title=slug)
    # Written as the renderer would (it costs a millisecond a card; these are plain text).
    rows = [
        Card(deck=deck, section=section, slug=f"{slug}-{i}", note_slug=f"{slug}-{i}", order=i,
             front=f"Q {i}", back="A", front_html=f"<p>Q {i}</p>\n", back_html="<p>A</p>\n")
        for i in range(cards)
    ]  # fmt: skip
    Card.objects.bulk_create(rows, batch_size=1000)
    return section


def places(section: Section) -> list[str]:
    return list(section.cards.order_by("order", "id").values_list("slug", flat=True))


def numbering(section: Section) -> list[int]:
    return list(section.cards.order_by("order", "id").values_list("order", flat=True))


@pytest.fixture
def big(db):
    deck = Deck.objects.create(slug="big", title="Big")
    big_section(deck, "part", 2500)
    return deck


@pytest.fixture
def staff_api(api_client, staff):
    api_client.force_authenticate(staff)
    return api_client


# Statement bounds -------------------------------------------------------------------------------


def test_a_web_process_bounds_every_statement_and_keeps_other_options():
    options = settings_from_env(DATABASE_URL=PG_URL)["DATABASES"]["default"]["OPTIONS"]
    assert options["options"] == "-c statement_timeout=15000 -c jit=off"
    custom = settings_from_env(DATABASE_URL=PG_URL + "?options=-c%20work_mem%3D8MB",
                               DB_STATEMENT_TIMEOUT_S="5")  # fmt: skip
    assert custom["DATABASES"]["default"]["OPTIONS"]["options"] == (
        "-c work_mem=8MB -c statement_timeout=5000 -c jit=off"
    )
    jit = settings_from_env(DATABASE_URL=PG_URL, DB_JIT="true")["DATABASES"]["default"]
    assert jit["OPTIONS"]["options"] == "-c statement_timeout=15000"


PRINT_OPTIONS = (
    "import json; from django.db import connections; "
    "print(json.dumps(connections.settings['default']['OPTIONS']))"
)


def _options_in(command: list[str]) -> dict:
    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": PG_URL, "DEBUG": "true",
           "DJANGO_SETTINGS_MODULE": "config.settings", "HOME": str(ROOT)}  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_worker_and_management_commands_take_the_longer_bound():
    worker = _options_in([sys.executable, "-c", (
        "import django; django.setup(); from config.celery import _worker_statement_timeout; "
        f"_worker_statement_timeout(); {PRINT_OPTIONS}")])  # fmt: skip
    assert worker["options"] == "-c statement_timeout=1800000 -c jit=off"
    command = _options_in([sys.executable, "manage.py", "shell", "-c", PRINT_OPTIONS])
    assert command["options"] == "-c statement_timeout=1800000 -c jit=off"


def _slow(request):
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = '50ms'")  # the bound, made short
        cursor.execute("SELECT pg_sleep(2)")
    return HttpResponse("finished")


urlpatterns = [path("api/slow/", _slow), path("slow/", _slow)]


@pytest.mark.django_db(transaction=True)
@override_settings(ROOT_URLCONF=__name__)
def test_a_statement_past_its_bound_is_stopped_and_answered_with_a_sentence(client, staff):
    if connection.vendor != "postgresql":
        pytest.skip(
            "statement_timeout is PostgreSQL's (CI runs it with DATABASE_URL=postgres://...)"
        )
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "15s"
    client.force_login(staff)
    for url in ("/api/slow/", "/slow/"):
        response = client.get(url)
        assert response.status_code == 503
        assert "took longer than the 15 s a request may spend in the database" in (
            response.content.decode()
        )
        assert response["Retry-After"] == "5"


# Moves and renumbering --------------------------------------------------------------------------


def test_a_move_in_a_large_section_writes_two_rows_in_short_statements(big):
    section = big.sections.get()
    near_top, card = (section.cards.select_related("section").get(order=n) for n in (5, 1200))
    with CaptureQueriesContext(connection) as small_moves:
        services.card_move(card=near_top, direction="up")
    with CaptureQueriesContext(connection) as queries:
        assert services.card_move(card=card, direction="up")
    assert len(queries) == len(small_moves)  # the same statements, whatever the section's size
    assert sum(len(q["sql"]) for q in queries) < 3000  # no CASE over every card
    slugs = places(section)
    assert slugs[1199:1201] == ["part-1200", "part-1199"]
    assert numbering(section) == list(range(2500))


def test_a_move_leaves_every_other_row_untouched_in_postgresql(big):
    if connection.vendor != "postgresql":
        pytest.skip("a row's ctid is PostgreSQL's (CI runs it with DATABASE_URL=postgres://...)")
    section = big.sections.get()

    def versions():
        with connection.cursor() as cursor:
            cursor.execute("SELECT id, ctid::text FROM decks_card WHERE section_id = %s",
                           [section.pk])  # fmt: skip
            return dict(cursor.fetchall())

    before = versions()
    services.card_move(card=section.cards.get(order=1800), direction="down")
    after = versions()
    assert sorted(pk for pk in before if before[pk] != after[pk]) == sorted(
        section.cards.filter(order__in=[1800, 1801]).values_list("pk", flat=True)
    )


def test_moves_at_the_ends_and_ties_from_older_data(big):
    section = big.sections.get()
    assert not services.card_move(card=section.cards.get(order=0), direction="up")
    assert not services.card_move(card=section.cards.get(order=2499), direction="down")
    Card.objects.filter(slug__in=["part-3", "part-4"]).update(order=3)  # a tie, as old rows had
    services.card_move(card=section.cards.get(slug="part-4"), direction="up")
    assert places(section)[2:6] == ["part-2", "part-4", "part-3", "part-5"]
    assert numbering(section) == list(range(2500))


def test_a_deleted_card_leaves_no_gap_and_no_long_statement(big, staff):
    section = big.sections.get()
    with CaptureQueriesContext(connection) as queries:
        services.card_delete(card=section.cards.get(slug="part-7"))
    assert numbering(section) == list(range(2499))
    assert places(section)[6:8] == ["part-6", "part-8"]
    updates = [q["sql"] for q in queries if q["sql"].startswith("UPDATE")]
    assert len(updates) == 2  # 2,000 places at a time
    other = big_section(big, "other", 3, order=1)
    services.card_update(card=section.cards.get(slug="part-0"), author=staff, section=other)
    assert numbering(section) == list(range(2498)) and numbering(other) == [0, 1, 2, 3]
    assert places(other)[-1] == "part-0"


# Pages of cards ---------------------------------------------------------------------------------


def test_the_author_card_list_comes_in_pages(staff_api, big, django_assert_num_queries):
    url = "/api/author/decks/big/cards/"
    with django_assert_num_queries(4):  # staff: no author grants to look up
        first = staff_api.get(url).json()
    assert (first["count"], first["page"], first["pages"]) == (2500, 1, 25)
    assert [c["slug"] for c in first["results"][:2]] == ["part-0", "part-1"]
    assert len(first["results"]) == 100 and first["results"][0]["revision"] is None
    last = staff_api.get(url + "?page=99").json()  # past the end: the last page
    assert last["page"] == 25 and last["results"][-1]["slug"] == "part-2499"
    refused = staff_api.get(url + "?page=two")
    assert refused.status_code == 400
    assert (
        refused.json()["error"] == "page: page must be a whole number from 1 to 1000000, got 'two'"
    )


def test_the_move_api_answers_with_the_two_cards_it_swapped(staff_api, big):
    card = big.sections.get().cards.get(order=10)
    response = staff_api.post(f"/api/author/cards/{card.pk}/move/", {"direction": "down"},
                              format="json")  # fmt: skip
    assert [(c["slug"], c["order"]) for c in response.json()] == [("part-11", 10), ("part-10", 11)]
    top = big.sections.get().cards.get(order=0)
    response = staff_api.post(f"/api/author/cards/{top.pk}/move/", {"direction": "up"},
                              format="json")  # fmt: skip
    assert response.status_code == 200 and response.json() == []


def test_the_deck_editor_shows_a_page_of_cards(client, staff, big, django_assert_num_queries):
    client.force_login(staff)
    second = big_section(big, "second", 30, order=1)
    Section.objects.create(deck=big, slug="empty", order=2, title="empty")
    client.get("/author/decks/big/")
    # session, user, deck, its quizzes and authors; the structure: the count of its cards, the
    # page's cards, the section of the last one, the sections, their card counts
    with django_assert_num_queries(11):
        html = client.get("/author/decks/big/").content.decode()
    assert html.count('id="card-row-') == STRUCTURE_PAGE_CARDS
    assert "Cards 1–100 of 2530, page 1 of 26" in html
    assert f'id="section-{second.pk}"' not in html and "<code>empty</code>" not in html
    assert len(html.encode()) < 200_000
    with django_assert_num_queries(12):  # and the card before the page
        html = client.get("/author/decks/big/?page=25").content.decode()
    assert "2500 cards, continued" in html  # the big section's last cards
    assert html.count('id="card-row-') == 100 and f'id="section-{second.pk}"' not in html
    html = client.get("/author/decks/big/?page=26").content.decode()
    assert html.count('id="card-row-') == 30 and "30 cards</span>" in html
    assert "<code>empty</code>" in html and "No cards yet." in html  # the deck's end


def test_a_move_across_a_page_edge_shows_the_page_the_card_went_to(client, staff, big):
    client.force_login(staff)
    card = big.sections.get().cards.get(order=STRUCTURE_PAGE_CARDS)  # the first of page 2
    response = client.post(f"/author/cards/{card.pk}/move/", {"direction": "up"},
                           HTTP_HX_REQUEST="true")  # fmt: skip
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="structure">')
    assert "Cards 1–100 of 2500, page 1 of 25" in html and f'id="card-row-{card.pk}"' in html
    response = client.post(f"/author/cards/{card.pk}/move/", {"direction": "down"})
    assert response["Location"] == "/author/decks/big/?page=2"
