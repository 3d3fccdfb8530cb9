"""Predicted recall in SQL: the FSRS forgetting curve summed over a learner's stored card
memories, for the interview plan's readiness figures (apps.interview.plan)."""

from __future__ import annotations

from datetime import date

from django.db.models import DateField, F, FloatField, Func, IntegerField, Q, Sum, Value
from django.db.models.functions import Cast, Greatest, Power

from apps.study.memory import MemoryModel
from apps.study.models import CardState, MemoryFit


class DaysSince(Func):
    """Whole days from a date column to `day` (day - column), in SQL: PostgreSQL subtracts
    dates, SQLite subtracts Julian day numbers."""

    template = "(%(expressions)s)"
    arg_joiner = " - "
    output_field = IntegerField()

    def __init__(self, day: date, column: str):
        super().__init__(Value(day, output_field=DateField()), F(column))

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(
            compiler, connection, template="CAST(julianday(%(expressions)s) AS INTEGER)",
            arg_joiner=") - julianday(", **extra,
        )  # fmt: skip


def recall_sums(days: dict[int, date], deck_id: int | None) -> dict[int, float]:
    """Each learner's expected number of cards recalled on their `days` day, from the stored
    memories (the FSRS curve in SQL, with their own decay), over the cards of `deck_id` or of
    their queue's decks (the published ones and their own); suspended and retired cards left
    out. Two queries, and one more for each other pair of day and decay among the learners."""
    decay = dict.fromkeys(days, MemoryModel().decay)
    fits = MemoryFit.objects.filter(user_id__in=list(days)).values_list("user_id", "parameters")
    for uid, parameters in fits:
        decay[uid] = MemoryModel(parameters or None).decay
    groups: dict[tuple[date, float], list[int]] = {}
    for uid, day in days.items():
        groups.setdefault((day, decay[uid]), []).append(uid)
    out = dict.fromkeys(days, 0.0)
    for (day, d), uids in groups.items():
        factor = 0.9 ** (-1 / d) - 1
        elapsed = Greatest(DaysSince(day, "memory_day"), Value(0))
        curve = Power(
            Value(1.0) + Value(factor) * Cast(elapsed, FloatField()) / F("stability"),
            Value(-d),
        )
        states = CardState.objects.filter(
            user_id__in=uids, suspended=False, card__retired_at=None, stability__isnull=False
        )
        if deck_id is not None:
            states = states.filter(deck_id=deck_id)
        else:  # the decks of the learner's queue: the published ones and their own
            states = states.filter(Q(deck__is_published=True) | Q(deck__owner_id=F("user_id")))
        rows = states.order_by().values("user_id").annotate(total=Sum(curve))
        out |= {row["user_id"]: float(row["total"] or 0.0) for row in rows}
    return out
