"""API shapes. A quiz is shown without its answers; an attempt's result shows them.

Nothing before submission carries a field that knows what is right: options are ``{"id",
"text"}`` with opaque ids, in an order fixed by the attempt's seed (or by the ids themselves).
"""

from rest_framework import serializers

from apps.decks.models import Section
from apps.quizzes.models import Question, Quiz
from config.limits import NulFreeJSONField, StrictUUIDField


class QuizListSerializer(serializers.ModelSerializer):
    # Words, not an enum: an enum would collide in the schema with the question kinds' enum,
    # both fields being named "kind" as DESIGN.md has them.
    kind = serializers.CharField(help_text='"checkpoint" or "knowledge_check".')
    section: serializers.SlugRelatedField[Section] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, allow_null=True
    )
    question_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Quiz
        fields = ["slug", "title", "kind", "section", "question_count"]


class OptionSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Opaque id; reveals nothing about the option.")
    text = serializers.CharField(help_text="Markdown.")
    text_html = serializers.CharField(help_text="The text rendered and sanitised.")


class MatchItemSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Opaque id; left and right ids are unrelated.")
    text = serializers.CharField(help_text="Markdown.")
    text_html = serializers.CharField()


class GivenSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The number's name in the drill.")
    # The ignores here and on `source` below: SerializerMetaclass takes declared fields off the
    # class, so they do not shadow Field's own attributes of those names as the stubs think.
    label = serializers.CharField(  # type: ignore[assignment]
        allow_blank=True, help_text="What it is, in words (may be empty)."
    )
    value = serializers.FloatField(help_text="This attempt's value, as the prompt shows it.")
    unit = serializers.CharField(allow_blank=True)


class EvidenceSerializer(serializers.Serializer):
    tool = serializers.CharField(help_text='What printed it, e.g. "ray status".')
    output = serializers.CharField(help_text="What the tool printed: show it in monospace.")
    source = serializers.CharField(  # type: ignore[assignment]
        help_text="Where the output came from (a real run, named)."
    )


class QuestionSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Opaque question id, the key in an attempt's answers.")
    kind = serializers.ChoiceField(choices=Question.Kind.choices)
    prompt = serializers.CharField(
        help_text="Markdown; a sizing drill's (numeric) with this attempt's numbers in it."
    )
    prompt_html = serializers.CharField()
    points = serializers.IntegerField()
    evidence = EvidenceSerializer(
        required=False,
        help_text="A debugging drill's scenario (single or multi): the tool output to read.",
    )
    unit = serializers.CharField(
        required=False, allow_blank=True, help_text="numeric only: the unit of the number asked."
    )
    given = GivenSerializer(
        many=True, required=False, help_text="numeric only: the numbers drawn for this attempt."
    )
    choices = OptionSerializer(many=True, required=False, help_text="single and multi only.")
    statements = OptionSerializer(many=True, required=False, help_text="true_false only.")
    left = MatchItemSerializer(many=True, required=False, help_text="match only.")
    right = MatchItemSerializer(
        many=True, required=False, help_text="match only; shuffled, unrelated to the left order."
    )


class OpenAttemptSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    deadline = serializers.DateTimeField(allow_null=True)


class QuizDetailSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    title = serializers.CharField()
    kind = serializers.CharField(help_text='"checkpoint" or "knowledge_check".')
    deck = serializers.SlugField()
    section = serializers.SlugField(allow_null=True)
    pass_mark = serializers.FloatField(help_text="Share of the points needed to pass, 0 to 1.")
    time_limit_seconds = serializers.IntegerField(allow_null=True)
    question_count = serializers.IntegerField()
    attempt = OpenAttemptSerializer(
        allow_null=True,
        help_text="For a timed quiz and a signed-in caller: the open attempt this request "
        "started (or resumed); its deadline is enforced when the answers are posted.",
    )
    questions = QuestionSerializer(many=True)


class AttemptCreateSerializer(serializers.Serializer):
    # An object in the schema (a JSONField is "anything"): each answer's shape is checked
    # against its question by the service, which names the question it refuses.
    answers = serializers.DictField(
        child=NulFreeJSONField(),
        error_messages={
            "not_a_dict": "answers must be an object of question id to answer, got {input_type}"
        },
        help_text='{"<question id>": answer}. An answer is a choice id (single), a list of choice '
        'ids (multi), {"<statement id>": true|false} (true_false), {"<left id>": "<right id>"} '
        "(match) or a number (numeric: right within the drill's tolerance). A question left out "
        "scores 0.",
    )
    client_id = StrictUUIDField(
        required=False,
        help_text="Your id for this submit (a UUID). Sent again, it returns the attempt it "
        "recorded (200) instead of recording a second one, so a lost answer can be retried.",
    )


class CardLinkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.SlugField()
    url = serializers.CharField(help_text="The card on its section page.")


class QuestionResultSerializer(serializers.Serializer):
    id = serializers.CharField()
    points = serializers.FloatField()
    max_points = serializers.IntegerField()
    correct_answer = serializers.JSONField(help_text="The right answer, in the shape of an answer.")
    explanation = serializers.CharField(help_text="Markdown.")
    explanation_html = serializers.CharField()
    cards = CardLinkSerializer(many=True)
    solution = serializers.CharField(
        required=False, help_text="numeric only: the worked solution with this attempt's numbers."
    )
    solution_html = serializers.CharField(required=False)
    tolerance = serializers.FloatField(
        required=False,
        help_text="numeric only: how far from the right value an answer may be, a share of it.",
    )


class AttemptResultSerializer(serializers.Serializer):
    id = serializers.IntegerField(
        allow_null=True, help_text="null for a checkpoint: checked, not recorded."
    )
    score = serializers.FloatField()
    max_score = serializers.IntegerField()
    passed = serializers.BooleanField()
    timed_out = serializers.BooleanField()
    questions = QuestionResultSerializer(many=True)
