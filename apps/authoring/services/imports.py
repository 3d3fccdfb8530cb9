"""Imports: a whole deck document applied in one transaction, inline or as a worker's job."""

import dataclasses
import logging
import zlib
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from apps.authoring.apkg import ApkgError, apkg_precheck
from apps.authoring.formats import IMPORT_FORMATS, format_guess, import_document, text_decode
from apps.authoring.models import ImportJob, Revision
from apps.authoring.selectors import can_author, learners_with_progress
from apps.authoring.services.media import cards_rerender, media_check_all, media_import
from apps.authoring.services.own import quota_check, quota_enforce
from apps.authoring.services.revisions import Source, card_data, original_keep, revision_add
from apps.decks.content import PROGRESS_EVERY, ContentError, DeckDoc, LoadResult, deck_apply
from apps.decks.models import Deck
from apps.quizzes.lint import lint_documents
from config.errors import Conflict, Forbidden, ServiceError
from config.tasks import enqueue_on_commit
from config.workers import Heartbeat, reaper

log = logging.getLogger(__name__)
# The worker's task (apps.authoring.tasks), sent by name: the task calls this module, so this
# module does not import it.
IMPORT_TASK = "authoring.import_job_run"


# pg_advisory_xact_lock's first key: "deck imports" (the second is the deck slug's CRC-32).
DECK_IMPORT_LOCK = 28_001


def _deck_import_lock(slug: str, *, wait: bool) -> None:
    """Imports of one deck take turns, until the transaction ends (two at once both took the
    deck's cards as new and numbered their first revisions twice: a unique violation, a 500).
    A lock on the slug, not a row: the deck may not exist yet. `wait=False` refuses at once
    with ImportBusy instead of waiting. (SQLite runs one writing transaction at a time.)"""
    if connection.vendor != "postgresql":
        return
    key = zlib.crc32(slug.encode()) - 2**31  # PostgreSQL's int4
    with connection.cursor() as cursor:
        if wait:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [DECK_IMPORT_LOCK, key])
            return
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [DECK_IMPORT_LOCK, key])
        if not cursor.fetchone()[0]:
            raise ImportBusy(_busy_message(slug))


@transaction.atomic
def deck_import(
    *,
    doc: DeckDoc,
    user,
    dry_run: bool = False,
    publish: bool = False,
    progress=None,
    wait: bool = True,
) -> LoadResult:
    """Apply a whole deck document (from any import format) in one transaction, with a
    revision for every card it creates or changes. A deck new to this site is created as a
    draft unless `publish`; only staff may create decks, authors may update theirs.
    `progress(steps_done)` follows the write for a job's progress bar: two steps per card,
    writing it (deck_apply's) and then its revision. Imports of one deck take turns; with
    `wait=False` (a web request) one that would wait is refused with ImportBusy (409)."""
    if not dry_run:
        _deck_import_lock(doc.slug, wait=wait)
    deck = Deck.objects.filter(slug=doc.slug).first()
    if deck is not None and deck.owner_id is not None:
        # A learner's own deck: it keeps its name, and stays theirs and unpublished.
        doc.title, doc.description, doc.objectives = deck.title, deck.description, deck.objectives
        publish = False
    if deck is None and not (user is None or user.is_staff):
        raise Forbidden(f"Only staff may create a new deck ({doc.slug!r}).")
    if deck is not None and user is not None and not can_author(user, deck):
        raise Forbidden(f"You are not an author of deck {deck.slug!r}.")
    before = {}
    if deck is not None:
        before = {c.slug: card_data(c) for c in deck.cards.select_related("section")}
    result = deck_apply(doc, dry_run=dry_run, progress=progress, learners_of=learners_with_progress)
    result.warnings = [str(f) for f in lint_documents(dataclasses.asdict(doc), []).findings]
    if dry_run:
        if doc.media:
            doc.notes += media_check_all(doc.media)[1]
        if deck is not None and deck.owner_id is not None:
            quota_check(user=deck.owner, cards=result.created)
        return result
    created = deck is None
    deck = Deck.objects.get(slug=doc.slug)
    if created or publish:
        # deck_apply creates with the model default (published); an import starts as a draft.
        deck.is_published = publish
        deck.save(update_fields=["is_published"])
    author = user if user is not None and user.is_authenticated else None
    first_revisions = []
    rows = sum(len(card_doc.cards()) for section in doc.sections for card_doc in section.cards)
    for done, card in enumerate(deck.cards.select_related("section"), 1):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(rows + done)  # the second pass: revisions
        old = before.get(card.slug)
        now = card_data(card)
        if old == now:
            continue
        if old is None:
            # A card this import created has no history to number or lock: revision 1 of each
            # goes in one batched INSERT (a 10,000-card import wrote them one by one).
            first_revisions.append(
                Revision(
                    card=card,
                    number=1,
                    data=now,
                    author=author,
                    source=Source.IMPORT,
                    note="created by import",
                )  # fmt: skip
            )
            continue
        original_keep(card=card, data=old)
        revision_add(
            card=card, data=now, author=user, source=Source.IMPORT, note="changed by import"
        )
    Revision.objects.bulk_create(first_revisions, batch_size=500)
    if doc.media:
        stored, refused = media_import(deck=deck, files=doc.media)
        doc.notes += refused
        if stored:
            cards_rerender(deck)
    if deck.owner_id is not None:
        quota_enforce(deck.owner)
    return result


