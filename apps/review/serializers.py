from django.utils.dateparse import parse_datetime
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.study import scheduler
from apps.study.scheduler import CardSchedule
from apps.study.sync import conflict_message
from config.limits import JSONBooleanField, StrictUUIDField


@extend_schema_field({"type": "integer", "minimum": 0, "maximum": 5})
class GradeField(serializers.Field):
    """An integer 0..5; anything else is refused with the scheduler's own sentence."""

    def to_internal_value(self, data):
        if isinstance(data, str) and data.strip().isdigit():
            data = int(data)  # form posts and curl -d send text
        try:
            return scheduler.check_grade(data)
        except scheduler.GradeError as exc:
            raise serializers.ValidationError(str(exc)) from None

    def to_representation(self, value):
        return value


class ScheduleSerializer(serializers.Serializer):
    """A card's SM-2 state. ease_factor is a string with two decimals ("2.36"), exactly."""

    repetitions = serializers.IntegerField()
    ease_factor = serializers.DecimalField(max_digits=6, decimal_places=2)
    interval_days = serializers.IntegerField()
    due_at = serializers.DateTimeField()
    needs_redrill = serializers.BooleanField()
    lapses = serializers.IntegerField()


class MomentField(serializers.DateTimeField):
    """An ISO 8601 moment with its UTC offset ("2026-12-01T09:30:00+01:00" or "...Z"): a moment
    without one could be any of 24 hours."""

    def to_internal_value(self, value):
        parsed = parse_datetime(value.strip()) if isinstance(value, str) else None
        if parsed is not None and parsed.tzinfo is None:
            raise serializers.ValidationError(
                f"{value!r} has no UTC offset; send it as e.g. 2026-12-01T09:30:00Z"
            )
        return super().to_internal_value(value)


class ReviewCreateSerializer(serializers.Serializer):
    # Bounded like the columns: an id past 64 bits was a 500 once (tests/fuzz/test_found.py).
    card = serializers.IntegerField(min_value=1, max_value=2**63 - 1, help_text="Card id.")
    grade = GradeField(help_text="SM-2 grade, 0 (blackout) to 5 (perfect).")
    client_id = StrictUUIDField(
        required=False,
        allow_null=True,
        help_text="Your UUID for this review: a retry with the same one records nothing new.",
    )
    duration_ms = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=2**31 - 1
    )
    for_interview = JSONBooleanField(
        required=False,
        default=False,
        help_text="A card the queue lists for your interview: if SM-2 has not made it due, the"
        ' review is logged (kind "plan") and its schedule stays as it was.',
    )
    reviewed_at = MomentField(
        required=False,
        help_text="When you graded the card, for a review made offline and sent later (ISO 8601"
        " with its offset); now if absent. Refused (400, naming the bound) when more than 60"
        " seconds in the future, older than the days a device may hold reviews"
        " (RAYDECK_OFFLINE_HOLD_DAYS, 7 by default), before based_on, or (without based_on)"
        " before the card's last review. SM-2 (or the interview's memory update) is applied at"
        " this moment, and the card must have been due then.",
    )
    based_on = MomentField(
        required=False,
        allow_null=True,
        help_text="The last_reviewed_at of the card state you graded from (null: a card new to"
        " you). When the server holds a later review of the card (made on another device), both"
        ' are kept, the state is their replay in time order, and the response says "conflict".',
    )


class ConflictSerializer(serializers.Serializer):
    card = serializers.IntegerField(help_text="The card reviewed on two devices.")
    message = serializers.CharField()


class ReviewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    card = serializers.IntegerField(source="card_id")
    grade = serializers.IntegerField()
    reviewed_at = serializers.DateTimeField()
    state = serializers.SerializerMethodField()
    conflict = serializers.SerializerMethodField()

    def get_state(self, log) -> dict:
        return ScheduleSerializer(CardSchedule.from_json(log.state_after)).data

    @extend_schema_field(ConflictSerializer(allow_null=True))
    def get_conflict(self, log) -> dict | None:
        """Set when the card was also reviewed on another device that this review's device did
        not know of: both reviews are kept and the state is their replay in time order."""
        if not log.conflict:
            return None
        return {"card": log.card_id, "message": conflict_message(log.card_id, log.card.slug)}


