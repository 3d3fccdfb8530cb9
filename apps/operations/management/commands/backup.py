"""``manage.py backup dump PATH`` / ``manage.py backup restore PATH``: the whole database's
content as one portable file, and back.

The file is gzip'd JSON Lines: a header line (format, version, when, and the migrations the
database was at), then one line per row in Django's serializer format (models ordered so a row
comes after the rows it points at), then a closing line with the row count of every model, so a
file cut short is refused rather than half-restored. It is a logical backup that moves between
SQLite and PostgreSQL and between servers; for point-in-time recovery of a live PostgreSQL, use
pg_dump / WAL archiving.

Left out, with the reason (``SKIPPED``): rows that ``migrate`` makes itself, sign-in sessions,
the admin log and django-axes lock-out records. Everything else is in, including password hashes
and API tokens: keep the file as safe as the database itself.
"""

import gzip
import json
import os
import re
import zlib
from collections import Counter
from datetime import UTC, datetime, time
from pathlib import Path

import django
from django.apps import apps
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.core.management.color import no_style
from django.core.serializers import jsonl, python
from django.core.serializers.base import DeserializationError, DeserializedObject
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction
from django.db.migrations.recorder import MigrationRecorder
from django.db.models import Model, Prefetch
from django.test.utils import override_settings

FORMAT = "raydeck-backup"
VERSION = 1
BATCH = 1000

# What a backup leaves out, and why.
SKIPPED = {
    "contenttypes": "made by migrate, with ids that differ between databases; permissions are "
    "written by natural key (app, model, codename) instead",
    "auth.permission": "made by migrate; users' and groups' permissions name them by natural key",
    "sessions": "sign-ins on the old server: restored, a cookie would sign its holder in as "
    "whoever has that user id now",
    "admin": "the old server's admin action log, which points at content types by id",
    "axes": "login lock-out counters: short-lived, and restoring them would lock people out again",
}
# Migrate makes these afresh under other ids: rows point at them by natural key.
NATURAL = (ContentType, Permission)


def backed_up_models() -> list:
    """Every model whose rows a backup holds, each after the models it points at."""
    chosen = [
        model
        for model in apps.get_models()
        if model._meta.managed
        and not model._meta.proxy
        and model._meta.app_label not in SKIPPED
        and model._meta.label_lower not in SKIPPED
    ]
    by_app: dict = {}
    for model in chosen:
        by_app.setdefault(model._meta.app_config, []).append(model)
    return serializers.sort_dependencies(list(by_app.items()), allow_cycles=True)


def migration_state(using: str, app_labels) -> dict[str, list[str]]:
    applied = MigrationRecorder(connections[using]).applied_migrations()
    return {
        label: sorted(name for app, name in applied if app == label)
        for label in sorted(set(app_labels))
    }


class ExactEncoder(DjangoJSONEncoder):
    """Times to the microsecond: Django's encoder cuts them to milliseconds (as JavaScript
    does), so a dumpdata round trip quietly changes every timestamp."""

    def default(self, o):
        if isinstance(o, datetime | time):
            return o.isoformat()
        return super().default(o)


class RowSerializer(jsonl.Serializer):
    """JSON Lines, naming a permission or content type by its natural key and any other row
    by its id (which the backup keeps, so no lookup is needed on the way back)."""

    def start_serialization(self):
        super().start_serialization()  # sets json_kwargs from the options
        self.json_kwargs["cls"] = ExactEncoder

    def end_object(self, obj):
        # json.dumps runs the C encoder; json.dump (the parent's) runs the Python one and writes
        # each token to the gzip stream on its own: 70% of a dump's time.
        self.stream.write(json.dumps(self.get_dump_object(obj), **self.json_kwargs) + "\n")
        self._current = None

    def handle_fk_field(self, obj, field):
        self.use_natural_foreign_keys = field.remote_field.model in NATURAL
        super().handle_fk_field(obj, field)

    def handle_m2m_field(self, obj, field):
        self.use_natural_foreign_keys = field.remote_field.model in NATURAL
        super().handle_m2m_field(obj, field)


def _rows(model, using: str):
    queryset = model._base_manager.using(using).order_by(model._meta.pk.name)
    for field in model._meta.many_to_many:
        target = field.remote_field.model
        related = target._base_manager.all()
        if target is Permission:
            related = related.select_related("content_type")  # its natural key names it
        queryset = queryset.prefetch_related(Prefetch(field.name, queryset=related))
    return queryset.iterator(chunk_size=2000)


