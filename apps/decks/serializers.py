from rest_framework import serializers

from apps.decks.models import Card, Deck, Section


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
