"""Demo pages. Ray is never imported here: runs are queued for the demos worker."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling

from apps.demos import selectors, services
from apps.demos.chart import demo_chart, lines_from_points
from apps.demos.models import DemoRun
from apps.demos.ray_demos import DEMOS, get_demo, missing_extras


def _spec_or_404(slug: str):
    spec = get_demo(slug)
    if spec is None:
        raise Http404(f"No demo called {slug!r}.")
    return spec


def index(request: HttpRequest) -> HttpResponse:
    cards = selectors.cards_by_demo()
    demos = [
        {"spec": spec, "cards": cards.get(spec.slug, []), "missing": missing_extras(spec)}
        for spec in DEMOS
    ]
    return render(request, "demos/index.html", {"demos": demos})


def demo(request: HttpRequest, slug: str) -> HttpResponse:
    spec = _spec_or_404(slug)
    values, errors, status = spec.defaults(), {}, 200
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        # An unticked checkbox sends nothing: that means false. A number left out: default.
        raw = {p.name: request.POST.get(p.name, "false") for p in spec.params
               if p.name in request.POST or p.type == "bool"}  # fmt: skip
        values = {**values, **raw}
        try:
            run = services.demo_run_create(user=request.user, demo=slug, params=raw)
        except services.RunRefused as exc:  # shown in place, on the form
            errors, status = exc.errors, exc.status
        else:
            return redirect(run)
    params = [
        {"param": p, "value": values[p.name], "error": errors.get(p.name)} for p in spec.params
    ]
    context = {
        "spec": spec,
        "params": params,
        "form_error": errors.get("__all__"),
        "missing": missing_extras(spec),
        "cards": selectors.demo_cards(slug),
        "runs": (
            selectors.user_runs(request.user, demo=slug)[:10]
            if request.user.is_authenticated
            else []
        ),
    }
    return render(request, "demos/demo.html", context, status=status)


def _own_run(request: HttpRequest, pk: int) -> DemoRun:
    try:
        return selectors.run_for_user(request.user, pk)
    except ObjectDoesNotExist:
        raise Http404("No such run.") from None


@login_required
def run(request: HttpRequest, pk: int) -> HttpResponse:
    demo_run = _own_run(request, pk)
    if request.htmx:
        seen = request.GET.get("seq", "")
        # The status counts too: queued -> running comes before the first point (seconds for
        # RLlib or PBT), and the page must stop saying it waits for the worker.
        seen_status = request.GET.get("status", demo_run.status)
        if (
            not demo_run.is_finished
            and seen == str(demo_run.last_seq)
            and seen_status == demo_run.status
        ):
            return HttpResponse(status=204)  # nothing new: htmx keeps the current fragment
    spec = demo_run.spec
    points = selectors.run_points(demo_run)
    chart = demo_chart(
        spec.chart, lines_from_points(spec.chart, points), title=f"{spec.title}: run {pk}"
    )
    context = {"run": demo_run, "spec": spec, "chart": chart, "legend": _legend(spec.chart)}
    if request.htmx:
        response = render(request, "demos/run.html#live", context)
        if demo_run.is_finished:
            response.status_code = HttpResponseStopPolling.status_code
        return response
    return render(request, "demos/run.html", context)


def _legend(chart, prefix: str = "", dashed: bool = False):
    return [
        {"label": f"{prefix}{s.label}", "css": f"series-{i % 6}", "dashed": dashed}
        for i, s in enumerate(chart.series)
    ]


@login_required
@require_POST
def cancel(request: HttpRequest, pk: int) -> HttpResponse:
    demo_run = services.demo_run_cancel(run=_own_run(request, pk))
    messages.info(request, f"Run {pk} is {demo_run.get_status_display().lower()}.")
    return redirect(demo_run)


@login_required
def runs(request: HttpRequest) -> HttpResponse:
    return render(request, "demos/runs.html", {"runs": selectors.user_runs(request.user)[:100]})


@login_required
def compare(request: HttpRequest) -> HttpResponse:
    try:
        a = _own_run(request, int(request.GET.get("a", "")))
        b = _own_run(request, int(request.GET.get("b", "")))
    except ValueError:
        raise Http404("Pick two runs to compare.") from None
    if a.demo != b.demo:
        messages.error(request, "Only runs of the same demo can share a chart.")
        return redirect("demos:runs")
    spec = a.spec
    lines = lines_from_points(spec.chart, selectors.run_points(a), prefix=f"run {a.pk}: ")
    lines += lines_from_points(
        spec.chart, selectors.run_points(b), prefix=f"run {b.pk}: ", dashed=True
    )
    # The second run keeps the first run's colour for each series, dashed.
    chart = demo_chart(spec.chart, lines, title=f"{spec.title}: runs {a.pk}, {b.pk}")
    legend = _legend(spec.chart, f"run {a.pk}: ") + _legend(spec.chart, f"run {b.pk}: ", True)
    return render(
        request,
        "demos/compare.html",
        {"spec": spec, "a": a, "b": b, "chart": chart, "legend": legend},
    )
