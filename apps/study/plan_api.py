"""The interview plan in the API: `GET /api/study/plan/`, the same plan as the page /study/plan/
(`apps.study.interview.interview_plan`): per day the reviews planned and done, the predicted
recall on the day per section and overall, now and if the plan is followed, and the shortfall.

Without an interview date (or with one already past) there is no plan: 404 with a sentence that
says how to set one (`PATCH /api/me/profile/`). A read only: it changes nothing, and it does not
ask the worker for a fit (the page does). Five queries for the plan plus the session's, whatever
the number of cards and reviews.
"""

from __future__ import annotations

from datetime import timedelta

from django.urls import path
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.study import interview
from config.api import ErrorSerializer

NO_PLAN = (
    "no interview date is set (or it is past), so there is no plan; "
    'set one with PATCH /api/me/profile/ {"interview_date": "YYYY-MM-DD"}'
)


class PlanDaySerializer(serializers.Serializer):
    date = serializers.DateField()
    planned = serializers.IntegerField(
        help_text="Reviews the plan asks for on this day (today: those still to do)."
    )
    due = serializers.IntegerField(help_text="How many of `planned` are SM-2's due cards.")
    done = serializers.IntegerField(help_text="Reviews done on this day (0 in the future).")


class SectionRecallSerializer(serializers.Serializer):
    section = serializers.SlugField()
    title = serializers.CharField()
    now = serializers.FloatField(help_text="Predicted recall on the day if nothing more is done.")
    followed = serializers.FloatField(help_text="Predicted recall on the day, plan followed.")


class RecallSerializer(serializers.Serializer):
    now = serializers.FloatField(
        help_text="Predicted share of the cards recalled on the day if nothing more is studied."
    )
    followed = serializers.FloatField(help_text="The same if the plan is followed.")
    sections = SectionRecallSerializer(many=True)


class PlanSerializer(serializers.Serializer):
    interview_date = serializers.DateField()
    today = serializers.DateField(help_text="The learner's local today.")
    days_until = serializers.IntegerField()
    target = serializers.FloatField(help_text="Target recall on the day, 0.5 to 0.99.")
    budget_minutes = serializers.IntegerField()
    budget_is_default = serializers.BooleanField(help_text="No budget set: the default is used.")
    seconds_per_review = serializers.FloatField(
        help_text="Median of the learner's own timed reviews (12 until 20 are timed)."
    )
    reviews_per_day = serializers.IntegerField(help_text="The budget in reviews.")
    own_parameters = serializers.BooleanField(
        help_text="Whether the model uses the learner's fitted parameters (else FSRS defaults)."
    )
    days = PlanDaySerializer(many=True, help_text="From today to the day before the interview.")
    recall = RecallSerializer()
    shortfall = serializers.FloatField(
        help_text="How far (0 to 1) the followed plan's recall falls short of the target."
    )
    short_sections = serializers.ListField(
        child=serializers.SlugField(),
        help_text="Sections predicted below the target if the plan is followed, weakest first.",
    )
    today_cards = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Card ids the plan has for today, not yet reviewed today, in order: SM-2's "
        "due ones first, then the plan's own for the interview (those the main queue shows as "
        '"for your interview").',
    )
    deferred_today = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Card ids SM-2 makes due today that the plan lets wait until after the "
        "interview (predicted recall on the day already at the target). They stay due.",
    )


def plan_data(ip: interview.InterviewPlan) -> dict:
    p = ip.plan
    slugs = {str(card.section_id): card.section.slug for card in ip.cards.values()}
    today_cards = [card.pk for card in ip.today_cards]
    days = []
    for day in p.days:
        when = ip.today + timedelta(days=day.day)
        planned = len(today_cards) if day.day == 0 else len(day.cards)
        due = sum(1 for cid in day.cards[: day.due] if day.day or cid not in ip.reviewed_today)
        days.append(
            {"date": when, "planned": planned, "due": due, "done": ip.done_per_day.get(when, 0)}
        )
    return {
        "interview_date": ip.interview_date,
        "today": ip.today,
        "days_until": ip.days_until,
        "target": p.target,
        "budget_minutes": ip.budget_minutes,
        "budget_is_default": ip.budget_is_default,
        "seconds_per_review": round(ip.seconds_per_review, 2),
        "reviews_per_day": p.per_day,
        "own_parameters": ip.own_parameters,
        "days": days,
        "recall": {
            "now": p.now.overall,
            "followed": p.followed.overall,
            "sections": [
                {
                    "section": slugs[key],
                    "title": ip.section_titles[key],
                    "now": now,
                    "followed": p.followed.sections[key],
                }
                for key, now in p.now.sections.items()
            ],
        },
        "shortfall": p.shortfall,
        "short_sections": [slugs[key] for key, _ in p.short_sections],
        "today_cards": today_cards,
        "deferred_today": sorted(p.deferred),
    }


class PlanView(APIView):
    @extend_schema(
        operation_id="study_plan",
        summary="Your interview plan",
        description=(
            "From today to your interview date: the reviews planned and done per day, the "
            "predicted recall on the day (overall and per section) now and if the plan is "
            "followed, the shortfall against your target and the sections that suffer, and "
            "today's planned and deferred cards. Recomputed on each request from your reviews; "
            "changes nothing. Without an interview date (or with one past) there is no plan: "
            "404 saying how to set one."
        ),
        responses={
            200: PlanSerializer,
            404: OpenApiResponse(ErrorSerializer, description="No interview date is set."),
        },
    )
    def get(self, request: Request) -> Response:
        ip = interview.interview_plan(request.user)
        if ip is None:
            raise interview.NoPlan(NO_PLAN)
        return Response(PlanSerializer(plan_data(ip)).data)


urlpatterns = [path("study/plan/", PlanView.as_view(), name="api-study-plan")]