def dump(path: Path, using: str = DEFAULT_DB_ALIAS) -> Counter:
    """Write the backup to ``path`` (through a temporary file, so a failed dump leaves no file
    that looks like a backup). Returns rows per model."""
    models = backed_up_models()
    connection = connections[using]
    counts: Counter = Counter()
    partial = path.with_name(path.name + ".partial")
    with transaction.atomic(using=using):
        if connection.vendor == "postgresql" and len(connection.atomic_blocks) == 1:
            # One snapshot for every table, while the site keeps writing.
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        header = {
            "format": FORMAT,
            "version": VERSION,
            "created_at": datetime.now(UTC).isoformat(),
            "django": django.get_version(),
            "database": connection.vendor,
            "migrations": migration_state(using, (m._meta.app_label for m in models)),
            "models": [m._meta.label_lower for m in models],
            "skipped": SKIPPED,
        }
        try:
            with gzip.open(partial, "wt", encoding="utf-8") as out:
                out.write(json.dumps(header) + "\n")
                serializer = RowSerializer()
                for model in models:

                    def counted(rows, label=model._meta.label_lower):
                        for row in rows:
                            counts[label] += 1
                            yield row

                    serializer.serialize(counted(_rows(model, using)), stream=out)
                out.write(json.dumps({"end": True, "counts": dict(counts)}) + "\n")
            os.replace(partial, path)
        except OSError as exc:
            raise CommandError(f"cannot write the backup to {path}: {exc}") from None
        finally:
            partial.unlink(missing_ok=True)
    return counts


class Refused(CommandError):
    """A restore that will not run, and why, in words for the operator."""


