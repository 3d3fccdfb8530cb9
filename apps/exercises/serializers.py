from rest_framework import serializers

from apps.exercises.models import Submission
from config.limits import StrictUUIDField


class ExerciseCardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    url = serializers.CharField()


class ExerciseListSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    deck = serializers.CharField()
    section = serializers.CharField(allow_null=True)
    revision = serializers.IntegerField()
    url = serializers.CharField()


class ExerciseDetailSerializer(ExerciseListSerializer):
    """What a learner sees of an exercise: never its hidden tests, reference or wrong answers."""

    prompt = serializers.CharField()
    prompt_html = serializers.CharField()
    starter = serializers.CharField(allow_blank=True)
    examples = serializers.CharField(allow_blank=True, help_text="The visible example tests.")
    # SerializerMetaclass takes declared fields off the class: this is no Field.source.
    source = serializers.CharField()  # type: ignore[assignment]
    cards = ExerciseCardSerializer(many=True)
    limits = serializers.DictField(child=serializers.FloatField())


class SubmissionCreateSerializer(serializers.Serializer):
    code = serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=1_100_000)
    mode = serializers.ChoiceField(choices=Submission.Mode.choices, default=Submission.Mode.SUBMIT)
    client_id = StrictUUIDField(required=False, allow_null=True)


class TestResultSerializer(serializers.Serializer):
    name = serializers.CharField()
    suite = serializers.CharField(help_text="examples or hidden")
    passed = serializers.BooleanField()
    message = serializers.CharField(allow_blank=True)
    ms = serializers.FloatField(allow_null=True)


class SubmissionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    exercise = serializers.CharField(source="exercise.slug")
    mode = serializers.CharField()
    status = serializers.ChoiceField(choices=Submission.Status.choices)
    tests = TestResultSerializer(many=True)
    problem = serializers.CharField(allow_blank=True)
    syntax_error = serializers.DictField(allow_null=True)
    stdout = serializers.CharField(allow_blank=True)
    stderr = serializers.CharField(allow_blank=True)
    time_ms = serializers.IntegerField(allow_null=True)
    revision = serializers.IntegerField(source="revision.number")
    grade = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.CharField(source="get_absolute_url")


class DueExerciseSerializer(serializers.Serializer):
    slug = serializers.CharField(source="exercise.slug")
    title = serializers.CharField(source="exercise.title")
    new = serializers.BooleanField()
    due_at = serializers.DateTimeField(source="state.due_at", allow_null=True)
    url = serializers.CharField(source="exercise.get_absolute_url")
