"""Author API shapes. Writes go through apps.authoring.services, which validate and record
revisions; these serializers describe fields for the schema and reject wrong types early."""

from decimal import ROUND_HALF_UP
from typing import Any, ClassVar

from django.contrib.auth.base_user import AbstractBaseUser
from rest_framework import serializers

from apps.authoring.models import Revision
from apps.decks.models import Card, Deck, Section
from apps.decks.serializers import (
    JSONBooleanField,
    JSONCharField,
    JSONModelSerializer,
    SlugTextField,
)
from apps.quizzes.models import Question, Quiz
from config.limits import NulFreeJSONField


class AuthorDeckSerializer(JSONModelSerializer):
    slug = SlugTextField()
    objectives = serializers.ListField(child=JSONCharField(), required=False)
    section_count = serializers.SerializerMethodField()
    card_count = serializers.SerializerMethodField()

    class Meta:
        model = Deck
        fields = ["slug", "title", "description", "objectives", "is_published",
                  "section_count", "card_count", "updated_at"]  # fmt: skip
        read_only_fields = ["updated_at"]
        extra_kwargs: ClassVar[dict[str, dict[str, Any]]] = {"slug": {"validators": []}}

    def get_section_count(self, deck) -> int:
        return deck.section_count if hasattr(deck, "section_count") else deck.sections.count()

    def get_card_count(self, deck) -> int:
        return deck.card_count if hasattr(deck, "card_count") else deck.cards.count()


class AuthorSectionSerializer(JSONModelSerializer):
    deck: serializers.SlugRelatedField[Deck] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )
    slug = SlugTextField()

    class Meta:
        model = Section
        fields = ["id", "deck", "slug", "order", "title", "summary", "summary_html"]
        read_only_fields = ["order", "summary_html"]
        extra_kwargs: ClassVar[dict[str, dict[str, Any]]] = {"slug": {"validators": []}}


class DemoSlugsField(serializers.ListField):
    """The slugs of the live demos linked to a card (apps.demos DemoCardLink)."""

    child = SlugTextField()

    def get_attribute(self, card):
        return [link.demo for link in card.demo_links.all()]


class AuthorCardSerializer(JSONModelSerializer):
    deck: serializers.SlugRelatedField[Deck] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )
    slug = SlugTextField()
    section = SlugTextField(source="section.slug", help_text="slug of a deck section")
    tags = serializers.ListField(child=JSONCharField(), required=False)
    note = JSONCharField(
        write_only=True, required=False, allow_blank=True, max_length=200,
        help_text="why the edit was made, kept in the card's history",
    )  # fmt: skip
    changes_answer = JSONBooleanField(
        write_only=True, required=False, default=False,
        help_text="true makes the card due now for every learner who studied it",
    )  # fmt: skip
    kind = serializers.ChoiceField(
        choices=Card.Kind.choices, required=False,
        help_text="basic, reverse (two cards) or cloze (one card per {{cN::...}} index); set"
        " when the card is created",
    )  # fmt: skip
    back = JSONCharField(required=False, allow_blank=True, help_text="optional for cloze")
    # A field named like Field.source: DRF's metaclass takes declared fields off the class, but
    # the stubs see the class attribute Field.source (str | None) redefined.
    source = JSONCharField(  # type: ignore[assignment]
        required=False, allow_blank=True, max_length=500,
        help_text="paper and section, or Ray docs page and version; shown under the answer",
    )  # fmt: skip
    type_answer = JSONBooleanField(
        required=False, help_text="the learner types the answer before it is shown, then compares"
    )
    revision = serializers.SerializerMethodField(help_text="the card's latest revision number")
    demos = DemoSlugsField(required=False, help_text="slugs of live demos illustrating the card")

    class Meta:
        model = Card
        fields = ["id", "deck", "section", "slug", "kind", "note_slug", "ordinal", "order",
                  "front", "back", "why", "source", "tags", "type_answer", "front_html",
                  "back_html", "why_html", "updated_at", "revision", "demos", "note",
                  "changes_answer"]  # fmt: skip
        read_only_fields = ["order", "note_slug", "ordinal", "front_html", "back_html",
                            "why_html", "updated_at"]  # fmt: skip
        extra_kwargs: ClassVar[dict[str, dict[str, Any]]] = {
            "slug": {"validators": []},
            "why": {"required": False},
        }

    def get_revision(self, card) -> int | None:
        if hasattr(card, "latest_revision"):
            return card.latest_revision
        latest = card.revisions.order_by("-number").first()
        return latest.number if latest else None


