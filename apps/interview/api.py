"""The interview plan in the API: `GET /api/study/plan/`, the same plan as the page /study/plan/
(`apps.interview.plan.interview_plan`): per day the reviews planned and done, the predicted
recall on the day per section and overall, now and if the plan is followed, and the shortfall.

Without an interview date (or with one already past) there is no plan: 404 with a sentence that
says how to set one (`PATCH /api/me/profile/`). A read only: it changes nothing, and it does not
ask the worker for a fit (the page does).
"""

from __future__ import annotations

from datetime import timedelta

from django.urls import path
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.interview import plan
from config.api import ErrorSerializer

NO_PLAN = (
    "no interview date is set (or it is past, or interview mode is off), so there is no plan; "
    'set one with PATCH /api/me/profile/ {"interview_date": "YYYY-MM-DD", "interview_mode": true}'
)


class PlanDaySerializer(serializers.Serializer):
    date = serializers.DateField()
    planned = serializers.IntegerField(
        help_text="Reviews the plan asks for on this day (today: those still to do)."
    )
    due = serializers.IntegerField(help_text="How many of `planned` SM-2 makes due by then.")
    new = serializers.IntegerField(help_text="How many of `planned` are first sights.")
    done = serializers.IntegerField(help_text="Reviews done on this day (0 in the future).")


class SectionRecallSerializer(serializers.Serializer):
    section = serializers.SlugField()
    title = serializers.CharField()
    now = serializers.FloatField(help_text="Predicted recall on the day, as of the plan's making.")
    followed = serializers.FloatField(help_text="Predicted recall on the day, plan followed.")


class RecallSerializer(serializers.Serializer):
    now = serializers.FloatField(
        help_text="Predicted share of the cards recalled on the day if nothing more is studied "
        "(from the cards' memories as they are now)."
    )
    followed = serializers.FloatField(help_text="The same if the plan is followed.")
    more_time = serializers.FloatField(help_text="Followed, with `more_minutes` more a day.")
    more_minutes = serializers.IntegerField()
    later_date = serializers.FloatField(help_text="Followed, with the date `later_days` later.")
    later_days = serializers.IntegerField()
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
    today_cards = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Card ids the interview scheduler chose for today, not yet reviewed today, "
        "in order: what GET /api/study/queue/ serves.",
    )
    waiting_today = serializers.IntegerField(
        help_text="Cards SM-2 makes due today that the plan lets wait (they stay due)."
    )


def plan_data(user, ip: plan.InterviewPlan) -> dict:
    summary = ip.summary
    line = plan.today_line(user, ip=ip)
    assert line is not None  # None only when there is no plan, and `ip` is one
    left = plan.study_queue(user)
    sections = plan.sections_of(summary["sections_now"])
    days = []
    for n, (planned, due, new) in enumerate(summary["days"]):
        when = ip.today + timedelta(days=n)
        days.append(
            {
                "date": when, "planned": left.total if n == 0 else planned, "due": due,
                "new": new, "done": 0 if n else summary["done_today"],
            }
        )  # fmt: skip
    return {
        "interview_date": ip.interview_date,
        "today": ip.today,
        "days_until": ip.days_until,
        "target": summary["target"],
        "budget_minutes": summary["budget_minutes"],
        "budget_is_default": summary["budget_is_default"],
        "seconds_per_review": round(summary["seconds_per_review"], 2),
        "reviews_per_day": summary["per_day"],
        "own_parameters": summary["own_parameters"],
        "days": days,
        "recall": {
            "now": line.now,
            "followed": line.followed,
            "more_time": line.more_time,
            "more_minutes": line.more_minutes,
            "later_date": line.later_date,
            "later_days": line.later_days,
            "sections": [
                {
                    "section": sections.get(key, ("", key))[1],
                    "title": sections.get(key, ("", ""))[0],
                    "now": now,
                    "followed": summary["sections_followed"][key],
                }
                for key, now in summary["sections_now"].items()
            ],
        },
        "shortfall": max(0.0, summary["target"] - line.followed),
        "today_cards": [item.card.pk for item in left.items],
        "waiting_today": left.counts.get("waiting", 0),
    }


class PlanView(APIView):
    @extend_schema(
        operation_id="study_plan",
        summary="Your interview plan",
        description=(
            "From today to your interview date: the reviews planned and done per day, the "
            "predicted recall on the day (overall and per section) now and if the plan is "
            "followed, what 10 more minutes a day or a date a week later would change, and "
            "today's cards. Made at your day's first request (again when your date, budget, "
            "target or time zone changes); changes nothing. Without an interview date (or "
            "with one past, or interview mode off) there is no plan: 404 saying how to get one."
        ),
        responses={
            200: PlanSerializer,
            404: OpenApiResponse(ErrorSerializer, description="No interview date is set."),
        },
    )
    def get(self, request: Request) -> Response:
        ip = plan.interview_plan(request.user)
        if ip is None:
            raise plan.NoPlan(NO_PLAN)
        return Response(PlanSerializer(plan_data(request.user, ip)).data)


urlpatterns = [path("study/plan/", PlanView.as_view(), name="api-study-plan")]