class UndoSerializer(ReviewSerializer):
    undone_at = serializers.DateTimeField()
    restored = serializers.SerializerMethodField()

    def get_restored(self, log) -> dict | None:
        """The card's state now that the review is undone; null when the card is new again."""
        restored = log.restored if log.restored is not None else log.state_before
        if restored is None:
            return None
        return ScheduleSerializer(CardSchedule.from_json(restored)).data


class CardStateSerializer(ScheduleSerializer):
    card = serializers.IntegerField()
    new = serializers.BooleanField(help_text="True when the caller has never studied the card.")
    suspended = serializers.BooleanField()
    leech = serializers.BooleanField(
        help_text="The card lapsed as often as your profile's leech_threshold (8 by default)."
    )
    is_due = serializers.BooleanField()
    last_grade = serializers.IntegerField(allow_null=True)
    last_reviewed_at = serializers.DateTimeField(allow_null=True)


_DATETIME = serializers.DateTimeField()


def schedule_data(schedule) -> dict:
    """ScheduleSerializer's output, built directly: the queue lists hundreds of cards and a
    serializer instance per card cost more than the database did."""
    return {
        "repetitions": schedule.repetitions,
        "ease_factor": f"{schedule.ease_factor:.2f}",
        "interval_days": schedule.interval_days,
        "due_at": _DATETIME.to_representation(schedule.due_at),
        "needs_redrill": schedule.needs_redrill,
        "lapses": schedule.lapses,
    }


def queue_data(queue, deck_slug: str | None, *, limit: int | None = None) -> dict:
    """The queue as QueueSerializer describes it; `limit` caps the cards, not the counts."""
    items = queue.items if limit is None else queue.items[:limit]
    return {
        "deck": deck_slug,
        "scheduler": queue.scheduler,
        "counts": queue.counts,
        "limits": queue.limits,
        "cards": [
            {
                "id": item.card.pk,
                "slug": item.card.slug,
                "kind": item.kind,
                "for_interview": item.for_interview,
                "front_html": item.card.front_html,
                "back_html": item.card.back_html,
                "state": schedule_data(item.state) if item.state is not None else None,
            }
            for item in items
        ],
    }


class QueueCardSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="card.id")
    slug = serializers.CharField(source="card.slug")
    kind = serializers.CharField(
        help_text='"redrill" (again today), "due", "new", or "plan": a card the interview'
        " scheduler asks for today that SM-2 has not made due."
    )
    for_interview = serializers.BooleanField(
        help_text='True for a "plan" card: grade it with for_interview=true (a review of kind'
        ' "plan" that leaves its SM-2 schedule as it was).'
    )
    front_html = serializers.CharField(source="card.front_html")
    back_html = serializers.CharField(source="card.back_html")
    state = serializers.SerializerMethodField()

    def get_state(self, item) -> dict | None:
        return ScheduleSerializer(item.state.schedule).data if item.state is not None else None


class QueueSerializer(serializers.Serializer):
    deck = serializers.CharField(allow_null=True)
    scheduler = serializers.ChoiceField(
        choices=["sm2", "interview"],
        help_text='Which scheduler chose these cards: "sm2", or "interview" while you have an'
        " interview date and interview mode on (the interview scheduler's choice for today).",
    )
    counts = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="How many of each kind are left today (the whole queue, whatever the limit);"
        ' "buried" only when some new cards wait for tomorrow because a card of their note (a'
        " reverse or cloze sibling) was reviewed today (they are in no list, and the next new"
        ' cards take their places). In interview mode: "due", "new", "plan" and "waiting" (SM-2'
        " due cards the interview does not need today: they wait, still due).",
    )
    limits = serializers.DictField(child=serializers.IntegerField())
    cards = QueueCardSerializer(many=True)


class CardStatePatchSerializer(serializers.Serializer):
    suspended = JSONBooleanField(
        help_text="true takes the card out of your queue (its schedule is kept);"
        " false puts it back."
    )
