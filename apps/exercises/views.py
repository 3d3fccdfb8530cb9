"""The learner's exercise pages: the list, one exercise with its editor, and a submission's
result (a page, and the fragment the exercise page polls until the result is in). No code runs
here: a Run or Submit is queued for the exercises worker."""

from __future__ import annotations

import uuid

from csp.constants import NONCE
from csp.decorators import csp_update
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django_htmx.http import HttpResponseStopPolling

from apps.exercises import selectors, services
from apps.exercises.forms import SubmissionForm
from apps.exercises.limits import shown_limits
from apps.exercises.models import Submission
from config.htmx import HtmxHttpRequest


def index(request: HttpRequest) -> HttpResponse:
    exercises = list(selectors.live_exercises(request.user))
    due = {d.exercise.pk: d for d in selectors.due_exercises(request.user)}
    for item in exercises:
        item.due = due.get(item.pk)
    return render(request, "exercises/index.html", {"exercises": exercises})


def _result_context(submission: Submission | None) -> dict:
    if submission is None:
        return {"submission": None}
    waited = (timezone.now() - submission.created_at).total_seconds()
    context = {"submission": submission, "tests": submission.tests}
    if submission.status == Submission.Status.QUEUED and waited >= settings.EXERCISES_WAIT_NOTICE_S:
        context["waiting"] = {"seconds": int(waited), "status": selectors.sandbox_status()}
    if submission.status == Submission.Status.FAILED:
        cards = submission.exercise.cards.select_related("deck", "section")
        context["cards"] = selectors.practised_cards(cards.order_by("section__order", "order"))
    return context


# CodeMirror injects its own stylesheet (a <style> element): it carries this response's nonce,
# and style attributes stay refused. (The ignore: django-csp types a view as taking the request
# alone, no URL arguments.)
@csp_update({"style-src": [NONCE]})  # type: ignore[arg-type]
def exercise(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The exercise with its editor. POST queues a Run or a Submit and comes back here with the
    result panel polling for it (htmx swaps the panel alone)."""
    exercise = selectors.exercise_detail(request.user, slug)
    revision = exercise.live_revision
    error, status = None, 200
    code = None
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        form = SubmissionForm(request.POST)
        if form.is_valid():
            code = form.cleaned_data["code"]
            try:
                made, _ = services.submission_create(
                    user=request.user, exercise=exercise, code=code,
                    mode=form.cleaned_data["mode"], client_id=form.cleaned_data["client_id"],
                )  # fmt: skip
            except services.StillRunning as exc:
                error, status = exc.message, exc.status
                # Another exercise's run is named in the message; this page shows its own only.
                same = exc.submission.exercise_id == exercise.pk
                submission = exc.submission if same else None
            except services.CodeRefused as exc:
                error, status, submission = exc.message, exc.status, None
            else:
                if request.htmx:
                    context = {**_result_context(made), "client_id": uuid.uuid4()}
                    return render(request, "exercises/_posted.html", context)
                return redirect(f"{exercise.get_absolute_url()}?submission={made.pk}")
        else:
            error, status, submission = (
                " ".join(
                    f"{field}: {' '.join(map(str, errs))}" for field, errs in form.errors.items()
                ),
                400,
                None,
            )
        if request.htmx:
            context = {**_result_context(submission), "error": error}
            # htmx swaps a 2xx only: the refusal comes as the panel, with its reason.
            return render(request, "exercises/exercise.html#result", context)
    else:
        submission = None
        if request.user.is_authenticated:
            wanted = request.GET.get("submission", "")
            latest = Submission.objects.filter(user=request.user, exercise=exercise)
            if wanted.isdigit():
                latest = latest.filter(pk=int(wanted))
            submission = latest.select_related("revision").order_by("-created_at", "-id").first()
    if code is None:
        code = submission.code if submission else revision.starter
    history = (
        selectors.recent_submissions(request.user, exercise)
        if request.user.is_authenticated
        else []
    )
    context = {
        "exercise": exercise,
        "practised": selectors.practised_cards(exercise.cards.all()),
        "revision": revision,
        "code": code,
        "client_id": uuid.uuid4(),
        "history": history,
        "standing": selectors.standing(request.user, exercise),
        "sandbox": selectors.sandbox_status(),
        "error": error,
        "limits": shown_limits(revision.runtime),
        **_result_context(submission),
    }
    return render(request, "exercises/exercise.html", context, status=status)


@login_required
def submission(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A submission's result. The exercise page's panel polls this (htmx) until it is in, then
    polling stops (286); without htmx it is a page of its own with the code it ran."""
    submission = selectors.user_submission(request.user, pk)
    context = _result_context(submission)
    if request.htmx:
        response = render(request, "exercises/exercise.html#result", context)
        if submission.is_finished:
            response.status_code = HttpResponseStopPolling.status_code
        return response
    context["exercise"] = submission.exercise
    context["back"] = reverse("exercises:exercise", args=[submission.exercise.slug])
    return render(request, "exercises/submission.html", context)
