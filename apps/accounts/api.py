"""The caller's own data, for scripts: GET /api/me/export.json and GET /api/me/export.zip, and
the caller's profile: GET and PATCH /api/me/profile/."""

from django.db import transaction
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.export import KINDS, export_response
from apps.accounts.models import Profile, interview_date_error, profile_for


class FirstRenderer(BaseContentNegotiation):
    """The download is a file whatever the Accept header says; an error (401) is JSON."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


_KINDS = ", ".join(kind.name for kind in KINDS)


class ExportJSON(APIView):
    content_negotiation_class = FirstRenderer

    @extend_schema(
        operation_id="me_export_json",
        summary="Download all your data as one JSON document",
        description=(
            'A document {"format": "raydeck-export", "version": 1, "exported_at": ..., '
            f"{_KINDS}}}: the profile is an object, every other kind a list of records with "
            "the columns of the CSV file of the same name. Streamed; only the caller's data."
        ),
        responses={(200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT)},
    )
    def get(self, request: Request):
        return export_response(request.user, "json")


class ExportZip(APIView):
    content_negotiation_class = FirstRenderer

    @extend_schema(
        operation_id="me_export_zip",
        summary="Download all your data as a zip of CSV files",
        description=(
            f"One CSV file per kind ({_KINDS}), each with a header row; lists and objects are "
            "JSON in their cell, times ISO 8601, and text a spreadsheet would run as a formula "
            "starts with '. Streamed; only the caller's data."
        ),
        responses={(200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY)},
    )
    def get(self, request: Request):
        return export_response(request.user, "csv")


class ProfileSerializer(serializers.ModelSerializer):
    class Meta:
        model = Profile
        fields = (
            "time_zone",
            "new_cards_per_day",
            "reviews_per_day",
            "interview_date",
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
    path("me/export.json", ExportJSON.as_view(), name="api-export-json"),
    path("me/export.zip", ExportZip.as_view(), name="api-export-zip"),
]
