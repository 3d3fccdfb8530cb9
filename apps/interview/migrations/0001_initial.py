"""The interview plan, moved here from the study app with every row: StudyPlan enters this
app's state on study's table (study 0014 took it out of study's state), the table is renamed to
this app's name, and its content type follows."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def content_types_follow(apps, schema_editor, *, old="study", new="interview"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label=new, model="studyplan").exists():
        ContentType.objects.filter(app_label=old, model="studyplan").update(app_label=new)


def content_types_back(apps, schema_editor):
    content_types_follow(apps, schema_editor, old="interview", new="study")


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
                    name="StudyPlan",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("key", models.CharField(help_text="What the plan was built from.", max_length=200)),
                        ("today", models.JSONField(default=list, help_text="Today's cards: [[card id, kind], ...].")),
                        ("summary", models.JSONField(default=dict)),
                        ("built_at", models.DateTimeField()),
                        ("user", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={"db_table": "study_studyplan"},
                ),
            ],
            database_operations=[],
        ),
        migrations.AlterModelTable(name="studyplan", table=None),
        migrations.RunPython(content_types_follow, content_types_back),
    ]
