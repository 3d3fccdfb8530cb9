"""Finding 5: every CSV the app writes defuses cells a spreadsheet would run as formulas, through
one module (config/csv_safety.py): the team progress CSV did not."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from apps.teams.models import Membership
from config import csv_safety

pytestmark = pytest.mark.django_db

HOSTILE = ["+1+cmd", "-2+3", '=HYPERLINK("x")', "@SUM(A1)"]


def test_the_team_progress_csv_defuses_formula_usernames(client, team, django_user_model):
    for name in HOSTILE:
        Membership.objects.create(
            team=team, user=django_user_model.objects.create_user(username=name, password="x")
        )
    client.force_login(team.memberships.get(role="owner").user)
    response = client.get(reverse("teams:export", args=[team.slug]))
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    usernames = [row[0] for row in rows[1:]]
    for name in HOSTILE:
        assert "'" + name in usernames and name not in usernames
    for row in rows[1:]:
        assert not any(cell[:1] in "=+-@" and cell for cell in row), row


@given(st.text() | st.text(alphabet="'=+-@\t\rab ", max_size=6))
def test_a_defused_cell_restores_exactly_and_never_starts_a_formula(value):
    cell = csv_safety.cell_defuse(value)
    assert not cell.startswith(csv_safety.FORMULA_STARTS)
    assert csv_safety.cell_restore(cell) == value


def test_numbers_are_written_as_numbers():
    out = io.StringIO()
    csv_safety.writer(out).writerow([-2, 1.5, "-2"])
    assert out.getvalue().strip() == "-2,1.5,'-2"


def test_every_csv_the_app_writes_goes_through_the_one_module():
    """No module of the app calls csv.writer itself."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "apps"
    writers = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "csv.writer(" in path.read_text() or "csv.DictWriter(" in path.read_text()
    ]
    assert writers == []
