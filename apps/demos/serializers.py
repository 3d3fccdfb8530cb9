from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.demos.models import DemoRun
from apps.demos.ray_demos import DEMOS, VERDICTS
from config.limits import NulFreeJSONField

_NUMBER_OR_NULL = {"type": "number", "nullable": True}
_CHECK = {
    "type": "object",
    "properties": {
        "figure": {"type": "string", "description": "key in figures"},
        "over": {
            "type": "string",
            "description": "another figure: the check is on the ratio "
            "median(figure) / median(over); empty for a check on one figure",
        },
        "op": {"type": "string", "enum": [">=", "<="]},
        "threshold": {"type": "number"},
        "part": {"type": "string", "description": "the part of the claim it checks, in words"},
    },
}
_PART = {
    "type": "object",
    "properties": {
        "figure": {"type": "string"},
        "over": {"type": "string"},
        "part": {"type": "string"},
        "holds": {"type": "boolean"},
        "value": _NUMBER_OR_NULL,
        "sentence": {"type": "string", "description": "the part's outcome with its numbers"},
    },
}  # fmt: skip
SUMMARY_SCHEMA = {
    "type": "object",
    "additionalProperties": True,
    "description": "What the run measured (empty until it succeeded). claim: the demo's "
    "claim, its checks on the medians of the figures, and this run's verdict with the reason; "
    "figures: every measured figure over the repeated trials; conditions: the machine during "
    "the run. Other keys are the demo's own details.",
    "properties": {
        "claim": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "checks": {"type": "array", "items": _CHECK},
                "verdict": {"type": "string", "enum": list(VERDICTS)},
                "reason": {"type": "string"},
                "parts": {"type": "array", "items": _PART, "description": "one per check"},
                "breaches": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "physical bounds the figures broke: the verdict is then "
                    "inconclusive (the measurement is not trustworthy)",
                },
            },
        },
        "figures": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "unit": {"type": "string"},
                    "trials": {"type": "array", "items": {"type": "number"}},
                    "min": _NUMBER_OR_NULL,
                    "median": _NUMBER_OR_NULL,
                    "max": _NUMBER_OR_NULL,
                },
            },
        },
        "conditions": {
            "type": "object",
            "properties": {
                "load_1m": {"type": "number", "description": "1-minute load average before"},
                "machine_cpus": {"type": "integer"},
                "ray_cpus": {"type": "number"},
                "cold": {"type": "boolean", "description": "first demo of its worker process"},
                "busy": {"type": "boolean"},
            },
        },
        "effect": {"type": "string", "description": "the measured figures in a sentence"},
        "stopped": {"type": "string", "description": "why the run stopped before its end (its "
                    "budget spent, the cluster too busy): the verdict is then inconclusive"},
        "retried": {"type": "string", "description": "set when a lost connection to the cluster "
                    "was retried once"},
    },
}  # fmt: skip


@extend_schema_field(SUMMARY_SCHEMA)
class DemoRunSummaryField(serializers.JSONField):
    """The run's summary: claim and verdict, figures with their spread, conditions."""


class DemoCheckSerializer(serializers.Serializer):
    figure = serializers.CharField(help_text="key in the run's summary.figures")
    over = serializers.CharField(
        allow_blank=True, help_text="another figure: the check is on median(figure)/median(over)"
    )
    part = serializers.CharField(help_text="the part of the claim it checks, in words")
    op = serializers.ChoiceField(choices=[">=", "<="])
    threshold = serializers.FloatField(help_text="the figure's median must meet it")


class DemoClaimSerializer(serializers.Serializer):
    text = serializers.CharField()
    checks = DemoCheckSerializer(many=True)


class DemoParamSerializer(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=["int", "float", "bool"])
    default = serializers.JSONField()
    min = serializers.FloatField(allow_null=True)
    max = serializers.FloatField(allow_null=True)
    help = serializers.CharField()


class DemoCardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    deck = serializers.CharField(source="deck.slug")
    url = serializers.CharField(source="get_absolute_url")


class DemoSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
    what_to_see = serializers.CharField(help_text="What to look for in a run (never its outcome).")
    claim = DemoClaimSerializer(help_text="The claim each run checks against its own figures.")
    modelled = serializers.CharField()
    available = serializers.BooleanField()
    needs = serializers.ListField(child=serializers.CharField())
    cards = DemoCardSerializer(many=True)
    params = DemoParamSerializer(many=True)


def _params_schema() -> dict:
    """Every parameter name some demo takes, and no other (an unknown one is refused)."""
    properties: dict[str, dict[str, str]] = {}
    for spec in DEMOS:
        for param in spec.params:
            bounds = "true or false" if param.type == "bool" else f"{param.min} to {param.max}"
            properties.setdefault(param.name, {"description": f"{spec.slug}: {param.type}, "
                                               f"{bounds}: {param.help}"})  # fmt: skip
    return {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "description": "name: value. Each demo takes only its own parameters (GET /api/demos/); "
        "a name it does not take, or a value out of its bounds, is refused with 400.",
    }


@extend_schema_field(_params_schema())
class DemoParamsField(serializers.DictField):
    pass


class DemoRunCreateSerializer(serializers.Serializer):
    # An enum in the schema: the catalogue is fixed in the code, so clients can know it.
    demo = serializers.ChoiceField(
        choices=[spec.slug for spec in DEMOS],
        error_messages={"invalid_choice": "unknown demo '{input}'"},
        help_text="Slug of the demo, from GET /api/demos/.",
    )
    params = DemoParamsField(child=NulFreeJSONField(), required=False, default=dict)


class DemoRunSerializer(serializers.ModelSerializer):
    points = serializers.SerializerMethodField()
    url = serializers.CharField(source="get_absolute_url", read_only=True)
    summary = DemoRunSummaryField(read_only=True)

    class Meta:
        model = DemoRun
        fields = [
            "id", "demo", "status", "progress", "params", "points", "summary", "error",
            "created_at", "started_at", "finished_at", "last_seq", "cluster_nodes",
            "cluster_cpus", "url",
        ]  # fmt: skip
        read_only_fields = fields

    def get_points(self, run) -> list[dict]:
        """Points after ?since=N (seq numbers), each {"seq", "series", "x", "y", ...}."""
        return self.context.get("points", [])
