"""CSV injection, defused in one place for every CSV the app writes (the deck export, the
personal export, the team progress CSV) and undone by the deck import.

A cell starting with one of FORMULA_STARTS is a formula to Excel and LibreOffice, so a username
such as `+1+cmd` or a card front `=HYPERLINK(...)` would run when the file is opened. A written
cell gets a ' before it, also when apostrophes come before the formula character, so
`cell_restore` takes exactly one ' off those cells again and a round trip stays exact.
Numbers are written as numbers (a negative count is not text a person typed).
"""

from __future__ import annotations

import csv

# What Excel and LibreOffice read as the start of a formula or a DDE command: = + - @, a tab or a
# line break before one, | (LibreOffice's DDE, `|cmd'!A1`), % (a formula in some locales), and
# the full-width, small and minus forms Excel folds into them (＝, ﹦, ＋, ﹢, －, ﹣, −, ＠, ﹫,
# ｜, ％).
FORMULA_STARTS = (
    "=", "+", "-", "@", "|", "%", "\t", "\r", "\n",
    "\uff1d", "\ufe66", "\uff0b", "\ufe62", "\uff0d", "\ufe63", "\u2212", "\uff20",
    "\ufe6b", "\uff5c", "\uff05",
)  # fmt: skip


def _formula_like(value: str) -> bool:
    return value.lstrip("'").startswith(FORMULA_STARTS)


def cell_defuse(value: str) -> str:
    return "'" + value if _formula_like(value) else value


def cell_restore(value: str) -> str:
    return value[1:] if value[:1] == "'" and _formula_like(value[1:]) else value


class SafeWriter:
    """csv.writer whose rows have every text cell defused."""

    def __init__(self, out, **options):
        self._writer = csv.writer(out, **options)

    def writerow(self, row):
        return self._writer.writerow(
            [cell_defuse(cell) if isinstance(cell, str) else cell for cell in row]
        )

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)


def writer(out, **options) -> SafeWriter:
    """The one way the app writes CSV: `csv_safety.writer(f).writerow([...])`."""
    return SafeWriter(out, **options)
