"""A run's points as a line chart: one line per series of the demo's Chart, drawn by
charts/charts.html#line from apps.charts.geometry (server-rendered SVG, no JavaScript)."""

from __future__ import annotations

from apps.charts.geometry import Line, LineChart, is_number, line_chart
from apps.demos.ray_demos.base import Chart


def lines_from_points(chart: Chart, points: list[dict], *, prefix: str = "", dashed=False):
    """The points of each series in the order measured; a point without a finite x and y (a
    NaN the worker stored as null) is left out."""
    by_series: dict[str, list[tuple[float, float]]] = {s.key: [] for s in chart.series}
    for p in points:
        x, y = p.get("x"), p.get("y")
        if p.get("series") in by_series and is_number(x) and is_number(y):
            by_series[p["series"]].append((float(x), float(y)))
    return [
        Line(f"{prefix}{s.label}", by_series[s.key], color=i, dashed=dashed)
        for i, s in enumerate(chart.series)
    ]


def _axis_label(label: str, unit: str) -> str:
    return f"{label} ({unit})" if unit else label


def demo_chart(chart: Chart, lines: list[Line], *, title: str) -> LineChart:
    return line_chart(
        lines,
        title=title,
        x_label=_axis_label(chart.x_label, chart.x_unit),
        y_label=_axis_label(chart.y_label, chart.y_unit),
    )
