from django.core.validators import RegexValidator
from django.db import models
from rest_framework import serializers

from apps.decks.content import SLUG_RE, SLUG_RULE
from apps.decks.models import Card, Deck, Section
from config.limits import JSONBooleanField


# JSON bodies are taken as the schema types them. DRF alone would store 7 for the text "7" and
# read 0 or "yes" as false or true; a client sending those has a bug worth a 400 that says so.
class JSONCharField(serializers.CharField):
    # DRF refuses a NUL character, and text of spaces only as blank; the pattern tells the
    # schema so (one pattern per field in the schema: a field with its own replaces these).
    # Whitespace spelt out as Python's str.strip() sees it (\x1c-\x1f, \x85 and \xa0 too): a
    # schema's "\s" means less in other regex engines, which would call "\x85" not blank.
    pattern = RegexValidator(
        r"^[^\x00]*[^\x00\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f"
        r"\u3000][^\x00]*$",
        "must not be blank",
    )
    # "+", not "*": the schema offers a blank field as oneOf this pattern or maxLength 0, and ""
    # must match just one of them.
    blank_pattern = RegexValidator(r"^[^\x00]+$", "must not contain a NUL character")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        if not self.read_only:
            self.validators.append(self.blank_pattern if self.allow_blank else self.pattern)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        if self.max_length is not None and len(data) > self.max_length:
            # Counted as sent, as the schema's maxLength is, not after trimming spaces.
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class SlugTextField(JSONCharField):
    """A slug as the content loader accepts it (apps.decks.content.SLUG_RE), so the schema
    tells clients the rule the server applies: lowercase words joined by hyphens."""

    pattern = RegexValidator(SLUG_RE, SLUG_RULE)

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 80)
        super().__init__(**kwargs)


class JSONModelSerializer(serializers.ModelSerializer):
    # A ModelSerializer whose text and boolean fields take only JSON strings and booleans (a
    # comment, not a docstring: the schema would show a docstring on every subclass).
    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.CharField: JSONCharField,
        models.TextField: JSONCharField,
        models.BooleanField: JSONBooleanField,
    }


class CardSerializer(serializers.ModelSerializer):
    section: serializers.SlugRelatedField[Section] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )

    class Meta:
        model = Card
        fields = ["id", "slug", "section", "kind", "note_slug", "ordinal", "order", "front",
                  "back", "why", "source", "tags", "front_html", "back_html",
                  "why_html"]  # fmt: skip


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