def file_import(
    *, data: bytes, filename: str, options: dict, user, dry_run: bool = False
) -> tuple[DeckDoc, LoadResult]:
    """Read a whole import file (any format) and apply it in one transaction (deck_import),
    in the request: refused with ImportBusy (409) while another import of the deck runs.
    `options` as an ImportJob keeps them: fmt, deck_slug, deck_title, section, publish, into."""
    doc = import_read(data, filename=filename, options=options,
                      deck_slug=options.get("deck_slug", ""))  # fmt: skip
    publish = bool(options.get("publish"))
    if (
        not dry_run
        and ImportJob.objects.filter(
            deck_slug=doc.slug, status__in=ImportJob.ACTIVE, dry_run=False
        ).exists()
    ):
        raise ImportBusy(_busy_message(doc.slug))
    return doc, deck_import(doc=doc, user=user, dry_run=dry_run, publish=publish, wait=False)


def import_read(data: bytes, *, filename: str, options: dict, deck_slug: str) -> DeckDoc:
    """A whole import file read and checked (ContentError). With options["into"] (a learner's
    import into their own deck) the cards go into that deck whatever deck the file names."""
    into = options.get("into") or ""
    doc = import_document(
        data, filename=filename, fmt=options.get("fmt"), deck_slug=into or deck_slug,
        deck_title=options.get("deck_title", ""), section=options.get("section", ""),
    )  # fmt: skip
    if into:
        doc.slug = into
    return doc


def import_result_data(result: LoadResult, *, dry_run: bool, notes) -> dict:
    """What an import did, as the API answers it and a job keeps it."""
    return {
        "deck": result.deck, "dry_run": dry_run, "created": result.created,
        "changed": result.changed, "unchanged": result.unchanged,
        "changed_slugs": result.changed_slugs, "created_slugs": result.created_slugs,
        "retired": result.retired, "warnings": result.warnings, "notes": list(notes),
    }  # fmt: skip


# Imports as jobs ------------------------------------------------------------------------------


INLINE_IMPORT_MAX_BYTES = 64 * 1024  # a larger file is imported by the worker, as a job


