"""The embedded Celery broker: kombu's SQLAlchemy transport on a SQLite file, for a clone that
runs with no broker server (`make run`, CI's first pass). Production sets CELERY_BROKER_URL to
Redis and never loads this module.

A message is a row inserted in one transaction, and a worker takes it in one write transaction
(SQLite's BEGIN IMMEDIATE: one taker at a time, across processes), so a message is read whole
or not at all, and by one worker. kombu's filesystem transport, the embedded broker before this,
created a message file and then wrote it: a worker polling the folder could take the empty file
between the two, lose the message and exit on the JSON error (kombu issue 1551).

What this adds to kombu's transport:
- The row of a message is deleted in the transaction that takes it. kombu marks it invisible
  and never reads it again, so its table only grew. Taken and not yet acknowledged, a message
  lives in the worker, as on every kombu virtual transport: put back when the worker stops, or
  when a pool process dies under it (acks_late with reject_on_worker_lost). A worker killed
  with SIGKILL loses what it held, as on the filesystem transport; each app's sweep sends its
  jobs again (an exercise submission not started within EXERCISES_RESEND_S is sent again).
- `polling_interval` from the transport options: kombu hands every option to create_engine,
  which refuses that one.
- Its tables and queues made safely by processes starting together (kombu checks, then
  creates, so two of them both create).
- SQLite set up for several processes: WAL (the web's inserts and the workers' polls do not
  wait on readers), commits that are not synced to the disk one by one, a busy timeout, and
  no pooled connection used on both sides of a fork.
"""

from __future__ import annotations

import os
import time
from json import loads
from queue import Empty

from kombu.transport import sqlalchemy as kombu_sqlalchemy
from kombu.utils.encoding import bytes_to_str
from sqlalchemy import create_engine, event, text
from sqlalchemy.exc import IntegrityError, OperationalError

BUSY_TIMEOUT_S = 30  # a writer waits this long for another's transaction before it fails


def _sqlite_setup(dbapi_connection, _record) -> None:
    # WAL is kept in the file once set; asking again on each connection is a read.
    dbapi_connection.execute("PRAGMA journal_mode=WAL")
    # A commit is in the file before it returns, so a process that dies keeps it; it is synced
    # to the disk at checkpoints, not at each commit (7 ms here). What a power cut could take,
    # each app's sweep sends again from its own rows.
    dbapi_connection.execute("PRAGMA synchronous=NORMAL")


class Channel(kombu_sqlalchemy.Channel):
    def _engine_from_config(self):
        engine = create_engine(
            self.connection.client.hostname, connect_args={"timeout": BUSY_TIMEOUT_S}
        )
        event.listen(engine, "connect", _sqlite_setup)
        # A pool process forked from the worker opens connections of its own; the parent's
        # stay the parent's (SQLAlchemy's way for a pool that crosses a fork).
        os.register_at_fork(after_in_child=lambda: engine.dispose(close=False))
        # kombu creates its tables when a process first connects (check, then create): two
        # processes starting together both see none and one fails. Whoever fails finds them made.
        for attempt in range(5):
            try:
                kombu_sqlalchemy.metadata.create_all(engine)
                break
            except OperationalError:
                if attempt == 4:
                    raise
                time.sleep(0.1)
        return engine

    def _get_or_create(self, queue):
        # Another process may insert the same queue between kombu's look-up and its insert:
        # then the row is there to read.
        try:
            return super()._get_or_create(queue)
        except IntegrityError:
            self.session.rollback()
            return self.session.query(self.queue_cls).filter(self.queue_cls.name == queue).one()

    def _waiting(self, queue_id):
        return (
            self.session.query(self.message_cls)
            .filter(self.message_cls.queue_id == queue_id)
            .filter(self.message_cls.visible.is_(True))
            .order_by(self.message_cls.id)
        )

    def _get(self, queue, timeout=None):
        """The oldest message of `queue`, its row deleted in the same write transaction."""
        obj = self._get_or_create(queue)
        waiting = self._waiting(obj.id).with_entities(self.message_cls.id).first()
        self.session.commit()
        if waiting is None:  # an empty poll takes no lock: the web's inserts never wait on it
            raise Empty()
        self.session.execute(text("BEGIN IMMEDIATE TRANSACTION"))
        try:
            message = self._waiting(obj.id).first()
            if message is None:
                raise Empty()
            payload = loads(bytes_to_str(message.payload))
            self.session.delete(message)
            return payload
        finally:
            # A commit that fails raises, and the message stays in the table for the next poll.
            self.session.commit()


class Transport(kombu_sqlalchemy.Transport):
    Channel = Channel