class RevisionSerializer(serializers.ModelSerializer):
    author: serializers.SlugRelatedField[AbstractBaseUser] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )
    restored_from: serializers.SlugRelatedField[Revision] = serializers.SlugRelatedField(
        slug_field="number", read_only=True, allow_null=True,
        help_text="number of the revision this one restored; null for an edit",
    )  # fmt: skip

    class Meta:
        model = Revision
        fields = ["id", "number", "data", "author", "created_at", "note", "changes_answer",
                  "source", "restored_from"]  # fmt: skip


class RestoreSerializer(serializers.Serializer):
    changes_answer = JSONBooleanField(required=False, default=False)


class MoveSerializer(serializers.Serializer):
    direction = serializers.ChoiceField(choices=["up", "down"])


class ShareField(serializers.DecimalField):
    """A share from 0 to 1 rounded to hundredths: the schema can say "a number from 0 to 1"
    but not "at most two decimals", so 0.705 is kept as 0.71 rather than refused."""

    def __init__(self, **kwargs):
        super().__init__(rounding=ROUND_HALF_UP, **kwargs)

    def validate_precision(self, value):
        if value < self.min_value:
            self.fail("min_value", min_value=self.min_value)
        if value > self.max_value:
            self.fail("max_value", max_value=self.max_value)
        return value  # quantize() rounds it to decimal_places


class AuthorQuizSerializer(JSONModelSerializer):
    deck: serializers.SlugRelatedField[Deck] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )
    slug = SlugTextField()
    section = SlugTextField(
        source="section.slug", required=False, allow_null=True, default=None,
        help_text="slug of the section whose page shows a checkpoint; null for a deck check",
    )  # fmt: skip
    kind = serializers.ChoiceField(choices=Quiz.Kind.choices)
    # A number, not DRF's decimal string: the schema's pattern for that admits "".
    pass_mark = ShareField(
        max_digits=3, decimal_places=2, min_value=0, max_value=1, coerce_to_string=False,
        required=False, help_text="Share of points to pass, 0 to 1, kept to hundredths.",
    )  # fmt: skip
    question_count = serializers.SerializerMethodField()

    class Meta:
        model = Quiz
        fields = ["slug", "deck", "section", "title", "kind", "pass_mark", "time_limit_seconds",
                  "shuffle", "order", "question_count"]  # fmt: skip
        read_only_fields = ["order"]
        extra_kwargs: ClassVar[dict[str, dict[str, Any]]] = {"slug": {"validators": []}}

    def get_question_count(self, quiz) -> int:
        if hasattr(quiz, "question_count"):
            return quiz.question_count
        return quiz.questions.count()


class ChoiceDocSerializer(serializers.Serializer):
    text = JSONCharField()
    correct = JSONBooleanField(default=False)


class StatementDocSerializer(serializers.Serializer):
    text = JSONCharField()
    answer = JSONBooleanField()


class PairDocSerializer(serializers.Serializer):
    left = JSONCharField()
    right = JSONCharField()


