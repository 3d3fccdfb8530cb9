"""Django's database sessions, with one difference: a database outage while the session is saved
is the outage, not a deleted session.

Django's `db` backend turns any `DatabaseError` during an update into `UpdateError`, and
SessionMiddleware answers that with SessionInterrupted: a 400 "the session was deleted" page. So
a review page whose grade committed a moment before the database went away answered 400 instead
of the 503 sentence every other request gets then (config.middleware). Here an unreachable
database (OperationalError, InterfaceError) is raised as itself, and the middleware's 503 says
what happened; a session row that is really gone is still `UpdateError`.
"""

from __future__ import annotations

from django.contrib.sessions.backends.base import UpdateError
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore

from config.middleware import DATABASE_ERRORS


class SessionStore(DatabaseSessionStore):
    def save(self, must_create: bool = False) -> None:
        try:
            super().save(must_create=must_create)
        except UpdateError as exc:
            outage = exc.__context__
            if isinstance(outage, DATABASE_ERRORS):
                raise outage from None
            raise
