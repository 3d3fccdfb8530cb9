"""API shapes. The progress payload is assembled from `selectors.TeamProgress`; these classes
also describe it for the OpenAPI schema."""

from rest_framework import serializers

from apps.decks.models import Deck
from apps.decks.serializers import JSONCharField, SlugTextField
from apps.study import progress
from apps.teams.services import INVITE_MAX_USES, NAME_MAX


class TeamCreateSerializer(serializers.Serializer):
    name = JSONCharField(max_length=NAME_MAX)
    deck = SlugTextField(
        required=False, help_text="Slug of the deck to measure; default: the first published deck."
    )

    def validate_deck(self, slug: str) -> Deck | None:
        if not slug:
            return None
        deck = Deck.objects.filter(slug=slug, is_published=True).first()
        if deck is None:
            raise serializers.ValidationError(f"No published deck {slug!r}.")
        return deck


class TeamSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    deck = serializers.SlugField(allow_null=True)
    role = serializers.ChoiceField(choices=["owner", "member"], help_text="Your role.")
    hidden = serializers.BooleanField(help_text="Whether you hid your details from this team.")
    member_count = serializers.IntegerField()
    url = serializers.CharField(help_text="The dashboard page.")


class InviteCreateSerializer(serializers.Serializer):
    max_uses = serializers.IntegerField(
        min_value=1,
        max_value=INVITE_MAX_USES,
        allow_null=True,
        default=1,
        help_text="1 (the default) makes a single-use link; null any number of uses.",
    )
    expires_in_days = serializers.IntegerField(min_value=1, max_value=90, default=7)


class InviteSerializer(serializers.Serializer):
    token = serializers.CharField()
    url = serializers.URLField(help_text="The join page; open it logged in and press Join.")
    expires_at = serializers.DateTimeField()
    max_uses = serializers.IntegerField(allow_null=True)


class JoinSerializer(serializers.Serializer):
    token = JSONCharField(help_text="The token of an invite link.")


class MembershipSerializer(serializers.Serializer):
    team = serializers.SlugField()
    name = serializers.CharField()
    role = serializers.CharField()


class SectionProgressSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    title = serializers.CharField()
    card_count = serializers.IntegerField()
    team_mastery = serializers.FloatField(help_text="The team's average mastery, 0 to 1.")


class MemberProgressSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    role = serializers.CharField()
    is_you = serializers.BooleanField()
    hidden = serializers.BooleanField(help_text="Only ever true on your own row.")
    readiness = serializers.FloatField(
        help_text="0.5 x mastery_overall + 0.3 x knowledge_check + 0.2 x retention (null as 0); "
        "0 while no card is learned."
    )
    mastery = serializers.DictField(
        child=serializers.FloatField(), help_text="Section slug -> share of its cards learned."
    )
    mastery_overall = serializers.FloatField(help_text="Share of the deck's cards learned.")
    cards_learned = serializers.IntegerField(
        help_text=f"Cards learned: {progress.FORMULAS['learned']}."
    )
    due_backlog = serializers.IntegerField(help_text="Cards due now (suspended aside).")
    reviews_7d = serializers.IntegerField(help_text="Reviews on the member's last 7 local days.")
    reviews_30d = serializers.IntegerField(help_text="Reviews on the member's last 30 local days.")
    retention = serializers.FloatField(
        allow_null=True,
        help_text="Share of the last 30 local days' reviews of due cards (first sightings of "
        "new cards and same-day re-drills aside) graded >= 3; null when there were none.",
    )
    streak_days = serializers.IntegerField(help_text="Consecutive local days with a review.")
    knowledge_check = serializers.FloatField(
        help_text="Average best score over the deck's knowledge checks (not taken = 0)."
    )
    knowledge_checks = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="Knowledge-check slug -> best score share, null if not taken.",
    )
    exercises_passed = serializers.IntegerField(
        help_text="The deck's code exercises the member has passed with a Submit."
    )
    own_cards = serializers.IntegerField(
        help_text="How many cards the member has in decks of their own (never which)."
    )
    last_active = serializers.DateTimeField(allow_null=True)
    interview_date = serializers.DateField(
        allow_null=True, help_text="The member's interview date (their local day), or null."
    )
    interview_recall = serializers.FloatField(
        allow_null=True,
        help_text="Predicted share of the deck's cards recalled at noon on the interview day if "
        "the member studies nothing more (FSRS; cards never reviewed count 0); null without a "
        "date.",
    )


class WeakCardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.SlugField()
    front = serializers.CharField()
    url = serializers.CharField()
    learners = serializers.IntegerField()
    share = serializers.FloatField()


class TeamSummarySerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    deck = serializers.SlugField(allow_null=True)
    member_count = serializers.IntegerField()
    hidden_count = serializers.IntegerField()
    averages = serializers.DictField(
        help_text="Team averages over `members_counted` members: everyone, hidden included, "
        "unless exactly one member is hidden from you."
    )


class TeamProgressSerializer(serializers.Serializer):
    team = TeamSummarySerializer()
    sections = SectionProgressSerializer(many=True)
    members = MemberProgressSerializer(many=True, help_text="Hidden members are left out.")
    weakest = WeakCardSerializer(many=True)
