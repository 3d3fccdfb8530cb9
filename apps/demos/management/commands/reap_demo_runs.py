from django.core.management.base import BaseCommand

from apps.demos.worker import demo_runs_reap


class Command(BaseCommand):
    help = "Fail demo runs whose worker stopped (stale heartbeat) or that no worker picked up."

    def add_arguments(self, parser):
        parser.add_argument("--stale-after", type=int, default=None, help="seconds")
        parser.add_argument("--queued-after", type=int, default=None, help="seconds")

    def handle(self, *args, stale_after, queued_after, **options):
        count = demo_runs_reap(stale_after_s=stale_after, queued_after_s=queued_after)
        self.stdout.write(f"{count} demo run(s) marked failed.")
