"""Pieces every PostgreSQL bench shares: a fresh database, Django set up with the bench's
environment, and timed steps."""

import os
import time
from collections.abc import Sequence
from typing import NamedTuple


def create_database(url: str) -> None:
    """Drop and create the database `url` names (the bench owns it)."""
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(base + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def django_setup(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()


def step(label: str, started: float) -> float:
    now = time.perf_counter()
    print(f"  {label}: {now - started:.1f}s", flush=True)
    return now


class Seeded(NamedTuple):
    deck: int
    first_card: int
    last_card: int
    heavy: int
    first_learner: int | None  # the learners' ids are contiguous from here


def seed_study(
    cur,
    *,
    deck_slug: str,
    cards: int,
    learners: int = 0,
    learner_prefix: str = "bench",
    learner_digits: int = 4,
    learner_from: int = 0,
    password: str = "!",
    time_zones: Sequence[str] = ("UTC",),
    interview_mode: bool = False,
    tokens: bool = False,
    heavy_due: str = "CASE WHEN g % 50 = 0 THEN now() - (g % 97) * interval '1 hour'"
    " ELSE now() + (1 + g % 300) * interval '1 day' END",
    heavy_interval: str = "1 + g % 365",
    heavy_reviewed_at: str = "now() - interval '2 days'",
    heavy_cursor: bool = True,
    learner_states: int = 0,
    loop_learners: int = 0,
    loop_states: int = 0,
    heavy_log_cards: int = 0,
    heavy_logs_per_card: int = 1,
    heavy_log_at: str = "now() - (1 + g % 365) * interval '1 day' - (g % 23) * interval '1 hour'",
    learner_logs: int = 0,
    drop_indexes: bool = False,
) -> Seeded:
    """Bulk-insert (generate_series) the rows the study benches read, into a migrated database,
    then ANALYZE: a generated deck `deck_slug` of `cards` cards in 100 sections; `heavy` and
    `learners` other learners named `learner_prefix` + a number of `learner_digits` digits from
    `learner_from`, each with a profile of the default limits (20 new cards, 200 reviews a day)
    in `time_zones` by turn, and an API token if `tokens`.

    heavy has a state on every card of the deck: `heavy_due`, `heavy_interval` and
    `heavy_reviewed_at` are SQL of the card's number `g` (0 to cards - 1); with `heavy_cursor`
    its new-card cursor is past the last card. Each learner has `learner_states` states
    scattered over the deck (a third due), the first `loop_learners` `loop_states` all due.
    heavy has `heavy_logs_per_card` review logs (`k` from 0) of each of the first
    `heavy_log_cards` cards, at `heavy_log_at` (SQL of g and k); each learner `learner_logs`.
    `drop_indexes`: the card states' secondary indexes are dropped for the insert and built
    again after (for millions of rows)."""
    t = time.perf_counter()
    cur.execute("SET statement_timeout = 0")  # the bulk inserts of a big seed take minutes
    cur.execute(
        "INSERT INTO decks_deck (slug, title, description, description_html, objectives,"
        " is_published, created_at, updated_at, owner_id) VALUES (%s, 'Generated 100k', '', '',"
        " '[]', true, now(), now(), NULL) RETURNING id",
        [deck_slug],
    )
    deck = cur.fetchone()[0]
    cur.execute(
        'INSERT INTO decks_section (deck_id, slug, "order", title, summary, summary_html)'
        " SELECT %s, 's' || g, g, 'Section ' || g, '', '' FROM generate_series(0, 99) g",
        [deck],
    )
    cur.execute(
        'INSERT INTO decks_card (deck_id, section_id, slug, "order", front, back, why, tags,'
        " front_html, back_html, why_html, updated_at, kind, note_slug, ordinal, retired_at,"
        " source, type_answer)"
        " SELECT %(deck)s, s.id, 'c' || g, g %% %(per)s,"
        "  'Generated question ' || g || ': what does a Ray actor keep between calls?',"
        "  'Its **state**, in its own worker process (card ' || g || ').', '', '[]',"
        "  '<p>Generated question ' || g || ': what does a Ray actor keep between calls?</p>',"
        "  '<p>Its <strong>state</strong>, in its own worker process (card ' || g || ').</p>',"
        "  '', now(), 'basic', 'c' || g, 1, NULL, '', false"
        " FROM generate_series(0, %(n)s - 1) g"
        ' JOIN decks_section s ON s.deck_id = %(deck)s AND s."order" = g / %(per)s'
        " ORDER BY g",
        {"deck": deck, "per": -(-cards // 100), "n": cards},
    )
    cur.execute("SELECT min(id), max(id), count(*) FROM decks_card WHERE deck_id = %s", [deck])
    first, last, count = cur.fetchone()
    assert last - first + 1 == count == cards, "card ids are not contiguous"
    t = step(f"{cards} cards", t)

    # One statement, in name order: the learners' ids are contiguous.
    cur.execute(
        "INSERT INTO auth_user (password, last_login, is_superuser, username, first_name,"
        " last_name, email, is_staff, is_active, date_joined)"
        " SELECT %(pw)s, NULL, false, name, '', '', '', false, true, now() FROM ("
        "  SELECT %(prefix)s || lpad(g::text, %(digits)s, '0') AS name"
        "  FROM generate_series(%(from)s, %(from)s + %(n)s - 1) g"
        "  UNION ALL SELECT 'heavy') names ORDER BY name",
        {"pw": password, "prefix": learner_prefix, "digits": learner_digits,
         "from": learner_from, "n": learners},
    )  # fmt: skip
    cur.execute(
        "INSERT INTO accounts_profile (user_id, time_zone, new_cards_per_day, reviews_per_day,"
        " daily_budget_minutes, interview_date, target_recall, leech_threshold, extra_new_cards,"
        " extra_new_cards_on, interview_mode)"
        " SELECT id, (%(zones)s::text[])[1 + id %% %(n)s], 20, 200, NULL, NULL, 90, 8, 0, NULL,"
        " %(interview)s FROM auth_user",
        {"zones": list(time_zones), "n": len(time_zones), "interview": interview_mode},
    )
    if tokens:
        cur.execute(
            "INSERT INTO authtoken_token (key, user_id, created) SELECT"
            " substr(md5(random()::text) || md5(random()::text), 1, 40), id, now() FROM auth_user"
        )
    cur.execute("SELECT id FROM auth_user WHERE username = 'heavy'")
    heavy = cur.fetchone()[0]
    cur.execute(
        "SELECT min(id), max(id), count(*) FROM auth_user WHERE username LIKE %s",
        [learner_prefix.replace("_", r"\_") + "%"],
    )
    u0, u1, n = cur.fetchone()
    assert n == learners and (not n or u1 - u0 + 1 == n), "learner ids are not contiguous"
    t = step(f"{learners + 1} users, profiles" + (", tokens" if tokens else ""), t)

    indexes = []
    if drop_indexes:
        cur.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'study_cardstate'"
            " AND indexname NOT IN (SELECT conname FROM pg_constraint)"
        )
        indexes = cur.fetchall()
        for name, _ in indexes:
            cur.execute(f'DROP INDEX "{name}"')
    state_cols = (
        "user_id, card_id, deck_id, repetitions, ease_factor, interval_days, due_at,"
        " needs_redrill, redrill_anchor, lapses, last_grade, last_reviewed_at, introduced_at,"
        " suspended, leech, stability, difficulty, memory_day"
    )
    cur.execute(
        f"INSERT INTO study_cardstate ({state_cols})"
        " SELECT %(u)s, %(c0)s + g, %(deck)s, 1 + g %% 8, 1.30 + (g %% 150) / 100.0,"
        f" {_pct(heavy_interval)}, {_pct(heavy_due)}, false, NULL, g %% 3, 4,"
        f" {_pct(heavy_reviewed_at)}, now() - interval '60 days', false, false, NULL, NULL, NULL"
        " FROM generate_series(0, %(n)s - 1) g",
        {"u": heavy, "c0": first, "deck": deck, "n": cards},
    )
    states = cur.rowcount
    if learners:
        cur.execute(
            f"INSERT INTO study_cardstate ({state_cols})"
            " SELECT u, %(c0)s + ((u * 7919 + k * 331) %% %(n)s), %(deck)s, 1 + k %% 6,"
            "  1.30 + (k %% 150) / 100.0, 1 + k %% 200,"
            "  CASE WHEN u < %(u0)s + %(loop)s OR k %% 3 = 0"
            "       THEN now() - (1 + k %% 30) * interval '1 day'"
            "       ELSE now() + (1 + k %% 200) * interval '1 day' END,"
            "  false, NULL, k %% 2, 4, now() - interval '3 days', now() - interval '90 days',"
            "  false, false, NULL, NULL, NULL"
            " FROM generate_series(%(u0)s, %(u0)s + %(users)s - 1) u,"
            "  LATERAL generate_series(0, CASE WHEN u < %(u0)s + %(loop)s"
            "   THEN %(loop_states)s - 1 ELSE %(per)s - 1 END) k",
            {"c0": first, "n": cards, "deck": deck, "u0": u0, "users": learners,
             "loop": loop_learners, "loop_states": loop_states, "per": learner_states},
        )  # fmt: skip
        states += cur.rowcount
    if heavy_cursor:  # heavy took the deck's cards in order, as the queue offers them
        cur.execute(
            "INSERT INTO study_newcardcursor (user_id, deck_id, after_card_id) VALUES (%s, %s, %s)",
            [heavy, deck, last],
        )
    t = step(f"{states} card states", t)
    for _, definition in indexes:
        cur.execute(definition)
    if indexes:
        t = step(f"{len(indexes)} indexes", t)

    iso = "'YYYY-MM-DD\"T\"HH24:MI:SS+00:00'"
    state = (
        "json_build_object('repetitions', {n}, 'ease_factor', '2.50', 'interval_days', {i},"
        " 'due_at', to_char({at} + ({i}) * interval '1 day', " + iso + "),"
        " 'needs_redrill', false, 'redrill_anchor', null, 'lapses', 0, 'last_grade', {g},"
        " 'last_reviewed_at', to_char({at}, " + iso + "))"
    )
    log_cols = (
        "user_id, card_id, grade, kind, reviewed_at, duration_ms, state_before, state_after,"
        " client_id, undone_at, memory_before, conflict"
    )
    logs = 0
    if heavy_log_cards:
        cur.execute(
            f"INSERT INTO study_reviewlog ({log_cols})"
            " SELECT %(u)s, %(c0)s + g, 1 + g %% 5, 'review', at, 4000 + g %% 9000,"
            f" {state.format(n='g %% 8', i='g %% 365', at='at', g='1 + g %% 5')},"
            f" {state.format(n='1 + g %% 8', i='1 + g %% 365', at='at', g='1 + g %% 5')},"
            "  NULL, NULL, NULL, false"
            f" FROM (SELECT g, {_pct(heavy_log_at)} AS at FROM generate_series(0, %(n)s - 1) g,"
            "  generate_series(0, %(k)s - 1) k) x",
            {"u": heavy, "c0": first, "n": heavy_log_cards, "k": heavy_logs_per_card},
        )
        logs += cur.rowcount
    if learners and learner_logs:
        cur.execute(
            f"INSERT INTO study_reviewlog ({log_cols})"
            " SELECT u, %(c0)s + ((u * 7919 + (k %% 300) * 331) %% %(n)s), 1 + (u + k) %% 5,"
            "  'review', at, 3000 + k %% 7000,"
            f" {state.format(n='k %% 6', i='k %% 200', at='at', g='1 + (u + k) %% 5')},"
            f" {state.format(n='1 + k %% 6', i='1 + k %% 200', at='at', g='1 + (u + k) %% 5')},"
            "  NULL, NULL, NULL, false"
            " FROM (SELECT u, k, now() - (1 + (k * 37) %% 365) * interval '1 day'"
            "  - (k %% 19) * interval '1 hour' AS at"
            "  FROM generate_series(%(u0)s, %(u0)s + %(users)s - 1) u,"
            "  generate_series(0, %(per)s - 1) k) x",
            {"c0": first, "n": cards, "u0": u0, "users": learners, "per": learner_logs},
        )
        logs += cur.rowcount
    t = step(f"{logs} review logs (all before today, so today's limits are fresh)", t)
    cur.execute("ANALYZE")
    step("ANALYZE", t)
    return Seeded(deck, first, last, heavy, u0)


def _pct(sql: str) -> str:
    """A caller's SQL, put into a statement with parameters: its % written as %%."""
    return sql.replace("%", "%%")
