"""The study queue's one exception to Django's public API: its hot statements compiled to SQL
once per shape and run with fresh parameters (issue 18, item 1).

Compiling the queue's querysets (a UNION of five lists; a row of six counted subqueries; the
next card with its section) cost the Django process as much CPU per request as everything else
in the request together, 1.6-1.9x the code it replaced (bench/README-queue.md). `rows()` builds
a statement's queryset once per key with sentinel values for the user, the deck and the day's
bounds, finds the sentinels among the compiled parameters, and from then on runs the SQL text
on the cursor with the real values. Not documented API: `Query.get_compiler()`,
`SQLCompiler.as_sql()` (what `Query.sql_with_params()` does) and `SQLCompiler.results_iter()`
(the rows as `values_list()` gives them, with the database's converters). Everything else the
key does not fix (limits, slices) must be in the key; a sentinel written into the SQL text
instead of passed as a parameter is refused. tests/study/test_queue_sql_cache.py checks the
cached path against the queryset compiled afresh (`CACHE_SQL = False`).

Each database connection keeps its own cache (a connection belongs to one thread).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet

SENTINEL_USER = -987_654_301
SENTINEL_DECK = -987_654_302
SENTINEL_START = datetime(1901, 1, 1, 1, 1, 1, 111_111, tzinfo=UTC)
SENTINEL_END = datetime(1902, 2, 2, 2, 2, 2, 222_222, tzinfo=UTC)
SENTINELS: dict[str, object] = {
    "user": SENTINEL_USER,
    "deck": SENTINEL_DECK,
    "start": SENTINEL_START,
    "end": SENTINEL_END,
}
# More, for a caller's `extra`: the learner's local day, and card ids (one a position).
SENTINEL_DAY = date(1903, 3, 3)
SENTINEL_ID = -987_654_400  # minus the position: -987_654_400, -987_654_401, ...
CACHE_SQL = True  # False: every statement compiled afresh (the equivalence tests compare both)


def rows(
    key: tuple,
    build: Callable[[int, int | None, datetime, datetime], QuerySet],
    *,
    user: int,
    deck: int | None,
    start: datetime,
    end: datetime,
    extra: dict[str, tuple[object, object]] | None = None,
) -> list:
    """The rows of `build(user, deck, start, end)`, a values_list() queryset, from its SQL
    compiled once per `key` and deck-or-all. `extra` names more parameters the key does not fix,
    each as (sentinel, value): `build` is called with the sentinels in it (it takes them from
    `extra` itself), and each run with the values."""
    extra = extra or {}
    if not CACHE_SQL:
        return list(build(user, deck, start, end, **{n: v for n, (_, v) in extra.items()}))
    connection = connections[DEFAULT_DB_ALIAS]
    cache = connection.__dict__.setdefault("_study_queue_sql", {})
    key = (*key, deck is None)
    stamp = connection.ops.adapt_datetimefield_value
    if key not in cache:
        if len(cache) > 64:  # a bound: one entry per statement and set of limits in use
            cache.clear()
        sentinel_deck = None if deck is None else SENTINEL_DECK
        queryset = build(
            SENTINEL_USER, sentinel_deck, SENTINEL_START, SENTINEL_END,
            **{n: mark for n, (mark, _) in extra.items()},
        )  # fmt: skip
        compiler = queryset.query.get_compiler(using=DEFAULT_DB_ALIAS)
        sql, params = compiler.as_sql()
        named = SENTINELS | {n: mark for n, (mark, _) in extra.items()}
        marks = {n: _adapted(connection, v) for n, v in named.items()}
        slots = []
        for value in params:
            found = (n for n, m in marks.items() if type(m) is type(value) and m == value)
            slots.append((next(found, None), value))
        for name, mark in named.items():
            if isinstance(mark, int) and str(mark) in sql:  # in the text: it would be reused
                raise ValueError(f"the {name} was inlined into {sql[:200]}")
        cache[key] = (sql, slots, compiler)
    sql, slots, compiler = cache[key]
    fresh = {"user": user, "deck": deck, "start": stamp(start), "end": stamp(end)}
    fresh |= {n: _adapted(connection, v) for n, (_, v) in extra.items()}
    with connection.cursor() as cursor:
        cursor.execute(sql, [value if name is None else fresh[name] for name, value in slots])
        found = cursor.fetchall()
    return list(compiler.results_iter([found])) if found else []


def _adapted(connection, value):
    """A parameter as the database backend passes it (a moment or a day as its text or type)."""
    if isinstance(value, datetime):
        return connection.ops.adapt_datetimefield_value(value)
    if isinstance(value, date):
        return connection.ops.adapt_datefield_value(value)
    return value
