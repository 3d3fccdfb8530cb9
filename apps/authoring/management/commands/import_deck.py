from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.authoring.formats import IMPORT_FORMATS
from apps.authoring.services import file_import
from apps.decks.content import MAX_FILE_BYTES, ContentError


class Command(BaseCommand):
    help = (
        "Import a deck file in one transaction: yaml/json (RayDeck's format), csv (columns "
        "front, back, section, tags; optional slug, section_title, why) or an Anki text export "
        "(anki). CSV and Anki files need --deck. A deck new to this site starts as a draft "
        f"unless --publish. Files over {MAX_FILE_BYTES // 1024 // 1024} MiB are refused."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--format", choices=IMPORT_FORMATS, dest="fmt", help="default: from the file name"
        )
        parser.add_argument("--deck", default="", help="deck slug for csv and anki files")
        parser.add_argument("--title", default="", help="title of a new deck (csv, anki)")
        parser.add_argument("--section", default="", help="section for anki cards")
        parser.add_argument("--dry-run", action="store_true", help="count changes, write nothing")
        parser.add_argument("--publish", action="store_true", help="publish a new deck")

    def handle(self, *args, file: Path, fmt, deck, title, section, dry_run, publish, **options):
        try:
            # One byte past the limit is enough to refuse; a file's stat size can lie (pipes,
            # /dev/zero), so the read itself is what is bounded.
            with file.open("rb") as stream:
                data = stream.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise CommandError(f"Cannot read {file}: {exc.strerror}") from None
        try:
            options = {"fmt": fmt, "deck_slug": deck, "deck_title": title, "section": section,
                       "publish": publish}  # fmt: skip
            _, result = file_import(
                data=data, filename=file.name, options=options, user=None, dry_run=dry_run
            )
        except ContentError as exc:
            raise CommandError(f"Nothing was imported. {exc}") from None
        prefix = "Dry run, nothing written: " if dry_run else "Imported "
        self.stdout.write(f"{prefix}{result}")
        for slug, learners in result.retired.items():
            self.stdout.write(f"  retired {slug}: {learners} learner(s) had progress (kept)")
        for warning in result.warnings:
            self.stdout.write(self.style.WARNING(f"  warning: {warning}"))
