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
from datetime import UTC, datetime

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet

SENTINELS = {
    "user": -987_654_301,
    "deck": -987_654_302,
    "start": datetime(1901, 1, 1, 1, 1, 1, 111_111, tzinfo=UTC),
    "end": datetime(1902, 2, 2, 2, 2, 2, 222_222, tzinfo=UTC),
}
CACHE_SQL = True  # False: every statement compiled afresh (the equivalence tests compare both)


def rows(
    key: tuple,
    build: Callable[[int, int | None, datetime, datetime], QuerySet],
    *,
    user: int,
    deck: int | None,
    start: datetime,
    end: datetime,
) -> list:
    """The rows of `build(user, deck, start, end)`, a values_list() queryset, from its SQL
    compiled once per `key` and deck-or-all."""
    if not CACHE_SQL:
        return list(build(user, deck, start, end))
    connection = connections[DEFAULT_DB_ALIAS]
    cache = connection.__dict__.setdefault("_study_queue_sql", {})
    key = (*key, deck is None)
    stamp = connection.ops.adapt_datetimefield_value
    if key not in cache:
        if len(cache) > 64:  # a bound: one entry per statement and set of limits in use
            cache.clear()
        sentinel_deck = None if deck is None else SENTINELS["deck"]
        queryset = build(SENTINELS["user"], sentinel_deck, SENTINELS["start"], SENTINELS["end"])
        compiler = queryset.query.get_compiler(using=DEFAULT_DB_ALIAS)
        sql, params = compiler.as_sql()
        marks = {n: stamp(v) if isinstance(v, datetime) else v for n, v in SENTINELS.items()}
        slots = []
        for value in params:
            found = (n for n, m in marks.items() if type(m) is type(value) and m == value)
            slots.append((next(found, None), value))
        for name in ("user", "deck"):
            if str(SENTINELS[name]) in sql:  # written into the text: it would be reused
                raise ValueError(f"the {name} was inlined into {sql[:200]}")
        cache[key] = (sql, slots, compiler)
    sql, slots, compiler = cache[key]
    fresh = {"user": user, "deck": deck, "start": stamp(start), "end": stamp(end)}
    with connection.cursor() as cursor:
        cursor.execute(sql, [value if name is None else fresh[name] for name, value in slots])
        found = cursor.fetchall()
    return list(compiler.results_iter([found])) if found else []
