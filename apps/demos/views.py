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
from apps.demos.chart import demo_chart
from apps.demos.models import DemoRun
from apps.demos.ray_demos import DEMOS, DemoSpec, get_demo, missing_extras
from config.http import AuthenticatedHtmxHttpRequest


def _spec_or_404(slug: str) -> DemoSpec:
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
    values: dict[str, object] = dict(spec.defaults())
    errors: dict[str, str] = {}
    status = 200
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


def _spec_of(run: DemoRun) -> DemoSpec:
    """The run's demo; a run of a demo the catalogue no longer has is shown as gone."""
    spec = run.spec
    if spec is None:
        raise Http404(f"The demo of run {run.pk} ({run.demo}) is no longer offered.")
    return spec


@login_required
def run(request: AuthenticatedHtmxHttpRequest, pk: int) -> HttpResponse:
    demo_run = _own_run(request, pk)
    if request.htmx:
        seen = request.GET.get("seq", "")
        # The status counts too: queued -> running comes before the first point (seconds for
        # RLlib or PBT), and the page must stop saying it waits for the worker; so does what
        # the run waits for (free CPUs, its actors).
        seen_status = request.GET.get("status", demo_run.status)
        if (
            not demo_run.is_finished
            and seen == str(demo_run.last_seq)
            and seen_status == demo_run.status
            and request.GET.get("waiting", "") == demo_run.waiting
        ):
            return HttpResponse(status=204)  # nothing new: htmx keeps the current fragment
    spec = _spec_of(demo_run)
    points = selectors.run_points(demo_run)
    figures = (demo_run.summary or {}).get("figures")
    chart = demo_chart(
        spec, [{"points": points, "figures": figures}], title=f"{spec.title}: run {pk}"
    )
    context = {
        "run": demo_run,
        "spec": spec,
        "chart": chart,
        "legend": _legend(spec.chart),
        "key": chart_key(chart),
    }
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


def chart_key(chart) -> list[str]:
    """How to read what this chart draws besides its lines, in words."""
    key = []
    if any(p.hollow for p in chart.paths):
        key.append("a hollow dot is a warm-up, measured but not counted")
    if chart.bands:
        key.append("a shaded band spans the trials at one x, the line joins their medians")
    if any("series" in r.css for r in chart.rules):
        key.append("a thin line in a series' colour is its median over the trials")
    if any("series" not in r.css for r in chart.rules):
        key.append("grey dashes are what the claim needs")
    if chart.brackets:
        key.append("a bracket is the ratio of two medians the claim compares")
    return key


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
    spec = _spec_of(a)
    # The second run keeps the first run's colour for each series, dashed.
    runs = [
        {"points": selectors.run_points(run), "prefix": f"run {run.pk}: ", "dashed": dashed}
        for run, dashed in ((a, False), (b, True))
    ]
    chart = demo_chart(spec, runs, title=f"{spec.title}: runs {a.pk}, {b.pk}")
    legend = _legend(spec.chart, f"run {a.pk}: ") + _legend(spec.chart, f"run {b.pk}: ", True)
    return render(
        request,
        "demos/compare.html",
        {
            "spec": spec,
            "a": a,
            "b": b,
            "runs_side": [a, b],
            "chart": chart,
            "legend": legend,
            "key": chart_key(chart),
        },  # fmt: skip
    )