def import_precheck(*, data: bytes, filename: str, fmt: str | None, deck_slug: str | None) -> None:
    """What can be refused at once, in milliseconds, before a job is made: the format, the
    encoding, a deck for csv and anki files (ContentError). The worker checks the rest."""
    source = filename or "upload"
    fmt = fmt or format_guess(filename)
    if fmt not in IMPORT_FORMATS:
        raise ContentError(
            source, "", f"unknown format {fmt!r}; use one of {', '.join(IMPORT_FORMATS)}"
        )
    if fmt == "apkg":  # a zip: its structure and size are checked here, its notes later
        try:
            apkg_precheck(data)
        except ApkgError as exc:
            raise ContentError(source, "", str(exc)) from None
    else:
        text_decode(data, source)
    if fmt in ("csv", "anki") and not deck_slug:
        raise ContentError(source, "", f"a {fmt} file has no deck: name the deck to import into")


class ImportBusy(Conflict):
    """Another import of the same deck is queued or running."""


def _busy_message(deck_slug: str) -> str:
    return (
        f"Another import of deck {deck_slug!r} is queued or running; wait for it to finish "
        "(its progress is on the import page), then import again."
    )


def import_job_create(
    *, user, data: bytes, filename: str, options: dict, dry_run: bool = False
) -> ImportJob:
    """Store an upload as an ImportJob and hand it to the worker once committed. `options`:
    fmt, deck_slug, deck_title, section, publish. A second job for a deck that has one queued or
    running is refused with ImportBusy (a dry run never is: it writes nothing)."""
    deck_slug = options.get("deck_slug", "") or ""
    with transaction.atomic():
        if (
            deck_slug
            and ImportJob.objects.filter(deck_slug=deck_slug, status__in=ImportJob.ACTIVE).exists()
        ):
            raise ImportBusy(_busy_message(deck_slug))
        try:
            with transaction.atomic():
                job = ImportJob.objects.create(
                    user=user, deck_slug=deck_slug, filename=filename, data=data,
                    dry_run=dry_run, options={k: v for k, v in options.items() if k != "deck_slug"},
                )  # fmt: skip
        except IntegrityError:  # a second tab won the race for the deck
            raise ImportBusy(_busy_message(deck_slug)) from None
        enqueue_on_commit(
            IMPORT_TASK, (job.pk,), on_broker_error=lambda reason: _unsent_fail(job, reason)
        )
    return job


def _unsent_fail(job: ImportJob, reason: str) -> None:
    """The broker did not take the job: it fails at once (the caller's `job` too, so the page
    and the API answer 503 with the sentence), never waits for a worker that will not come."""
    error = f"Nothing was imported: {reason}"
    import_job_fail(job.pk, error)
    job.status, job.error = ImportJob.Status.FAILED, error


def import_job_fail(job_id: int, error: str) -> None:
    ImportJob.objects.filter(pk=job_id, status__in=ImportJob.ACTIVE).update(
        status=ImportJob.Status.FAILED, error=error, finished_at=timezone.now()
    )


def import_job_time_out(*, job_id: int, seconds: int) -> None:
    import_job_fail(
        job_id, f"Nothing was imported: the import took longer than {seconds} s. Split the file."
    )


def _progress_key(job_id: int) -> str:
    return f"import-job-progress:{job_id}"


def import_job_progress(job: ImportJob) -> float:
    """0..1: 1 once finished; while running, the share of cards written so far (kept in the
    cache by the worker, outside the import's transaction, so the page can see it)."""
    if job.finished:
        return 1.0
    if job.status == ImportJob.Status.QUEUED or not job.rows_total:
        return 0.0
    done = cache.get(_progress_key(job.pk)) or 0
    return min(0.99, done / (2 * job.rows_total))  # two steps per card (deck_import)


class ImportWithdrawn(Exception):
    """The job stopped being this worker's while it wrote (the reaper failed it): undo the
    write, so the job's status and the deck always agree."""


