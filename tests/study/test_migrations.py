"""The models that left the study app keep every row: PracticeState and PracticeLog went to the
practice app, StudyPlan to the interview app (study 0014, practice 0001, interview 0001). Rows
made at the old state are read at the new one, in tables renamed to the new apps' names, with
the same content types; new rows follow them."""

from datetime import UTC, datetime

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from apps.interview.models import StudyPlan
from apps.practice.models import PracticeLog, PracticeState

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("study", "0013_reviewlog_conflict")
MOVED = {
    ("study", "practicestate"): ("practice", "practicestate"),
    ("study", "practicelog"): ("practice", "practicelog"),
    ("study", "studyplan"): ("interview", "studyplan"),
}
AT = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)


def _migrate(targets):
    """Migrate to `targets` and return the models as they were there."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def _latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def test_rows_made_before_the_move_are_read_after_it():
    content_types = {new: ContentType.objects.get_by_natural_key(*new).pk for new in MOVED.values()}
    try:
        old = _migrate([BEFORE])
        user = old.get_model("auth", "User").objects.create(username="ada")
        state = old.get_model("study", "PracticeState").objects.create(
            user_id=user.pk, kind="drill", key="gpu-sizing", repetitions=2, interval_days=6,
            due_at=AT, last_grade=4, last_reviewed_at=AT,
        )  # fmt: skip
        log = old.get_model("study", "PracticeLog").objects.create(
            user_id=user.pk, kind="drill", key="gpu-sizing", ref="attempt-7", grade=4,
            reviewed_at=AT, state_before=None, state_after={"repetitions": 2},
        )  # fmt: skip
        plan = old.get_model("study", "StudyPlan").objects.create(
            user_id=user.pk, key="2|2026-12-01", today=[[3, "due", 1]], summary={"waiting": 0},
            built_at=AT,
        )  # fmt: skip
    finally:
        _migrate(_latest())

    tables = connection.introspection.table_names()
    assert {"practice_practicestate", "practice_practicelog", "interview_studyplan"} <= set(tables)
    assert not {"study_practicestate", "study_practicelog", "study_studyplan"} & set(tables)
    moved_state = PracticeState.objects.get(pk=state.pk)
    assert (moved_state.user_id, moved_state.key, moved_state.repetitions) == (
        user.pk,
        "gpu-sizing",
        2,
    )
    assert moved_state.schedule.last_reviewed_at == AT
    moved_log = PracticeLog.objects.get(pk=log.pk)
    assert (moved_log.ref, moved_log.state_after) == ("attempt-7", {"repetitions": 2})
    moved_plan = StudyPlan.objects.get(pk=plan.pk)
    assert (moved_plan.today, moved_plan.summary) == ([[3, "due", 1]], {"waiting": 0})
    # The content types moved with the models (permissions point at them), and none is left.
    for (old_app, model), new in MOVED.items():
        assert ContentType.objects.get_by_natural_key(*new).pk == content_types[new]
        assert not ContentType.objects.filter(app_label=old_app, model=model).exists()
    # New rows take ids after the moved ones (PostgreSQL's identity kept its place).
    fresh = PracticeState.objects.create(user_id=user.pk, kind="drill", key="other", due_at=AT)
    assert fresh.pk > state.pk
