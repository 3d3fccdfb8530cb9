"""A run's points as a chart, drawn by charts/charts.html#line from apps.charts.geometry
(server-rendered SVG, no JavaScript).

A figure of the run is also a series of the chart (claims.Figures reports each trial as a
point), so the chart draws the numbers the verdict and the table use: every trial as a dot,
each trial-by-trial line's median across it, a median line with a min-max band where several
trials share an x, the claim's threshold as a rule, and a bracket for each comparison of two
lines the claim makes. Every dot, rule and bracket carries a title with its number, written
as the verdict writes it (claims.quantity)."""

from __future__ import annotations

from collections import defaultdict

from apps.charts.geometry import Band, Bracket, Line, LineChart, Rule, is_number, line_chart
from apps.demos.ray_demos.base import Chart, DemoSpec
from apps.demos.ray_demos.claims import Check, number, quantity, spread


def _axis_label(label: str, unit: str) -> str:
    return f"{label} ({unit})" if unit else label


def _at(chart: Chart, x: float) -> str:
    name = chart.x_label
    if name == "trial":
        return f"trial {number(x)}"
    return f"{name} {number(x)}{f' {chart.x_unit}' if chart.x_unit else ''}"


def _extra(point: dict) -> str:
    """What a point carries beside x and y, in words (a loss, a count's total, a node)."""
    said = []
    if is_number(point.get("loss")):
        said.append(f"loss {number(point['loss'])}")
    if point.get("node"):
        said.append(f"node {point['node']}")
    return f" ({', '.join(said)})" if said else ""


def layers(spec: DemoSpec, points: list[dict], *, figures: dict | None = None, prefix: str = "",
           dashed: bool = False, claim_marks: bool = True) -> dict:  # fmt: skip
    """The lines, bands, rules and brackets of one run's chart."""
    chart, unit = spec.chart, spec.chart.y_unit
    lines, bands, rules, brackets = [], [], [], []
    by_figure: dict[str, list[float]] = defaultdict(list)
    figure_series: dict[str, str] = {}
    xs: list[float] = []
    for i, series in enumerate(chart.series):
        mine = [p for p in points if p.get("series") == series.key
                and is_number(p.get("x")) and is_number(p.get("y"))]  # fmt: skip
        warm = [p for p in mine if p.get("warmup")]
        counted = [p for p in mine if not p.get("warmup")]
        label = f"{prefix}{series.label}"

        def named(p, label=label) -> str:
            """A trial's dot is titled with its figure's own label, as the table and the
            verdict name it (known once the run has its summary)."""
            figure = (figures or {}).get(p.get("figure") or "")
            return f"{prefix}{figure['label']}" if isinstance(figure, dict) else label

        for p in counted:
            xs.append(float(p["x"]))
            if p.get("figure"):
                by_figure[p["figure"]].append(float(p["y"]))
                figure_series[p["figure"]] = series.key
        if warm:
            lines.append(Line(
                f"{label}: warm-up, not counted",
                [(float(p["x"]), float(p["y"])) for p in warm], color=i, hollow=True,
                joined=False,
                titles=[f"warm-up, not counted: {label}, {_at(chart, p['x'])}: "
                        f"{quantity(p['y'], unit)}" for p in warm],
            ))  # fmt: skip
        if not counted:
            continue
        at_x: dict[float, list[float]] = defaultdict(list)
        for p in counted:
            at_x[float(p["x"])].append(float(p["y"]))
        if any(len(ys) > 1 for ys in at_x.values()):
            # Several trials at one x: the line joins the medians, the band spans the trials.
            xs_sorted = sorted(at_x)
            medians = [(x, float(spread(at_x[x])["median"])) for x in xs_sorted]
            at_point = {float(p["x"]): p for p in counted}
            lines.append(Line(
                label, medians, color=i, dashed=dashed,
                titles=[f"{named(at_point[x])}, {_at(chart, x)}: median of {len(at_x[x])} "
                        f"trials {quantity(m, unit)}, from {quantity(min(at_x[x]), unit)} to "
                        f"{quantity(max(at_x[x]), unit)}" for x, m in medians],
            ))  # fmt: skip
            spanned = [x for x in xs_sorted if len(at_x[x]) > 1]
            bands.append(Band(f"{label}: the trials' range", [(x, min(at_x[x])) for x in spanned],
                              [(x, max(at_x[x])) for x in spanned], color=i))  # fmt: skip
            lines.append(Line(
                f"{label}: each trial", [(float(p["x"]), float(p["y"])) for p in counted],
                color=i, joined=False,
                titles=[f"{named(p)}, {_at(chart, p['x'])}, one trial: "
                        f"{quantity(p['y'], unit)}" for p in counted],
            ))  # fmt: skip
            continue
        lines.append(Line(
            label, [(float(p["x"]), float(p["y"])) for p in counted], color=i, dashed=dashed,
            titles=[f"{named(p)}, {_at(chart, p['x'])}: {quantity(p['y'], unit)}{_extra(p)}"
                    for p in counted],
        ))  # fmt: skip
        trial_values = [float(p["y"]) for p in counted]
        one_figure = {p.get("figure") for p in counted}
        if (
            chart.x_label == "trial"
            and len(counted) > 1
            and len(one_figure) == 1
            and None not in (one_figure)
        ):
            median = float(spread(trial_values)["median"])
            rules.append(Rule(
                f"{named(counted[0])}: median of {len(counted)} trials {quantity(median, unit)}",
                median,
                color=i, x_from=min(at_x), x_to=max(at_x),
            ))  # fmt: skip
    if claim_marks:
        rules += _thresholds(spec, figure_series, unit)
        brackets += _comparisons(spec, by_figure, figures, xs)
    return {"lines": lines, "bands": bands, "rules": rules, "brackets": brackets}


