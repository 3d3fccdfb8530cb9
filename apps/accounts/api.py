"""The caller's profile: GET and PATCH /api/me/profile/ (the data export is
apps.operations.api); the caller's API token: POST and DELETE /api/auth/token/."""

from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.db import transaction
from django.urls import path
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import exceptions, permissions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.models import Profile, interview_date_error, profile_for
from config.http import signed_in_user
from config.limits import JSONBooleanField


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
        assert self.instance is not None  # only ever bound to the caller's profile (PATCH)
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
        user = signed_in_user(request)
        with transaction.atomic():
            profile = Profile.objects.select_for_update().get(pk=profile_for(user).pk)
            data = ProfileSerializer(profile, data=request.data, partial=True)
            data.is_valid(raise_exception=True)
            data.save()
        user.profile = profile
        return Response(data.data)


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(
        required=False, max_length=150, help_text="With password: sign in with them."
    )
    password = serializers.CharField(
        required=False, max_length=4096, write_only=True, trim_whitespace=False
    )
    rotate = JSONBooleanField(
        required=False, default=False,
        help_text="true: replace your token with a new one (the old one stops working)",
    )  # fmt: skip

    def validate(self, attrs):
        if ("username" in attrs) != ("password" in attrs):
            raise serializers.ValidationError("send both username and password, or neither")
        return attrs


TOKEN_BODY = inline_serializer(
    "Token",
    {"token": serializers.CharField(help_text='send it as "Authorization: Token <token>"'),
     "created": serializers.BooleanField(help_text="a new token (201); false: your current one")},
)  # fmt: skip


class TokenView(APIView):
    """The caller's API token, for scripts (`Authorization: Token <token>`): POST gets it (made
    the first time), POST with rotate replaces it, DELETE revokes it. Changing or resetting the
    password revokes it too (apps/accounts/signals.py)."""

    def get_permissions(self):
        if self.request.method == "POST":
            return [permissions.AllowAny()]  # username and password in the body sign in
        return [permissions.IsAuthenticated()]

    @extend_schema(
        operation_id="auth_token",
        summary="Get or rotate your API token",
        description="Signed in (session or token), or with `username` and `password` in the "
        "body (wrong ones: 400; too many wrong ones from one address: 429, as the log-in "
        "page). 200 with your current token, 201 with a new one (the first, or `rotate`).",
        request=TokenRequestSerializer,
        responses={200: TOKEN_BODY, 201: TOKEN_BODY},
    )
    def post(self, request: Request) -> Response:
        body = TokenRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if "username" in body.validated_data:
            # The Django request, so django-axes counts a failure and locks the pair out.
            user = authenticate(
                request._request, username=body.validated_data["username"],
                password=body.validated_data["password"],
            )  # fmt: skip
            if user is None:
                raise exceptions.ValidationError(
                    {"password": ["the username and password do not match an account"]}
                )
        elif isinstance(request.user, User):
            user = request.user
        else:
            raise exceptions.NotAuthenticated(
                "send your username and password, or sign in, to get your token"
            )
        with transaction.atomic():
            token, created = Token.objects.select_for_update().get_or_create(user=user)
            if body.validated_data["rotate"] and not created:
                token.delete()
                token, created = Token.objects.create(user=user), True
        return Response(
            {"token": token.key, "created": created},
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    @extend_schema(
        operation_id="auth_token_revoke",
        summary="Revoke your API token",
        description="Your token stops working at once; POST makes a new one.",
        request=None,
        responses={204: OpenApiResponse(description="revoked (or you had none)")},
    )
    def delete(self, request: Request) -> Response:
        Token.objects.filter(user=signed_in_user(request)).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


urlpatterns = [
    path("me/profile/", ProfileView.as_view(), name="api-profile"),
    path("auth/token/", TokenView.as_view(), name="api-auth-token"),
]
