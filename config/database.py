"""How long one database statement may run: PostgreSQL's statement_timeout, set when a connection
opens (SQLite has no such bound). A web request's statements stop at DB_STATEMENT_TIMEOUT_S, under
gunicorn's 30 s worker timeout, so no statement runs on in PostgreSQL after the request that waits
for it is gone (holding its locks, ignoring a fast shutdown). The Celery worker and management
commands (an import, a backup, a migration: minutes of work, some in long statements) take
DB_WORKER_STATEMENT_TIMEOUT_S instead, through `statement_timeout_use` at their start
(config/celery.py, manage.py)."""

from __future__ import annotations

import re

_SETTING = re.compile(r"\s*-c\s*statement_timeout=\S+")
CANCELLED_SQLSTATE = "57014"  # query_canceled: statement_timeout, or a cancel request


def statement_timeout_options(options: dict, seconds: int) -> dict:
    """Connection OPTIONS for PostgreSQL with every statement bounded by `seconds` (0: none),
    keeping any other `-c` setting the DATABASE_URL gave."""
    rest = _SETTING.sub("", options.get("options", "")).strip()
    bound = f"-c statement_timeout={seconds * 1000}"
    return {**options, "options": f"{rest} {bound}".strip()}


def statement_timeout_use(seconds: int) -> None:
    """From now on, this process's connections bound each statement by `seconds`; the open
    ones are closed, to reopen with it."""
    from django.db import connections

    for connection in connections.all(initialized_only=True):
        connection.close()
    for alias in connections:
        settings_dict = connections.settings[alias]
        if settings_dict["ENGINE"].endswith("postgresql"):
            settings_dict["OPTIONS"] = statement_timeout_options(settings_dict["OPTIONS"], seconds)


def is_statement_cancelled(exc: BaseException | None) -> bool:
    """True for a database error that is a statement stopped at its statement_timeout."""
    cause = getattr(exc, "__cause__", None)
    return getattr(cause, "sqlstate", None) == CANCELLED_SQLSTATE
