"""Querysets compiled once and run many times: the review loop's hot queries.

Turning a queryset into SQL costs more Python than PostgreSQL spends running the small queries
of a grade, and the review loop asks the same few questions on every card with only the user,
card or time changing. `compiled()` builds the queryset once per shape with sentinel values
(numbers, times and a slug nothing real ever has), remembers which parameter slot each
sentinel landed in, and reuses the SQL with the real values: the ORM stays the one definition
of every query. `sql()` does the same for a statement composed of several querysets' SQL.
`objects()` also reuses the compiler to turn rows into model instances (with select_related
objects and the database's value converters), as QuerySet iteration does.

Each database connection keeps its own cache (a connection belongs to one thread).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import get_related_populators

# Sentinels: pass these in place of real values when building a shape's queryset.
USER, DECK, CARD, CARD2 = -987_654_301, -987_654_302, -987_654_303, -987_654_304
REVIEWS_PER_DAY, NEW_PER_DAY = -987_654_305, -987_654_306
SLUG = "sentinel-slug-987654308"
START = datetime(1901, 1, 1, 1, 1, 1, 111_111, tzinfo=UTC)
END = datetime(1902, 2, 2, 2, 2, 2, 222_222, tzinfo=UTC)
SENTINELS = {
    "user": USER,
    "deck": DECK,
    "card": CARD,
    "card2": CARD2,
    "reviews_per_day": REVIEWS_PER_DAY,
    "new_per_day": NEW_PER_DAY,
    "slug": SLUG,
    "start": START,
    "end": END,
}


class Compiled:
    def __init__(self, sql: str, slots: list[tuple[str | None, object]], compiler=None):
        self.sql, self.slots, self.compiler = sql, slots, compiler
        self.populators = None
        self.converters = None  # the caller's, for rows of a hand-composed statement

    def params(self, connection, values: dict) -> list:
        stamp = connection.ops.adapt_datetimefield_value
        out = []
        for slot, const in self.slots:
            if slot is None:
                out.append(const)
            elif slot in ("start", "end"):
                out.append(stamp(values[slot]))
            else:
                out.append(values[slot])
        return out


def _checked(text: str) -> str:
    """A sentinel written into the SQL text instead of passed as a parameter would be reused as
    a constant: refuse the shape rather than answer for the wrong learner or card."""
    for value in (USER, DECK, CARD, CARD2, REVIEWS_PER_DAY, NEW_PER_DAY, SLUG):
        if str(value) in text:
            raise ValueError(f"sentinel {value} was inlined into {text[:200]}...")
    return text


def _slots(connection, params) -> list[tuple[str | None, object]]:
    stamp = connection.ops.adapt_datetimefield_value
    prepared = {
        name: stamp(value) if isinstance(value, datetime) else value
        for name, value in SENTINELS.items()
    }
    slots = []
    for value in params:
        name = next((n for n, s in prepared.items() if type(s) is type(value) and s == value), None)
        slots.append((name, None) if name else (None, value))
    return slots


def _cache(connection) -> dict:
    cache = getattr(connection, "_study_compiled", None)
    if cache is None or len(cache) > 500:  # a bound, should a key ever carry a per-user value
        cache = connection._study_compiled = {}
    return cache


def sql(key: tuple, build: Callable[[], tuple[str, list]], using: str = "default") -> Compiled:
    """SQL text and its parameter slots, built once per `key` by `build()` (which returns
    (sql, params) made with the sentinels)."""
    connection = connections[using]
    cache = _cache(connection)
    if key not in cache:
        text, params = build()
        cache[key] = Compiled(_checked(text), _slots(connection, params))
    return cache[key]


def compiled(key: tuple, build: Callable[[], QuerySet], using: str = "default") -> Compiled:
    """A queryset's compiler, built once per `key` by `build()` (made with the sentinels)."""
    connection = connections[using]
    cache = _cache(connection)
    if key not in cache:
        compiler = build().query.get_compiler(using=using)
        text, params = compiler.as_sql()
        cache[key] = Compiled(_checked(text), _slots(connection, params), compiler)
    return cache[key]


def objects(key: tuple, build: Callable[[], QuerySet], values: dict, using: str = "default"):
    """Model instances of the queryset `build()` makes, for the real `values`, as a list."""
    connection = connections[using]
    entry = compiled(key, build, using)
    compiler = entry.compiler
    with connection.cursor() as cursor:
        cursor.execute(entry.sql, entry.params(connection, values))
        rows = cursor.fetchall()
    if not rows:
        return []
    select, klass_info = compiler.select, compiler.klass_info
    model = klass_info["model"]
    start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
    if entry.populators is None:
        init_list = [f[0].target.attname for f in select[start:end]]
        entry.populators = (init_list, get_related_populators(klass_info, select, using))
    init_list, populators = entry.populators
    out = []
    for row in compiler.results_iter([rows]):
        obj = model.from_db(using, init_list, row[start:end])
        for populator in populators:
            populator.populate(row, obj)
        out.append(obj)
    return out
