"""The interview plan page: today's line, the plan per day, predicted recall on the day per
section, and what more time or a later date would change. Studying happens in the one queue
(the review page), which serves the plan's cards while interview mode is on."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.db.models.functions import TruncDate
from django.shortcuts import render
from django.views.decorators.http import require_GET

from apps.accounts.models import profile_for
from apps.charts.bars import paired_bar_chart
from apps.interview import plan, tasks
from apps.study import scheduler
from apps.study.models import ReviewLog

PAST_DAYS = 7


def _context(request) -> dict:
    user = request.user
    profile = profile_for(user)
    today = profile.local_today()
    context = {
        "profile": profile,
        "mode_off": profile.interview_date is not None
        and profile.interview_date >= today
        and not profile.interview_mode,
    }
    ip = plan.interview_plan(user)
    if ip is None:
        return context
    line = plan.today_line(user, ip=ip)
    assert line is not None  # None only when there is no plan, and `ip` is one
    tasks.memory_fit_enqueue(user)
    days = [ip.today + timedelta(days=d) for d in range(-PAST_DAYS, len(ip.summary["days"]))]
    start = scheduler.day_start(ip.built_at, profile.zone) - timedelta(days=PAST_DAYS)
    logs = ReviewLog.objects.filter(user=user, undone_at=None, reviewed_at__gte=start)
    per_day = logs.annotate(day=TruncDate("reviewed_at", tzinfo=profile.zone)).order_by()
    done_per_day = dict(per_day.values_list("day").annotate(n=Count("pk")).values_list("day", "n"))
    planned = [0] * PAST_DAYS + [n for n, _due, _new in ip.summary["days"]]
    planned[PAST_DAYS] = line.cards_today
    done = [done_per_day.get(day, 0) for day in days]
    labels = ["today" if day == ip.today else day.strftime("%-d %b") for day in days]
    titles = {k: title for k, (title, _) in plan.sections_of(ip.summary["sections_now"]).items()}
    sections = [
        {
            "title": titles.get(key, "?"),
            "now": now,
            "followed": ip.summary["sections_followed"][key],
        }
        for key, now in ip.summary["sections_now"].items()
    ]
    sections.sort(key=lambda s: s["followed"])
    target = ip.summary["target"]
    context |= {
        "ip": ip,
        "line": line,
        # A laptop's chart and a phone's (the page shows one); day labels counted from today.
        "charts": [
            (
                paired_bar_chart(
                    planned,
                    done,
                    labels,
                    width=width,
                    anchor=PAST_DAYS,
                    x_label="day",
                    y_label="reviews",
                ),
                size,
            )
            for width, size in ((640, "wide"), (340, "narrow"))
        ],  # fmt: skip
        "planned_total": sum(planned[PAST_DAYS:]),
        "sections": sections,
        "short_sections": [s for s in sections if s["followed"] < target][:3],
        "shortfall_points": max(0, round(100 * (target - line.followed))),
    }
    return context


@login_required
@require_GET
def plan_page(request):
    """The plan (GET only: reviews happen in the queue)."""
    return render(request, "interview/plan.html", _context(request))
