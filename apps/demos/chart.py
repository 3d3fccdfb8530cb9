"""Server-rendered SVG line charts of demo points: axes, units, labels, no JavaScript."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.utils.html import escape

from apps.demos.ray_demos.base import Chart

WIDTH, HEIGHT = 640, 340
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 52


@dataclass
class Line:
    key: str
    label: str
    points: list[tuple[float, float]]
    dashed: bool = False
    color: int = 0


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step + 1e-9) * step
    ticks = [round(first, 10)]
    while ticks[-1] < high - 1e-9:  # the last tick is at or above the highest value
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def fmt(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 10_000:
        return f"{value / 1000:g}k"
    return f"{value:g}" if abs(value) >= 0.01 else f"{value:.0e}"


def _finite(value) -> bool:
    """A number the chart can place; a null (a NaN the worker stored as null) is left out."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def lines_from_points(chart: Chart, points: list[dict], *, prefix: str = "", dashed=False):
    by_series: dict[str, list[tuple[float, float]]] = {s.key: [] for s in chart.series}
    for p in points:
        x, y = p.get("x"), p.get("y")
        if p.get("series") in by_series and _finite(x) and _finite(y):
            by_series[p["series"]].append((float(x), float(y)))
    return [
        Line(s.key, f"{prefix}{s.label}", by_series[s.key], dashed=dashed, color=i)
        for i, s in enumerate(chart.series)
    ]


def render_svg(chart: Chart, lines: list[Line], *, title: str) -> str:
    """An accessible SVG: role=img with a title; colours come from CSS (dark mode aware)."""
    xs = [x for line in lines for x, _ in line.points]
    ys = [y for line in lines for _, y in line.points]
    x_ticks = nice_ticks(min(xs, default=0), max(xs, default=1))
    y_ticks = nice_ticks(min(0.0, min(ys, default=0)), max(ys, default=1))
    x0, x1, y0, y1 = x_ticks[0], x_ticks[-1], y_ticks[0], y_ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(x):
        return LEFT + (x - x0) / ((x1 - x0) or 1) * plot_w

    def sy(y):
        return TOP + plot_h - (y - y0) / ((y1 - y0) or 1) * plot_h

    parts = [
        f'<svg class="demo-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" preserveAspectRatio="xMidYMid meet">',
        f"<title>{escape(title)}</title>",
    ]
    for t in y_ticks:
        y = sy(t)
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{fmt(t)}</text>'
        )
    for t in x_ticks:
        x = sx(t)
        parts.append(
            f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + plot_h}"/>'
            f'<text class="tick" x="{x:.1f}" y="{TOP + plot_h + 18}" '
            f'text-anchor="middle">{fmt(t)}</text>'
        )
    parts.append(
        f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{TOP + plot_h}" '
        f'y2="{TOP + plot_h}"/><line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" '
        f'y2="{TOP + plot_h}"/>'
    )
    x_label = chart.x_label + (f" ({chart.x_unit})" if chart.x_unit else "")
    y_label = chart.y_label + (f" ({chart.y_unit})" if chart.y_unit else "")
    parts.append(
        f'<text class="label" x="{LEFT + plot_w / 2:.0f}" y="{HEIGHT - 10}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
        f'<text class="label" transform="translate(16 {TOP + plot_h / 2:.0f}) rotate(-90)" '
        f'text-anchor="middle">{escape(y_label)}</text>'
    )
    for line in lines:
        if not line.points:
            continue
        pts = line.points  # in the order measured: a redone step shows as a step back
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in pts)
        dash = ' stroke-dasharray="6 4"' if line.dashed else ""
        css = f"series series-{line.color % 6}"
        parts.append(f'<polyline class="{css}" points="{path}"{dash}><title>{escape(line.label)}'
                     "</title></polyline>")  # fmt: skip
        if len(pts) <= 40:
            parts.extend(
                f'<circle class="{css}" cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3"/>' for x, y in pts
            )
    if not xs:
        parts.append(
            f'<text class="label" x="{LEFT + plot_w / 2:.0f}" y="{TOP + plot_h / 2:.0f}" '
            'text-anchor="middle">Waiting for the first point…</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