def _thresholds(spec: DemoSpec, figure_series: dict[str, str], unit: str) -> list[Rule]:
    return [
        Rule(f"the claim needs {check.needs(unit)}: {check.part or check.figure}", check.threshold)
        for check in spec.claim.checks
        if not check.over and check.figure in figure_series
    ]


def _median_of(check_figure: str, by_figure, figures: dict | None) -> float | None:
    if figures and isinstance(figures.get(check_figure), dict):
        return figures[check_figure].get("median")
    values = by_figure.get(check_figure)
    return spread(values)["median"] if values else None


def _comparisons(spec: DemoSpec, by_figure, figures: dict | None, xs) -> list[Bracket]:
    """A bracket for each check comparing two figures drawn in the chart's unit."""
    out = []
    for check in spec.claim.checks:
        if not check.over or not _drawn(spec, check, by_figure, figures):
            continue
        top, bottom = (_median_of(k, by_figure, figures) for k in (check.figure, check.over))
        if top is None or bottom is None or bottom <= 0:
            continue
        ratio = Check(check.figure, at_least=0, over=check.over).value(
            {check.figure: {"median": top}, check.over: {"median": bottom}}
        )
        x = max(xs, default=0) + 0.35
        label = (f"{check.part or check.figure}: {quantity(ratio, 'x')}, the medians "
                 f"{quantity(top, spec.chart.y_unit)} and {quantity(bottom, spec.chart.y_unit)}; "
                 f"the claim needs {check.needs('x')}")  # fmt: skip
        out.append(Bracket(label, x, top, bottom, quantity(ratio, "x")))
    return out


def _drawn(spec: DemoSpec, check: Check, by_figure, figures: dict | None) -> bool:
    """Both figures are lines of the chart, or both are in the chart's unit (a first and a last
    value of one line)."""
    if check.figure in by_figure and check.over in by_figure:
        return True
    if not figures:
        return False
    units = {figures.get(k, {}).get("unit") for k in (check.figure, check.over)}
    return units == {spec.chart.y_unit} and check.figure in figures and check.over in figures


def demo_chart(spec: DemoSpec, runs: list[dict], *, title: str) -> LineChart:
    """One chart of one or more runs: runs is [{"points", "figures", "prefix", "dashed"}]; the
    claim's rules and brackets are drawn for a single run only."""
    lines, bands, rules, brackets = [], [], [], []
    for run in runs:
        drawn = layers(spec, run["points"], figures=run.get("figures"),
                       prefix=run.get("prefix", ""), dashed=run.get("dashed", False),
                       claim_marks=len(runs) == 1)  # fmt: skip
        lines += drawn["lines"]
        bands += drawn["bands"]
        rules += drawn["rules"]
        brackets += drawn["brackets"]
    chart = spec.chart
    return line_chart(
        lines, title=title, bands=bands, rules=rules, brackets=brackets,
        x_label=_axis_label(chart.x_label, chart.x_unit),
        y_label=_axis_label(chart.y_label, chart.y_unit), y_log=chart.y_log,
    )  # fmt: skip
