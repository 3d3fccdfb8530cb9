from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

_DATETIME = serializers.DateTimeField()


class BrowseStateSerializer(serializers.Serializer):
    """The caller's schedule of a card in the browser; null for a card never studied."""

    repetitions = serializers.IntegerField()
    ease_factor = serializers.DecimalField(max_digits=6, decimal_places=2)
    interval_days = serializers.IntegerField()
    due_at = serializers.DateTimeField()
    lapses = serializers.IntegerField()
    suspended = serializers.BooleanField()
    leech = serializers.BooleanField()
    last_reviewed_at = serializers.DateTimeField(allow_null=True)


class BrowseCardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    deck = serializers.CharField(source="deck.slug")
    section = serializers.CharField(source="section.slug")
    front_html = serializers.CharField()
    back_html = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    state = serializers.SerializerMethodField()

    @extend_schema_field(BrowseStateSerializer(allow_null=True))
    def get_state(self, card) -> dict | None:
        if card.mine_id is None:
            return None
        return {
            "repetitions": card.mine_repetitions,
            "ease_factor": f"{card.mine_ease_factor:.2f}",
            "interval_days": card.mine_interval_days,
            "due_at": _DATETIME.to_representation(card.mine_due_at),
            "lapses": card.mine_lapses,
            "suspended": card.mine_suspended,
            "leech": card.mine_leech,
            "last_reviewed_at": _DATETIME.to_representation(card.mine_last_reviewed_at)
            if card.mine_last_reviewed_at
            else None,
        }


class BrowsePageSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Cards matching, on all pages.")
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    results = BrowseCardSerializer(many=True)