def _read_lines(path: Path):
    """(line number, text) of the file, with the ways a file can be broken named."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            yield from enumerate(f, 1)
    except FileNotFoundError:
        raise Refused(f"{path}: no such file") from None
    except gzip.BadGzipFile:
        raise Refused(f"{path} is not gzip'd: a backup is what `backup dump` writes") from None
    except (EOFError, zlib.error) as exc:
        raise Refused(f"{path} is cut short or damaged (the gzip stream breaks: {exc})") from None
    except UnicodeDecodeError as exc:
        raise Refused(f"{path} is not UTF-8 text inside the gzip ({exc})") from None


def _check_header(line: str, path: Path, using: str) -> dict:
    try:
        header = json.loads(line)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise Refused(f"{path}: line 1 is not a RayDeck backup header")
    if header.get("version") != VERSION:
        raise Refused(
            f"{path} is backup format version {header.get('version')!r}; this RayDeck reads "
            f"version {VERSION}"
        )
    for key in ("migrations", "models"):
        if key not in header:
            raise Refused(f"{path}: the header has no {key!r}")
    unknown = [label for label in header["models"] if not _model(label)]
    if unknown:
        raise Refused(f"{path} holds rows of models this code does not have: {', '.join(unknown)}")
    ours = migration_state(using, header["migrations"])
    if ours != header["migrations"]:
        differences = []
        for app in sorted(ours):
            theirs, mine = set(header["migrations"][app]), set(ours[app])
            differences += [
                f"{app}: the backup has {name}, this database has not"
                for name in sorted(theirs - mine)
            ]
            differences += [
                f"{app}: this database has {name}, the backup has not"
                for name in sorted(mine - theirs)
            ]
        raise Refused(
            "the backup was taken at another migration state than this database is at ("
            + "; ".join(differences)
            + "). Migrate this database to the backup's state (the release that took it), "
            "restore, then migrate forward."
        )
    return header


def _model(label: str):
    try:
        return apps.get_model(label)
    except (LookupError, ValueError):
        return None


def _insert(model, objects, using: str) -> None:
    """Insert rows as they were: raw, so auto_now_add times and ids are kept, and no signals."""
    fields = model._meta.local_concrete_fields
    rows = [o.object for o in objects]
    size = max(1, connections[using].ops.bulk_batch_size(fields, rows))
    for start in range(0, len(rows), size):
        model._base_manager.using(using)._insert(
            rows[start : start + size], fields=fields, using=using, raw=True
        )
    for field in model._meta.many_to_many:
        through = field.remote_field.through
        source, target = f"{field.m2m_field_name()}_id", f"{field.m2m_reverse_field_name()}_id"
        links = [
            through(**{source: o.object.pk, target: pk})
            for o in objects
            for pk in (o.m2m_data or {}).get(field.name, ())
        ]
        through._base_manager.using(using).bulk_create(links, batch_size=BATCH)


def _load(lines, path: Path, using: str) -> tuple[Counter, dict | None, int]:
    counts: Counter = Counter()
    closing: dict | None = None
    line = 1  # where the reading is, for the refusals
    record: dict = {}

    def records():
        nonlocal closing, line, record
        for number, text in lines:
            line = number
            try:
                record = json.loads(text)
            except ValueError as exc:
                raise Refused(f"{path}: line {number} is not JSON ({exc})") from None
            if not isinstance(record, dict):
                raise Refused(f"{path}: line {number} is not a row")
            if record.get("end") is True:
                closing = record
                return
            yield record

    batch: list[DeserializedObject] = []
    model: type[Model] | None = None
    try:
        for obj in python.Deserializer(records(), using=using):
            if obj.object.__class__ is not model or len(batch) >= BATCH:
                if batch:
                    _insert(model, batch, using)
                batch, model = [], obj.object.__class__
            batch.append(obj)
            counts[model._meta.label_lower] += 1
        if batch:
            _insert(model, batch, using)
    except DeserializationError as exc:
        # Django's message ends "field_value was '...'" without the field's name: find it.
        value = re.search(r"field_value was '(.*)'$", str(exc))
        fields = record.get("fields")
        named = (
            [k for k, v in fields.items() if str(v) == value[1]]
            if value and isinstance(fields, dict)
            else []
        )
        field = f" (field {', '.join(named)})" if named else ""
        raise Refused(f"{path}: line {line}{field}: {exc}") from None
    except DatabaseError as exc:
        rows = f"the rows of {model._meta.label_lower}" if model else "the rows"
        raise Refused(f"{path}: {rows} up to line {line} do not fit this database: {exc}") from None
    return counts, closing, line


def restore(path: Path, *, flush: bool = False, using: str = DEFAULT_DB_ALIAS) -> Counter:
    """Load a backup into this database in one transaction: everything or nothing."""
    lines = _read_lines(path)
    first = next(lines, None)
    if first is None:
        raise Refused(f"{path} is empty")
    header = _check_header(first[1], path, using)
    models = [_model(label) for label in header["models"]]
    connection = connections[using]
    with transaction.atomic(using=using):
        if flush:
            call_command("flush", interactive=False, verbosity=0, database=using)
        else:
            filled = [
                m._meta.label_lower
                for m in backed_up_models()
                if m._base_manager.using(using).exists()
            ]
            if filled:
                raise Refused(
                    "this database is not empty (rows in "
                    + ", ".join(filled)
                    + "): restore into a freshly migrated database, or pass --flush to "
                    "delete everything in this one first"
                )
        counts, closing, last = _load(lines, path, using)
        if closing is None:
            raise Refused(f"{path} ends at line {last} without its closing line: it was cut short")
        expected = Counter({k: v for k, v in closing.get("counts", {}).items() if v})
        if counts != expected:
            wrong = sorted(
                f"{label}: {expected[label]} expected, {counts[label]} found"
                for label in set(counts) | set(expected)
                if counts[label] != expected[label]
            )
            raise Refused(f"{path}: rows do not match its closing line ({'; '.join(wrong)})")
        tables = [m._meta.db_table for m in models]
        tables += [f.m2m_db_table() for m in models for f in m._meta.many_to_many]
        try:
            connection.check_constraints(table_names=tables)
        except Exception as exc:  # IntegrityError, as each backend words it
            raise Refused(f"{path}: the rows do not hold together: {exc}") from None
        # The ids came from the file: move each table's id sequence past them (PostgreSQL).
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(no_style(), models):
                cursor.execute(sql)
    return counts


class Command(BaseCommand):
    help = (
        "Dump the whole database's content to one gzip'd file, or restore such a file into an "
        "empty, migrated database (one transaction: all or nothing)."
    )

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        dump_parser = actions.add_parser("dump", help="write a backup to PATH")
        dump_parser.add_argument("path", type=Path)
        restore_parser = actions.add_parser("restore", help="load the backup at PATH")
        restore_parser.add_argument("path", type=Path)
        restore_parser.add_argument(
            "--flush",
            "--force",
            action="store_true",
            dest="flush",
            help="delete everything in this database first (in the same transaction)",
        )
        for sub in (dump_parser, restore_parser):
            sub.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, *args, **options):
        # manage.py turns DEBUG on by default, and with it Django keeps the text of the last
        # 9000 queries: for a restore, thousands of 1000-row INSERTs, gigabytes at scale.
        with override_settings(DEBUG=False):
            self._handle(**options)

    def _handle(self, *, action, path: Path, database: str, **options):
        if action == "dump":
            counts = dump(path, using=database)
            self.stdout.write(
                f"Wrote {sum(counts.values())} rows of {len(counts)} models to {path}."
            )
            return
        counts = restore(path, flush=options["flush"], using=database)
        self.stdout.write(
            f"Restored {sum(counts.values())} rows of {len(counts)} models from {path}."
        )
