from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.authoring.formats import EXPORT_FORMATS, export_deck
from apps.decks.models import Deck


class Command(BaseCommand):
    help = (
        "Export a deck: yaml or json (RayDeck's own format, re-importable exactly), csv, or an "
        "Anki package (apkg). Writes to -o FILE, or to stdout for text formats."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the deck's slug, e.g. distributed-rl-on-ray")
        parser.add_argument("--format", choices=EXPORT_FORMATS, default="yaml", dest="fmt")
        parser.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")

    def handle(self, *args, slug: str, fmt: str, output: Path | None, **options):
        deck = Deck.objects.filter(slug=slug).first()
        if deck is None:
            known = ", ".join(Deck.objects.values_list("slug", flat=True)) or "none"
            raise CommandError(f"No deck {slug!r}. Decks: {known}.")
        if fmt == "apkg" and output is None:
            raise CommandError("An apkg is binary: give a file with -o, e.g. -o deck.apkg")
        data = export_deck(deck, fmt)
        if output is None:
            self.stdout.write(data.decode(), ending="")
            return
        try:
            output.write_bytes(data)
        except OSError as exc:
            raise CommandError(f"Cannot write {output}: {exc}") from None
        self.stderr.write(f"Wrote {deck.slug} as {fmt} to {output} ({len(data)} bytes).")
