from rest_framework import serializers

from apps.decks.models import Card, Deck, Section


class ErrorSerializer(serializers.Serializer):
    """Every API error (config.api.exception_handler): a sentence, plus DRF's own detail or the
    refused fields, each with its messages, for clients that point at a form field."""

    error = serializers.CharField(help_text='A sentence a person can act on, e.g. "grade: grade '
                                  'must be 0 to 5, got 7".')  # fmt: skip
    detail = serializers.JSONField(required=False, help_text="DRF's message, when not a field's.")


class CardSerializer(serializers.ModelSerializer):
    section = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = Card
        fields = ["id", "slug", "section", "order", "front", "back", "why", "tags",
                  "front_html", "back_html", "why_html"]  # fmt: skip


class SectionSerializer(serializers.ModelSerializer):
    cards = CardSerializer(many=True, read_only=True)

    class Meta:
        model = Section
        fields = ["id", "slug", "order", "title", "summary", "cards"]


class DeckListSerializer(serializers.ModelSerializer):
    card_count = serializers.IntegerField(read_only=True)
    section_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Deck
        fields = ["slug", "title", "description", "objectives", "section_count", "card_count"]


class DeckDetailSerializer(serializers.ModelSerializer):
    sections = SectionSerializer(many=True, read_only=True)

    class Meta:
        model = Deck
        fields = ["slug", "title", "description", "objectives", "sections"]
