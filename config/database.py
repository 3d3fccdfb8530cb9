"""How long one database statement may run: PostgreSQL's statement_timeout, set when a connection
opens (SQLite has no such bound). A web request's statements stop at DB_STATEMENT_TIMEOUT_S, under
gunicorn's 30 s worker timeout, so no statement runs on in PostgreSQL after the request that waits
for it is gone (holding its locks, ignoring a fast shutdown). The Celery worker and management
commands (an import, a backup, a migration: minutes of work, some in long statements) take
DB_WORKER_STATEMENT_TIMEOUT_S instead, through `statement_timeout_use` at their start
(config/celery.py, manage.py).

Every connection also turns PostgreSQL's JIT compiler off (unless DB_JIT=true): our statements
are short reads whose estimated cost can pass jit_above_cost (a learner with every card of a
100,000-card deck: the home page's due counts planned at 700,000), and then compiling took
1.2-2.5 s of a statement that runs in 50 ms (bench/README-pages-big.md)."""

from __future__ import annotations

import re

_SETTING = re.compile(r"\s*-c\s*(statement_timeout|jit)=\S+")
CANCELLED_SQLSTATE = "57014"  # query_canceled: statement_timeout, or a cancel request


def statement_timeout_options(options: dict, seconds: int, *, jit: bool = False) -> dict:
    """Connection OPTIONS for PostgreSQL with every statement bounded by `seconds` (0: none)
    and no JIT unless `jit` (settings.DB_JIT), keeping any other `-c` setting the DATABASE_URL
    gave."""
    rest = _SETTING.sub("", options.get("options", "")).strip()
    bound = f"-c statement_timeout={seconds * 1000}" + ("" if jit else " -c jit=off")
    return {**options, "options": f"{rest} {bound}".strip()}


def statement_timeout_use(seconds: int) -> None:
    """From now on, this process's connections bound each statement by `seconds`; the open
    ones are closed, to reopen with it."""
    from django.conf import settings
    from django.db import connections

    jit = getattr(settings, "DB_JIT", False)
    for connection in connections.all(initialized_only=True):
        connection.close()
    for alias in connections:
        settings_dict = connections.settings[alias]
        if settings_dict["ENGINE"].endswith("postgresql"):
            settings_dict["OPTIONS"] = statement_timeout_options(
                settings_dict["OPTIONS"], seconds, jit=jit
            )


def is_statement_cancelled(exc: BaseException | None) -> bool:
    """True for a database error that is a statement stopped at its statement_timeout."""
    cause = getattr(exc, "__cause__", None)
    return getattr(cause, "sqlstate", None) == CANCELLED_SQLSTATE
