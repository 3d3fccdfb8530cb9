from collections.abc import Callable
from functools import partial
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from apps.authoring.selectors import learners_with_progress
from apps.decks.content import ContentError, deck_file_load
from apps.demos.content import demo_links_file_load
from apps.exercises.services import exercise_file_load
from apps.quizzes.content import quiz_file_load

# Each app's content loader, in dependency order: (folder under fixtures/, loader(path) -> result).
LOADERS: list[tuple[str, Callable[[Path], object]]] = [
    # A retired card's count of learners with progress comes from study, which decks sits below.
    ("decks", partial(deck_file_load, learners_of=learners_with_progress)),
    ("quizzes", quiz_file_load),
    ("demos", demo_links_file_load),
    ("exercises", exercise_file_load),
]


class Command(BaseCommand):
    help = (
        "Load the shipped content from fixtures/ (decks, quizzes, demo links, exercises). "
        "Idempotent: "
        "a second run changes nothing and never resets anyone's progress."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--fixtures", type=Path, default=Path(settings.BASE_DIR) / "fixtures", help="folder"
        )

    def handle(self, *args, fixtures: Path, **options):
        try:
            with transaction.atomic():
                for folder, load in LOADERS:
                    for path in sorted((fixtures / folder).glob("*.y*ml")):
                        self.stdout.write(f"{path.relative_to(fixtures)}: {load(path)}")
        except ContentError as exc:
            raise CommandError(f"Nothing was loaded. {exc}") from None
        self.stdout.write(self.style.SUCCESS("Shipped content is loaded."))