def import_job_run(*, job_id: int) -> str | None:
    """The worker's side: claim a queued job, parse its file, write it in one transaction and
    record the counts (or the reason nothing was imported). Idempotent: a job already claimed
    or finished is left alone. A heartbeat proves the worker alive meanwhile; the success is
    recorded in the import's own transaction, so a job the reaper failed imported nothing."""
    now = timezone.now()
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING, started_at=now, heartbeat_at=now
    )
    if claimed != 1:
        return None

    def beat():
        ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.RUNNING).update(
            heartbeat_at=timezone.now()
        )

    heartbeat = Heartbeat(beat, settings.IMPORTS_HEARTBEAT_S, name=f"import-heartbeat-{job_id}")
    heartbeat.start()
    try:
        return _import_job_write(job_id)
    finally:
        heartbeat.stop()


def _import_job_write(job_id: int) -> str:
    job = ImportJob.objects.select_related("user").get(pk=job_id)
    options = job.options
    try:
        doc = import_read(bytes(job.data), filename=job.filename, options=options,
                          deck_slug=job.deck_slug)  # fmt: skip
        rows = sum(len(card.cards()) for s in doc.sections for card in s.cards)
        try:
            with transaction.atomic():
                ImportJob.objects.filter(pk=job_id).update(deck_slug=doc.slug, rows_total=rows)
        except IntegrityError:
            import_job_fail(job_id, f"Nothing was imported. {_busy_message(doc.slug)}")
            return ImportJob.Status.FAILED
        job.rows_total = rows

        def progress(done: int) -> None:
            cache.set(_progress_key(job_id), done, 3600)

        with transaction.atomic():
            result = deck_import(
                doc=doc, user=job.user, dry_run=job.dry_run,
                publish=bool(options.get("publish")), progress=progress,
            )  # fmt: skip
            succeeded = ImportJob.objects.filter(
                pk=job_id, status=ImportJob.Status.RUNNING
            ).update(
                status=ImportJob.Status.SUCCEEDED, finished_at=timezone.now(),
                result={**import_result_data(result, dry_run=job.dry_run, notes=doc.notes),
                        "summary": str(result)},
            )  # fmt: skip
            if not succeeded:
                raise ImportWithdrawn
    except ImportWithdrawn:
        log.warning("import job %s was failed while it ran; its write was rolled back", job_id)
        return ImportJob.Status.FAILED
    except ContentError as exc:
        import_job_fail(job_id, f"Nothing was imported. {exc}")
        return ImportJob.Status.FAILED
    except ServiceError as exc:  # not allowed, or past the quota of one's own cards
        import_job_fail(job_id, f"Nothing was imported. {exc.message}")
        return ImportJob.Status.FAILED
    cache.delete(_progress_key(job_id))
    return ImportJob.Status.SUCCEEDED


@reaper
def import_jobs_reap(*, stale_after_s: int | None = None, queued_after_s: int | None = None) -> int:
    """Fail import jobs whose worker stopped sending heartbeats (killed: its transaction rolled
    back, nothing was imported) and jobs no worker picked up; their decks are free again."""
    stale_after_s = stale_after_s or settings.IMPORTS_STALE_AFTER_S
    queued_after_s = queued_after_s or settings.IMPORTS_QUEUED_TIMEOUT_S
    now = timezone.now()
    dead = ImportJob.objects.filter(
        status=ImportJob.Status.RUNNING, heartbeat_at__lt=now - timedelta(seconds=stale_after_s)
    ).update(
        status=ImportJob.Status.FAILED, finished_at=now,
        error=f"Nothing was imported: the worker running this import stopped (no heartbeat for "
        f"{stale_after_s} s) and its writes were undone. Import the file again.",
    )  # fmt: skip
    unclaimed = ImportJob.objects.filter(
        status=ImportJob.Status.QUEUED, created_at__lt=now - timedelta(seconds=queued_after_s)
    ).update(
        status=ImportJob.Status.FAILED, finished_at=now,
        error=f"Nothing was imported: no worker picked this import up within "
        f"{queued_after_s // 60} minutes. Is the worker running? Import the file again.",
    )  # fmt: skip
    if dead or unclaimed:
        log.warning("reaped %s stale and %s unclaimed import jobs", dead, unclaimed)
    return dead + unclaimed
