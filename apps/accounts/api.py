"""The caller's profile: GET and PATCH /api/me/profile/ (the data export is
apps.operations.api)."""

from django.db import transaction
from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.models import Profile, interview_date_error, profile_for


class ProfileSerializer(serializers.ModelSerializer):
    class Meta:
        model = Profile
        fields = (
            "time_zone",
            "new_cards_per_day",
            "reviews_per_day",
            "interview_date",
            "interview_mode",
            "daily_budget_minutes",
            "target_recall",
        )
        extra_kwargs = {
            "time_zone": {"help_text": "An IANA time zone name such as Europe/Berlin."},
            "interview_date": {
                "help_text": "Your interview day (YYYY-MM-DD, in your time "
                "zone; today or later), or null for no plan."
            },  # fmt: skip
            "daily_budget_minutes": {
                "help_text": "Minutes a day for the interview plan, 1 to 600; null: 20."
            },  # fmt: skip
            "target_recall": {"help_text": "Percent of cards to recall on the day, 50 to 99."},
            "interview_mode": {
                "help_text": "While an interview date is set, the daily queue is the interview "
                "scheduler's (true, the default) or SM-2's (false)."
            },
        }

    def validate(self, attrs):
        zone_name = attrs.get("time_zone", self.instance.time_zone)
        day = attrs.get("interview_date", self.instance.interview_date)
        if day is not None:
            probe = Profile(time_zone=zone_name)
            error = interview_date_error(day, probe.zone)
            if error:
                raise serializers.ValidationError({"interview_date": error})
        return attrs


class ProfileView(APIView):
    @extend_schema(
        operation_id="me_profile",
        summary="Your profile",
        description="Your study settings: time zone, daily limits, and the interview plan's "
        "date, daily budget and target recall.",
        responses=ProfileSerializer,
    )
    def get(self, request: Request) -> Response:
        return Response(ProfileSerializer(profile_for(request.user)).data)

    @extend_schema(
        operation_id="me_profile_update",
        summary="Change your profile",
        description="Changes the fields sent and returns the whole profile. A refused field "
        "(a date in the past, a budget of 0 or over 600 minutes, a target outside 50 to 99) is "
        "a 400 naming it, and nothing changes. `interview_date: null` removes the plan.",
        request=ProfileSerializer(partial=True),
        responses=ProfileSerializer,
    )
    def patch(self, request: Request) -> Response:
        with transaction.atomic():
            profile = Profile.objects.select_for_update().get(pk=profile_for(request.user).pk)
            data = ProfileSerializer(profile, data=request.data, partial=True)
            data.is_valid(raise_exception=True)
            data.save()
        request.user.profile = profile
        return Response(data.data)


urlpatterns = [
    path("me/profile/", ProfileView.as_view(), name="api-profile"),
]
