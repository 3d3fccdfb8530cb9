from fractions import Fraction

from django.db import migrations, models


def passed_from_stored_scores(apps, schema_editor):
    """Attempts scored before this field existed: the stored (rounded) score is all there is."""
    Attempt = apps.get_model("quizzes", "Attempt")
    passed = []
    for attempt in Attempt.objects.filter(score__isnull=False, max_score__gt=0).select_related(
        "quiz"
    ):
        ratio = Fraction(str(attempt.score)) / attempt.max_score
        if ratio >= Fraction(str(attempt.quiz.pass_mark)):
            passed.append(attempt.pk)
    Attempt.objects.filter(pk__in=passed).update(passed=True)


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0003_one_open_attempt"),
    ]

    operations = [
        migrations.AddField(
            model_name="attempt",
            name="passed",
            field=models.BooleanField(
                default=False,
                help_text="Whether the exact score (not the rounded one) reached the pass mark, "
                "as it was when the attempt was scored.",
            ),
        ),
        migrations.RunPython(passed_from_stored_scores, migrations.RunPython.noop),
    ]
