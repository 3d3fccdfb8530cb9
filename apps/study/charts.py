"""Geometry for the stats page's server-rendered SVG charts. Pure: numbers in, shapes out; the
templates draw them and the stylesheet's custom properties colour them (so dark mode works)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

CELL = 11  # heatmap square, px
GAP = 2


@dataclass(frozen=True)
class HeatCell:
    x: int
    y: int
    day: date
    count: int
    level: int  # 0..4, mapped to --heat-0 .. --heat-4


@dataclass(frozen=True)
class Heatmap:
    cells: list[HeatCell]
    months: list[tuple[int, str]]  # (x, "Jan") labels
    width: int
    height: int


def heat_level(count: int, busiest: int) -> int:
    if count <= 0:
        return 0
    if busiest <= 4:
        return min(4, count)
    return min(4, 1 + (count * 4 - 1) // busiest)


def year_heatmap(per_day: dict[date, int], today: date) -> Heatmap:
    """53 week columns ending with this week, Monday on top, like a contributions calendar."""
    last_monday = today - timedelta(days=today.weekday())
    first = last_monday - timedelta(weeks=52)
    busiest = max(per_day.values(), default=0)
    cells, months, seen_month = [], [], None
    step = CELL + GAP
    day = first
    while day <= today:
        week = (day - first).days // 7
        x, y = 28 + week * step, 16 + day.weekday() * step
        count = per_day.get(day, 0)
        cells.append(HeatCell(x, y, day, count, heat_level(count, busiest)))
        if day.weekday() == 0 and day.month != seen_month:
            seen_month = day.month
            roomy = not months or x - months[-1][0] >= 3 * step
            if roomy and week < 52:  # labels never overlap or hang off the last column
                months.append((x, day.strftime("%b")))
        day += timedelta(days=1)
    return Heatmap(cells, months, width=28 + 53 * step, height=16 + 7 * step)


@dataclass(frozen=True)
class Bar:
    x: int
    y: int
    width: int
    height: int
    value: int
    label: str


@dataclass(frozen=True)
class BarChart:
    bars: list[Bar]
    width: int
    height: int
    top: int  # value of the top grid line
    baseline: int  # y of the x axis


def bar_chart(values: list[int], labels: list[str], height: int = 140, bar: int = 16) -> BarChart:
    top = max(max(values, default=0), 1)
    plot = height - 30
    gap = 4
    bars = []
    for i, (value, label) in enumerate(zip(values, labels, strict=True)):
        h = round(plot * value / top)
        bars.append(Bar(x=36 + i * (bar + gap), y=10 + plot - h, width=bar, height=h,
                        value=value, label=label))  # fmt: skip
    return BarChart(bars, width=36 + len(values) * (bar + gap), height=height, top=top,
                    baseline=10 + plot)  # fmt: skip


@dataclass(frozen=True)
class PairedBarChart:
    """Two bars a day side by side (e.g. reviews planned and done), on one scale."""

    planned: list[Bar]
    done: list[Bar]
    width: int
    height: int
    top: int
    baseline: int


def paired_bar_chart(
    planned: list[int], done: list[int], labels: list[str], height: int = 140, bar: int = 8
) -> PairedBarChart:
    top = max(max(planned, default=0), max(done, default=0), 1)
    plot = height - 30
    step = 2 * bar + 4
    first, second = [], []
    for i, (p, d, label) in enumerate(zip(planned, done, labels, strict=True)):
        x = 36 + i * step
        hp, hd = round(plot * p / top), round(plot * d / top)
        first.append(Bar(x=x, y=10 + plot - hp, width=bar, height=hp, value=p, label=label))
        second.append(Bar(x=x + bar, y=10 + plot - hd, width=bar, height=hd, value=d, label=label))
    return PairedBarChart(first, second, width=60 + len(labels) * step, height=height, top=top,
                          baseline=10 + plot)  # fmt: skip
