"""Teams API (DESIGN.md): create and list teams, read a team's progress, invite, join, remove.

A team is visible only to its members: anyone else gets 404, so slugs do not leak. Managing
(invites, removing others) is for owners: members get 403 with a sentence saying why.
"""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.teams import selectors, services
from apps.teams.serializers import (
    InviteCreateSerializer,
    InviteSerializer,
    JoinSerializer,
    MembershipSerializer,
    TeamCreateSerializer,
    TeamProgressSerializer,
    TeamSerializer,
)
from config.http import signed_in_user


def _share(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def team_json(membership, request: Request) -> dict:
    team = membership.team
    return {
        "slug": team.slug,
        "name": team.name,
        "deck": team.deck.slug if team.deck_id else None,
        "role": membership.role,
        "hidden": membership.hidden,
        "member_count": getattr(membership, "member_count", None) or team.memberships.count(),
        "url": request.build_absolute_uri(team.get_absolute_url()),
    }


def progress_json(progress: selectors.TeamProgress, viewer_id: int, request: Request) -> dict:
    slugs = {f.section.pk: f.section.slug for f in progress.sections}
    avg = progress.averages_for(viewer_id) if progress.deck else None
    rows, _ = selectors.sort_rows(progress.visible_rows(viewer_id), request.GET.get("sort"))
    return {
        "team": {
            "slug": progress.team.slug,
            "name": progress.team.name,
            "deck": progress.deck.slug if progress.deck else None,
            "member_count": progress.member_count,
            "hidden_count": progress.hidden_count,
            "averages": {}
            if avg is None
            else {
                "members_counted": avg.counted,
                "readiness": _share(avg.readiness),
                "mastery_overall": _share(avg.mastery_overall),
                "cards_learned": round(avg.cards_learned, 2),
                "due_backlog": round(avg.due_backlog, 2),
                "reviews_7d": round(avg.reviews_7d, 2),
                "reviews_30d": round(avg.reviews_30d, 2),
                "retention": _share(avg.retention),
                "streak_days": round(avg.streak_days, 2),
                "knowledge_check": _share(avg.knowledge),
                "exercises_passed": round(avg.exercises_passed, 2),
            },
        },
        "sections": []
        if avg is None  # no deck, no sections
        else [
            {
                "slug": f.section.slug,
                "title": f.section.title,
                "card_count": f.card_count,
                "team_mastery": _share(avg.mastery[f.section.pk]),
            }
            for f in progress.sections
        ],
        "members": [
            {
                "id": m.user_id,
                "username": m.username,
                "role": m.role,
                "is_you": m.user_id == viewer_id,
                "hidden": m.hidden,
                "readiness": _share(m.readiness),
                "mastery": {slugs[pk]: _share(v) for pk, v in m.mastery.items()},
                "mastery_overall": _share(m.mastery_overall),
                "cards_learned": m.cards_learned,
                "due_backlog": m.due_backlog,
                "reviews_7d": m.reviews_7d,
                "reviews_30d": m.reviews_30d,
                "retention": _share(m.retention),
                "streak_days": m.streak_days,
                "knowledge_check": _share(m.knowledge),
                "knowledge_checks": {
                    q.slug: _share(m.knowledge_checks.get(q.pk)) for q in progress.knowledge_checks
                },
                "exercises_passed": m.exercises_passed,
                "own_cards": m.own_cards,
                "last_active": m.last_active,
                "interview_date": m.interview_date,
                "interview_recall": _share(m.interview_recall),
            }
            for m in rows
        ],
        "weakest": [
            {
                "id": w.card.pk,
                "slug": w.card.slug,
                "front": w.card.front,
                "url": request.build_absolute_uri(w.card.get_absolute_url()),
                "learners": w.learners,
                "share": _share(w.share),
            }
            for w in progress.weakest
        ],
    }


class TeamListCreate(APIView):
    @extend_schema(
        summary="Your teams",
        description="The teams you belong to, with your role and whether you hid your details.",
        responses=TeamSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        return Response([team_json(m, request) for m in selectors.teams_of(request.user)])

    @extend_schema(
        summary="Create a team",
        description="Creates a team with you as its owner and returns it with its slug. "
        "`deck` picks the deck the dashboard measures (default: the first published deck).",
        request=TeamCreateSerializer,
        responses={201: TeamSerializer, 400: OpenApiResponse(description="Bad name or deck.")},
    )
    def post(self, request: Request) -> Response:
        data = TeamCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        name, deck = data.validated_data["name"], data.validated_data.get("deck")
        team = services.team_create(user=request.user, name=name, deck=deck)
        membership = selectors.membership_for(request.user, team.slug)
        return Response(team_json(membership, request), status=status.HTTP_201_CREATED)


class TeamProgress(APIView):
    @extend_schema(
        summary="A team's progress",
        description=(
            "Every figure of the dashboard: per section the team's average mastery, per visible "
            "member their mastery per section, cards learned, due backlog, reviews in the last 7 "
            "and 30 local days, retention, streak, best knowledge-check scores, readiness and "
            "last activity, and the five weakest cards. Members who hid their details are left "
            "out of `members` (except from their own view) but counted in `team.averages` "
            "and `weakest`, unless exactly one member is hidden from you: then they are left "
            "out of those too, which would otherwise give their figures away. "
            "Shares are 0..1. `?sort=` takes a column name (e.g. `-readiness`, `username`). "
            "Not a member: 404."
        ),
        responses={200: TeamProgressSerializer, 404: OpenApiResponse(description="Not a member.")},
    )
    def get(self, request: Request, slug: str) -> Response:
        user = signed_in_user(request)
        membership = selectors.membership_for(user, slug)
        progress = selectors.team_progress(membership.team, viewer_id=user.pk)
        return Response(progress_json(progress, user.pk, request))


class InviteCreate(APIView):
    @extend_schema(
        summary="Create an invite link",
        description="Owners only (403 otherwise). Single-use by default; `max_uses: null` makes "
        "a link anyone can use until it expires or is revoked.",
        request=InviteCreateSerializer,
        responses={
            201: InviteSerializer,
            403: OpenApiResponse(description="Not an owner."),
            404: OpenApiResponse(description="Not a member."),
        },
    )
    def post(self, request: Request, slug: str) -> Response:
        membership = selectors.membership_for(request.user, slug)
        data = InviteCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        invite = services.invite_create(
            team=membership.team,
            by=request.user,
            max_uses=data.validated_data["max_uses"],
            expires_in=timedelta(days=data.validated_data["expires_in_days"]),
        )
        body = {
            "token": invite.token,
            "url": request.build_absolute_uri(invite.get_absolute_url()),
            "expires_at": invite.expires_at,
            "max_uses": invite.max_uses,
        }
        return Response(InviteSerializer(body).data, status=status.HTTP_201_CREATED)


class TeamJoin(APIView):
    @extend_schema(
        summary="Join a team with an invite token",
        description="201 with the membership. An unknown, expired, revoked or used-up token, or "
        "one you used before (e.g. you were removed), is refused with 410; already a member, 409.",
        request=JoinSerializer,
        responses={
            201: MembershipSerializer,
            409: OpenApiResponse(description="Already a member."),
            410: OpenApiResponse(description="The link cannot be used."),
        },
    )
    def post(self, request: Request) -> Response:
        data = JoinSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = services.team_join(user=request.user, token=data.validated_data["token"])
        body = {"team": membership.team.slug, "name": membership.team.name, "role": membership.role}
        return Response(body, status=status.HTTP_201_CREATED)


class MemberDelete(APIView):
    @extend_schema(
        summary="Remove a member (or leave)",
        description="An owner removes a member. Anyone may remove themself, which is leaving; "
        "the last owner must hand over ownership first (400). Not an owner: 403.",
        responses={
            204: None,
            400: OpenApiResponse(description="Last owner."),
            403: OpenApiResponse(description="Not an owner."),
            404: OpenApiResponse(description="Not a member, or no such member."),
        },
    )
    def delete(self, request: Request, slug: str, user_id: int) -> Response:
        membership = selectors.membership_for(request.user, slug)
        team = membership.team
        if user_id != request.user.pk and not membership.is_owner:
            # Refused before the lookup: a 404 for non-members would tell a member which ids
            # belong to the team, hidden members included.
            raise services.NotOwner(f"Only an owner of {team.name} can remove members.")
        target = get_object_or_404(get_user_model(), pk=user_id, team_memberships__team=team)
        if target == request.user:
            services.team_leave(team=team, user=request.user)
        else:
            services.member_remove(team=team, by=request.user, user=target)
        return Response(status=status.HTTP_204_NO_CONTENT)


urlpatterns = [
    path("teams/", TeamListCreate.as_view(), name="api-team-list"),
    path("teams/join/", TeamJoin.as_view(), name="api-team-join"),
    path("teams/<slug:slug>/progress/", TeamProgress.as_view(), name="api-team-progress"),
    path("teams/<slug:slug>/invites/", InviteCreate.as_view(), name="api-team-invites"),
    path(
        "teams/<slug:slug>/members/<int:user_id>/",
        MemberDelete.as_view(),
        name="api-team-member",
    ),
]
