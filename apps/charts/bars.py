"""Bar charts: reviews per day, and paired bars (planned beside done). Numbers in, shapes out, in
SVG user units, drawn by the partials in templates/charts/ as the rest of apps.charts.geometry is.
Pure: no Django."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from apps.charts.geometry import Tick, nice_ticks, tick_label

# Drawn at one SVG unit per CSS pixel (never scaled down), so their text is FONT px or more on any
# screen: a page draws a narrow chart for a phone and a wide one for a laptop.
FONT = 11  # the smallest text a chart draws, in px
DIGIT = 0.62 * FONT  # a character's width, generous (system-ui digits are about 0.55 em)
BAR_GAP = 2  # px between the bars of two days
MAX_STEP = 48  # px a day at most: a few days make a narrow chart, not a few slabs


@dataclass(frozen=True)
class Bar:
    x: int
    y: int
    width: int
    height: int
    value: int
    label: str


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str


@dataclass(frozen=True)
class BarChart:
    """One or more bars a day side by side (`groups[0]` first), on one scale from 0 to `top`,
    with a y axis of whole-number ticks, a day label every few bars, the value over each bar
    where it fits, and a label on each axis."""

    groups: list[list[Bar]]
    width: int
    height: int
    top: int  # value of the top grid line
    baseline: int  # y of the x axis
    left: int  # x of the y axis
    y_ticks: list[Tick]
    x_ticks: list[Text]
    values: list[Text]
    x_label: str
    y_label: str

    @property
    def bars(self) -> list[Bar]:
        return self.groups[0]

    @property
    def middle(self) -> tuple[float, float]:
        return (self.left + self.width) / 2, (BAR_TOP + self.baseline) / 2


BAR_TOP = FONT + 6  # room for the tallest bar's value
BAR_DEFAULTS = {"width": 640, "height": 170, "x_label": "", "y_label": "", "anchor": 0}


def text_width(text: str) -> float:
    return len(text) * DIGIT


def _bar_chart(
    series: Sequence[Sequence[int]],
    labels: Sequence[str],
    *,
    width: int,
    height: int,
    x_label: str,
    y_label: str,
    anchor: int,
) -> BarChart:
    count = len(labels)
    ticks = nice_ticks(0, max(max((max(v, default=0) for v in series), default=0), 1), 3,
                       integer=True)  # fmt: skip
    top = int(ticks[-1])
    left = round(FONT + 8 + max(text_width(tick_label(t)) for t in ticks) + 4)
    baseline = height - 2 * (FONT + 6)
    plot = baseline - BAR_TOP
    step = max(len(series) + BAR_GAP, min(MAX_STEP, (width - left - 4) // max(count, 1)))
    bar = max(1, (step - BAR_GAP) // len(series))
    groups = []
    for n, counts in enumerate(series):
        bars = []
        for i, (value, label) in enumerate(zip(counts, labels, strict=True)):
            h = round(plot * value / top)
            x = left + i * step + n * bar
            bars.append(Bar(x=x, y=baseline - h, width=bar, height=h, value=value, label=label))
        groups.append(bars)
    # A day label every `every` bars, counted from `anchor` (today), so that none overlap.
    widest = max((text_width(label) for label in labels), default=0)
    every = max(1, math.ceil((widest + 6) / step))
    x_ticks = [
        Text(left + i * step + step / 2, baseline + FONT + 4, labels[i])
        for i in range(count)
        if (i - anchor) % every == 0
    ]
    # The value over a bar, tallest first, wherever it overlaps no value already placed.
    values: list[Text] = []
    taken: list[tuple[float, float]] = []
    for b in sorted((b for g in groups for b in g if b.value), key=lambda b: -b.value):
        text = str(b.value)
        middle = b.x + b.width / 2
        span = (middle - text_width(text) / 2 - 1, middle + text_width(text) / 2 + 1)
        if all(span[1] <= lo or span[0] >= hi for lo, hi in taken):
            taken.append(span)
            values.append(Text(middle, b.y - 3, text))
    return BarChart(
        groups=groups, width=left + count * step + 4, height=height, top=top, baseline=baseline,
        left=left, y_ticks=[Tick(round(baseline - plot * t / top, 1), tick_label(t))
                            for t in ticks],
        x_ticks=x_ticks, values=values, x_label=x_label, y_label=y_label,
    )  # fmt: skip


def bar_chart(values: list[int], labels: list[str], **options) -> BarChart:
    """A bar a day; `options` as _bar_chart takes them: `width` (640; a phone's is 340),
    `height`, `x_label`, `y_label` and `anchor` (the day the day labels count from)."""
    return _bar_chart([values], labels, **{**BAR_DEFAULTS, **options})


@dataclass(frozen=True)
class PairedBarChart(BarChart):
    """Two bars a day side by side (e.g. reviews planned and done), on one scale."""

    @property
    def planned(self) -> list[Bar]:
        return self.groups[0]

    @property
    def done(self) -> list[Bar]:
        return self.groups[1]


def paired_bar_chart(
    planned: list[int], done: list[int], labels: list[str], **options
) -> PairedBarChart:
    """Two bars a day, planned then done; `options` as bar_chart's."""
    chart = _bar_chart([planned, done], labels, **{**BAR_DEFAULTS, **options})
    return PairedBarChart(**chart.__dict__)
