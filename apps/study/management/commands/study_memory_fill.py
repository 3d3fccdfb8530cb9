"""Work out every learner's stored FSRS memories from their review log again (migration 0008 did
it once; run this after restoring a backup or loading review logs by hand)."""

from django.core.management.base import BaseCommand

from apps.study.models import ReviewLog
from apps.study.services import card_memories_fill


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--user", type=int, action="append", help="only these user ids")

    def handle(self, *args, user=None, **options):
        learners = user or list(
            ReviewLog.objects.values_list("user_id", flat=True).distinct().order_by("user_id")
        )
        changed = 0
        for user_id in learners:
            changed += card_memories_fill(user_id=user_id)
        self.stdout.write(f"{len(learners)} learners, {changed} card memories changed")
