import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from apps.decks.content import ContentError, read_yaml
from apps.quizzes.lint import content_lint
from apps.quizzes.teaching import blind_packet, blind_scores, teaching_figures


def _documents(folder: Path, deck_slug: str) -> list[dict]:
    """The quiz or demo link files of a deck."""
    documents = [
        read_yaml(f.read_text(encoding="utf-8"), str(f)) for f in sorted(folder.glob("*.y*ml"))
    ]
    return [d for d in documents if isinstance(d, dict) and d.get("deck") == deck_slug]


class Command(BaseCommand):
    help = (
        "Print the content figures of the shipped decks and quizzes (cards, cloze items,"
        " questions by kind, true share, longest-right share, each gaming strategy's score)"
        " and the content lint's findings, then the teaching-quality figures beside their"
        " targets. --check fails when there is any lint finding. --blind-packet writes the"
        " questions without answers for a reader who has not seen the deck; --blind-answers"
        " scores that reader's answers per quiz."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--fixtures", type=Path, default=Path(settings.BASE_DIR) / "fixtures", help="folder"
        )
        parser.add_argument("--check", action="store_true", help="fail on any finding")
        parser.add_argument("--blind-packet", type=Path, help="write the blind reader's questions")
        parser.add_argument("--blind-answers", type=Path, help="score the blind reader's answers")

    def handle(self, *args, fixtures: Path, check: bool, **options):
        decks = sorted((fixtures / "decks").glob("*.y*ml"))
        if not decks:
            raise CommandError(f"No deck files in {fixtures / 'decks'}.")
        failed = 0
        for path in decks:
            try:
                deck = read_yaml(path.read_text(encoding="utf-8"), str(path))
                quizzes = _documents(fixtures / "quizzes", deck["slug"])
                demos = _documents(fixtures / "demos", deck["slug"])
            except (OSError, ContentError) as exc:
                raise CommandError(str(exc)) from None
            report = content_lint(deck, quizzes, demos)
            self.stdout.write(self.style.MIGRATE_HEADING(f"{path.relative_to(fixtures)}"))
            for line in report.figures.lines():
                self.stdout.write(f"  {line}")
            self.stdout.write(f"  findings: {len(report.findings)}")
            for finding in report.findings:
                self.stdout.write(f"    [{finding.rule}] {finding}")
            failed += len(report.findings)
            teaching = teaching_figures(deck, quizzes)
            if options.get("blind_answers"):
                answers = json.loads(options["blind_answers"].read_text(encoding="utf-8"))
                teaching.blind = blind_scores(quizzes, answers)
            self.stdout.write("  teaching quality:")
            for line in teaching.lines():
                self.stdout.write(f"    {line}")
            if options.get("blind_packet"):
                packet = blind_packet(quizzes)
                options["blind_packet"].write_text(json.dumps(packet, indent=1, ensure_ascii=False))
                self.stdout.write(f"  blind reader's packet written to {options['blind_packet']}")
        if check and failed:
            raise CommandError(f"The content lint has {failed} finding(s).")
