"""A session saved while the database is unreachable fails as the outage (OperationalError, which
config.middleware answers with its 503 sentence), not as Django's "the session was deleted"
(UpdateError, which SessionMiddleware turns into a 400 SessionInterrupted page). The review page
met this: a grade committed a moment before a database restart, then the session's save failed.
A session row that is really gone is still UpdateError."""

from importlib import import_module

import pytest
from django.conf import settings
from django.contrib.sessions.backends.base import UpdateError
from django.db import OperationalError, connection

from tests.failure.conftest import refuse_connections

pytestmark = [pytest.mark.django_db(transaction=True)]
SessionStore = import_module(settings.SESSION_ENGINE).SessionStore  # the site's own engine


def test_a_session_saved_during_an_outage_is_the_outage_not_a_deleted_session(postgresql):
    store = SessionStore()
    store["study"] = "first"
    store.create()
    again = SessionStore(store.session_key)
    again["study"] = "second"  # read while the database is up
    refuse_connections(False)
    connection.close()  # this test's own connection too: the save must open a new one
    try:
        with pytest.raises(OperationalError):
            again.save()
    finally:
        refuse_connections(True)
    assert SessionStore(store.session_key)["study"] == "first"  # nothing half-written

    SessionStore(store.session_key).delete()
    gone = SessionStore(store.session_key)
    gone._session_cache = {"study": "third"}  # a page still holding the deleted session
    with pytest.raises(UpdateError):
        gone.save()