class AuthorQuestionSerializer(serializers.Serializer):
    """A question in the quiz file format, with its options in the author's order."""

    id = serializers.IntegerField(read_only=True)
    quiz = serializers.CharField(read_only=True)
    slug = SlugTextField()
    # The same choices as Question.kind, so the schema names one enum (ENUM_NAME_OVERRIDES).
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    prompt = JSONCharField()
    explanation = JSONCharField()
    points = serializers.IntegerField(min_value=1, max_value=100, default=1)
    cards = serializers.ListField(child=SlugTextField(), help_text="card slugs")
    choices = ChoiceDocSerializer(many=True, required=False, help_text="single and multi")
    statements = StatementDocSerializer(many=True, required=False, help_text="true_false")
    pairs = PairDocSerializer(many=True, required=False, help_text="match")
    given = serializers.ListField(
        child=NulFreeJSONField(), required=False,
        help_text="numeric (a sizing drill): the numbers drawn per attempt, each {name, min, max,"
        " step, unit, label}; refused with the field named if a range is empty",
    )  # fmt: skip
    derived = serializers.ListField(
        child=NulFreeJSONField(), required=False,
        help_text="numeric: intermediate quantities, each {name, formula}, shown in the solution",
    )  # fmt: skip
    formula = JSONCharField(
        required=False, help_text="numeric: the answer as a formula over the names (+ - * / // **,"
        " ceil, floor, round, min, max, sqrt, log2, log10); refused if it can divide by zero",
    )  # fmt: skip
    tolerance = serializers.FloatField(
        required=False, help_text="numeric: how far an answer may be from the right value, a "
        "share of it (0.05 for 5%; 0 for exact)",
    )  # fmt: skip
    unit = JSONCharField(required=False, allow_blank=True, help_text="numeric: the answer's unit")
    solution = JSONCharField(
        required=False, help_text="numeric: the worked solution, Markdown with {name} and {answer}"
    )
    evidence = NulFreeJSONField(
        required=False, help_text="single or multi (a debugging drill): {tool, source, output}"
    )
    note = JSONCharField(write_only=True, required=False, allow_blank=True, max_length=200)


class ImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="at most 2 MiB")
    format = serializers.ChoiceField(
        choices=["yaml", "json", "csv", "anki", "apkg"], required=False,
        help_text="default: from the file name (.yaml .yml .json .csv .txt .apkg)",
    )  # fmt: skip
    # A form sends an empty field for one left empty: blank means "not given" here.
    deck = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="deck slug, for csv and anki files (apkg: its deck's name)",
    )
    title = serializers.CharField(
        required=False, allow_blank=True, help_text="title of a new deck (csv, anki)"
    )
    section = serializers.CharField(
        required=False, allow_blank=True, help_text="section for anki cards"
    )
    publish = serializers.BooleanField(required=False, default=False)

    def validate(self, attrs):
        """A form field this import does not take is refused, as the schema says, rather than
        silently dropped (a misspelt "deck" would import into the wrong place)."""
        unknown = sorted(str(name) for name in set(self.initial_data) - set(self.fields))
        if unknown:
            name = unknown[0][:40]
            allowed = ", ".join(self.fields)
            raise serializers.ValidationError(
                {name: f"unknown field {name!r} (allowed: {allowed})"}
            )
        # A form field sent twice (title=a&title=b) is ambiguous: refused, not "the last one".
        getlist = getattr(self.initial_data, "getlist", None)
        if getlist is not None:
            for field, _ in self.fields.items():
                if len(getlist(field)) > 1:
                    raise serializers.ValidationError(
                        {field: f"give {field} once, not several times"}
                    )
        return attrs


class ImportResultSerializer(serializers.Serializer):
    deck = serializers.CharField()
    dry_run = serializers.BooleanField()
    created = serializers.IntegerField()
    changed = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    changed_slugs = serializers.ListField(
        child=serializers.CharField(), help_text="cards reworded: learners keep their schedules"
    )
    created_slugs = serializers.ListField(child=serializers.CharField(), help_text="new cards")
    retired = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="cards the file no longer has, retired (history kept): slug -> learners who"
        " had progress on it",
    )
    warnings = serializers.ListField(
        child=serializers.CharField(), help_text="the content lint's findings about the file"
    )
    notes = serializers.ListField(
        child=serializers.CharField(),
        help_text="What the import left out, e.g. an .apkg's media; empty for most files.",
    )


class PreviewSerializer(serializers.Serializer):
    text = JSONCharField(allow_blank=True, help_text="Markdown")
    html = serializers.CharField(read_only=True)


class ImportJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["queued", "running", "succeeded", "failed"])
    progress = serializers.FloatField(help_text="0 to 1: the share of the file's cards written.")
    deck = serializers.CharField(source="deck_slug", help_text="empty until the worker read it")
    filename = serializers.CharField()
    dry_run = serializers.BooleanField()
    rows_total = serializers.IntegerField(help_text="cards in the file, once it is read")
    result = ImportResultSerializer(
        allow_null=True, help_text="the counts, once succeeded (dry_run: what would change)"
    )
    error = serializers.CharField(help_text="why nothing was imported, once failed")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.CharField(help_text="GET this for the status")
