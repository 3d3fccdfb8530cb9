"""The interview plan page: the plan per day, predicted recall on the day, and today's planned
cards to review (one view for the page and its htmx fragment)."""

from __future__ import annotations

import time
import uuid
from datetime import timedelta

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse

from apps.study import charts, interview, scheduler, selectors, services, tasks
from apps.study.views import BUTTONS, _duration

PAST_DAYS = 7


class PlanReviewForm(forms.Form):
    card = forms.IntegerField(min_value=1)
    grade = forms.IntegerField(min_value=0, max_value=5)
    client_id = forms.UUIDField(required=False)
    shown_at = forms.CharField(required=False, max_length=20)


def _context(request, notice: str = "") -> dict:
    ip = interview.interview_plan(request.user)
    context = {"ip": ip, "notice": notice, "plan_url": reverse("study:plan")}
    if ip is None:
        return context
    tasks.memory_fit_enqueue(request.user)
    p = ip.plan
    days = [ip.today + timedelta(days=d) for d in range(-PAST_DAYS, len(p.days))]
    planned = [0] * PAST_DAYS + [len(d.cards) for d in p.days]
    planned[PAST_DAYS] = len(ip.today_cards)
    done = [ip.done_per_day.get(day, 0) for day in days]
    labels = ["today" if day == ip.today else day.strftime("%-d %b") for day in days]
    sections = [
        {"title": ip.section_titles[key], "now": now, "followed": p.followed.sections[key]}
        for key, now in p.now.sections.items()
    ]
    context |= {
        # A laptop's chart and a phone's (the page shows one); day labels counted from today.
        "charts": [
            (
                charts.paired_bar_chart(
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
        "short_sections": [(ip.section_titles[key], r) for key, r in p.short_sections[:3]],
        "short_more": max(0, len(p.short_sections) - 3),
        "shortfall_points": round(100 * p.shortfall),
    }
    cards = ip.today_cards
    if cards:
        card = cards[0]
        context |= {
            "card": card,
            "card_is_due": ip.is_due(card.pk),
            "card_kind": ip.card_kind(card.pk),  # the eyebrow: "new", "due" or "plan"
            "left_today": len(cards),
            "buttons": [{"name": n, "grade": g, "key": k} for n, g, k in BUTTONS],
            "client_id": uuid.uuid4(),
            "shown_at": int(time.time() * 1000),
        }
    return context


@login_required
def plan_page(request):
    """GET: the plan. POST: grade one of today's planned cards (a normal review when SM-2 lets
    it be graded, else a plan-mode review that leaves its schedule alone) and show the plan
    again, with the predicted recall on the day moved."""
    notice = ""
    if request.method == "POST":
        form = PlanReviewForm(request.POST)
        if not form.is_valid():
            field, errors = next(iter(form.errors.items()))
            notice = f"{field}: {errors[0]}"
        else:
            data = form.cleaned_data
            card = selectors.visible_card(request.user, data["card"])
            if card is None:
                raise Http404("No such card.")
            try:
                interview.plan_review_record(
                    user=request.user,
                    card=card,
                    grade=data["grade"],
                    client_id=data["client_id"],
                    duration_ms=_duration(data["shown_at"]),
                )
            except (scheduler.GradeError, services.StudyError) as exc:
                notice = str(exc)
        if not request.htmx:
            return redirect("study:plan")
    context = _context(request, notice)
    template = "study/plan.html#plan" if request.htmx else "study/plan.html"
    return render(request, template, context)
