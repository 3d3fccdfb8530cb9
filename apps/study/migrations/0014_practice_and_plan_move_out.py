"""PracticeState and PracticeLog move to the practice app and StudyPlan to the interview app:
taken out of study's state only; their tables stay, and the new apps' first migrations take
them over (apps/practice/migrations/0001_initial.py, apps/interview/migrations/0001_initial.py)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("study", "0013_reviewlog_conflict"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="PracticeLog"),
                migrations.DeleteModel(name="PracticeState"),
                migrations.DeleteModel(name="StudyPlan"),
            ],
            database_operations=[],
        ),
    ]
