"""The practice items' schedules and logs, moved here from the study app with every row: the
models enter this app's state on study's tables (study 0014 took them out of study's state), the
tables are renamed to this app's names, and their content types follow, so permissions and admin
history keep pointing at them."""

from decimal import Decimal

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MODELS = ("practicestate", "practicelog")


def content_types_follow(apps, schema_editor, *, old="study", new="practice"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MODELS:
        if not ContentType.objects.filter(app_label=new, model=model).exists():
            ContentType.objects.filter(app_label=old, model=model).update(app_label=new)


def content_types_back(apps, schema_editor):
    content_types_follow(apps, schema_editor, old="practice", new="study")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("study", "0014_practice_and_plan_move_out"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="PracticeLog",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("kind", models.CharField(choices=[("exercise", "code exercise"), ("drill", "sizing or debugging drill")], max_length=16)),
                        ("key", models.CharField(max_length=120)),
                        ("ref", models.CharField(max_length=64)),
                        ("grade", models.PositiveSmallIntegerField()),
                        ("reviewed_at", models.DateTimeField()),
                        ("state_before", models.JSONField(blank=True, help_text="None for a first practice.", null=True)),
                        ("state_after", models.JSONField()),
                        ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "study_practicelog",
                        "indexes": [models.Index(fields=["user", "reviewed_at"], name="practice_log_user_time")],
                        "constraints": [models.UniqueConstraint(fields=("kind", "key", "ref"), name="practice_log_ref_once")],
                    },
                ),
                migrations.CreateModel(
                    name="PracticeState",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("kind", models.CharField(choices=[("exercise", "code exercise"), ("drill", "sizing or debugging drill")], max_length=16)),
                        ("key", models.CharField(help_text="The item's slug or key in its own app.", max_length=120)),
                        ("repetitions", models.PositiveIntegerField(default=0)),
                        ("ease_factor", models.DecimalField(decimal_places=2, default=Decimal("2.50"), max_digits=6)),
                        ("interval_days", models.PositiveIntegerField(default=0)),
                        ("due_at", models.DateTimeField()),
                        ("needs_redrill", models.BooleanField(default=False)),
                        ("redrill_anchor", models.DateTimeField(blank=True, null=True)),
                        ("lapses", models.PositiveIntegerField(default=0)),
                        ("last_grade", models.PositiveSmallIntegerField(blank=True, null=True)),
                        ("last_reviewed_at", models.DateTimeField(blank=True, null=True)),
                        ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="practice_states", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "study_practicestate",
                        "indexes": [models.Index(fields=["user", "kind", "due_at"], name="practice_state_due")],
                        "constraints": [models.UniqueConstraint(fields=("user", "kind", "key"), name="practice_state_one_per_item")],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.AlterModelTable(name="practicelog", table=None),
        migrations.AlterModelTable(name="practicestate", table=None),
        migrations.RunPython(content_types_follow, content_types_back),
    ]
