"""Chart geometry: numbers in, shapes out, in SVG user units. Pure (no Django): the partials in
templates/charts/ draw the shapes, with Django's autoescaping, and the stylesheets colour them by
class (--heat-0 .. --heat-4, .series-0 .. .series-5), so dark mode and the CSP hold.

Built here: the scales and ticks every chart uses, a line chart of measured points (the demos),
a calendar heatmap (reviews per day) and the heat level of a heatmap cell (the calendar's and the
team dashboard's). Bars and paired bars (reviews due, planned and done) are in bars.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

HEAT_LEVELS = 4  # the darkest level; 0 is "nothing"


def heat_level(value: float | None, top: float = 1.0) -> int:
    """How dark a heatmap cell is, 0..4: 0 for nothing, then one step per quarter of `top`:
    1 under a quarter, 2 under a half, 3 under three quarters, 4 from three quarters up."""
    if not value or value <= 0 or top <= 0:
        return 0
    return min(HEAT_LEVELS, 1 + int(HEAT_LEVELS * value / top))


# Scales and ticks -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scale:
    """The linear map from data [low, high] onto the pixels [start, end] (end < start for a y
    axis, whose pixels grow downwards). An empty domain maps everything to `start`."""

    low: float
    high: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        span = self.high - self.low
        return self.start + ((value - self.low) / span if span else 0.0) * (self.end - self.start)


def nice_ticks(low: float, high: float, count: int = 5, *, integer: bool = False) -> list[float]:
    """About `count` round steps (1, 2, 2.5 or 5 times a power of ten) from at or below `low`
    to at or above `high`, each end within a millionth of a step (float noise, far below a
    pixel: 0.3 / 0.1 is 2.9999999999999996, and 0.3 still gets a tick of its own): the axis
    spans the first tick to the last. A range narrower than a billionth of its values (or empty)
    is drawn as if it were wider, so steps stay resolvable. With `integer` (an axis of counts)
    every tick is a whole number: the step is at least 1 and never 2.5."""
    resolution = 1e-9 * max(1.0, abs(low), abs(high))
    if not high - low >= resolution:
        high = low + max(1.0, count * resolution)
    raw = (high - low) / count
    if integer:
        raw = max(raw, 1.0)
    magnitude = 10 ** math.floor(math.log10(raw))
    steps = (1, 2, 5, 10) if integer and magnitude < 10 else (1, 2, 2.5, 5, 10)
    step = next(m * magnitude for m in steps if m * magnitude >= raw)
    digits = max(10, 3 - math.floor(math.log10(step)))  # enough for the step, none of the noise
    first = math.floor(low / step + 1e-6) * step
    ticks = [round(first, digits)]
    while ticks[-1] < high - step * 1e-6:
        ticks.append(round(first + len(ticks) * step, digits))
    return ticks


def log_ticks(low: float, high: float) -> list[float]:
    """Ticks for a logarithmic axis from at or below `low` to at or above `high` (both > 0):
    1, 2 and 5 times each power of ten over a narrow range, the powers alone over a wide one."""
    first, last = math.floor(math.log10(low) + 1e-9), math.ceil(math.log10(high) - 1e-9)
    last = max(last, first + 1)
    steps = (1, 2, 5) if last - first <= 2 else (1,)
    ticks = [m * 10.0**e for e in range(first, last + 1) for m in steps]
    below = [t for t in ticks if t <= low * (1 + 1e-9)]
    above = [t for t in ticks if t >= high * (1 - 1e-9)]
    start, end = ticks.index(below[-1]), ticks.index(above[0])
    end = max(end, start + 1)
    return [float(f"{t:.12g}") for t in ticks[start : end + 1]]


def tick_label(value: float) -> str:
    """A tick's number, short: 0, 0.25, 12.5, 40k, 5e-03."""
    if value == 0:
        return "0"
    if abs(value) >= 10_000:
        return f"{value / 1000:g}k"
    return f"{value:g}" if abs(value) >= 0.01 else f"{value:.0e}"


def is_whole(values) -> bool:
    """Every value a whole number (an axis of counts: its ticks are whole numbers too)."""
    return all(float(v).is_integer() for v in values)


def is_number(value) -> bool:
    """A value a chart can place: a finite int or float (a stored NaN comes back as null)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# Line charts ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One series to draw: its (x, y) points in the order measured (a redone step shows as a
    step back), its colour (series-0 .. series-5) and whether it is dashed. Optionally a title
    per point (its tooltip), hollow dots, or dots alone (joined=False)."""

    label: str
    points: Sequence[tuple[float, float]]
    color: int = 0
    dashed: bool = False
    titles: Sequence[str] = ()
    hollow: bool = False
    joined: bool = True


@dataclass(frozen=True)
class Band:
    """The spread of a series: its lowest and highest value at each x, shaded between."""

    label: str
    lows: Sequence[tuple[float, float]]
    highs: Sequence[tuple[float, float]]
    color: int = 0


@dataclass(frozen=True)
class Rule:
    """A horizontal line at a value (a threshold, a median), from x_from to x_to (the plot's
    width when None), in a series' colour or the axes' (color None)."""

    label: str
    y: float
    color: int | None = None
    x_from: float | None = None
    x_to: float | None = None


@dataclass(frozen=True)
class Bracket:
    """A vertical bracket at x between two values, with a short text beside it: the
    comparison a claim makes between two lines."""

    label: str
    x: float
    y1: float
    y2: float
    text: str


@dataclass(frozen=True)
class Tick:
    at: float  # pixel position along its axis
    label: str


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    title: str = ""


@dataclass(frozen=True)
class Path:
    label: str
    css: str  # "series series-N"
    dashed: bool
    points: str  # SVG polyline points, "x,y x,y ..."
    markers: list[tuple[float, float]]  # a dot per point when there are few
    dots: list[Dot] = field(default_factory=list)  # the markers, each with its title
    joined: bool = True
    hollow: bool = False
    last: tuple[float, float, str, str] | None = None  # x, y, text, anchor of the last value


@dataclass(frozen=True)
class Shape:
    """A band, rule or bracket placed in pixels: an SVG polygon's or polyline's points."""

    label: str
    css: str
    points: str
    text: str = ""
    text_x: float = 0.0
    text_y: float = 0.0


@dataclass(frozen=True)
class LineChart:
    title: str
    width: int
    height: int
    left: int  # the plot's edges, in pixels
    right: int
    top: int
    bottom: int
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    x_label: str
    y_label: str
    paths: list[Path]
    bands: list[Shape] = field(default_factory=list)
    rules: list[Shape] = field(default_factory=list)
    brackets: list[Shape] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.paths

    @property
    def middle(self) -> tuple[float, float]:
        return (self.left + self.right) / 2, (self.top + self.bottom) / 2


MARKERS_UP_TO = 40  # points a line may have and still get a dot on each
BRACKET_ROOM = 56  # pixels right of the plot for a bracket's text (phones draw it large)
LABEL_GAP = 14  # px between two last-value labels, so they never overlap


def line_chart(
    lines: Sequence[Line],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = 640,
    height: int = 340,
    margins: tuple[int, int, int, int] = (64, 16, 16, 52),  # left, right, top, bottom
    bands: Sequence[Band] = (),
    rules: Sequence[Rule] = (),
    brackets: Sequence[Bracket] = (),
    y_log: bool = False,
) -> LineChart:
    """Lines on shared axes whose ticks enclose every point (and every band, rule and bracket);
    the y axis always shows 0, unless it is logarithmic (y_log: values at or below 0 are left
    out, as such an axis has no place for them)."""
    if y_log:
        lines = [_positive(line) for line in lines]
        bands = [b for b in bands if all(y > 0 for _, y in (*b.lows, *b.highs))]
        rules = [r for r in rules if r.y > 0]
        brackets = [b for b in brackets if b.y1 > 0 and b.y2 > 0]
    xs = [x for line in lines for x, _ in line.points]
    ys = [y for line in lines for _, y in line.points]
    whole_x, whole_y = is_whole(xs), is_whole(ys)  # the lines' own values: counts or not
    xs += [x for band in bands for x, _ in band.lows] + [b.x for b in brackets]
    ys += [y for band in bands for _, y in (*band.lows, *band.highs)]
    ys += [r.y for r in rules] + [y for b in brackets for y in (b.y1, b.y2)]
    x_values = nice_ticks(min(xs, default=0), max(xs, default=1), integer=whole_x)
    if y_log:
        y_values = log_ticks(min(ys, default=1), max(ys, default=10))
    else:
        y_values = nice_ticks(min(0.0, min(ys, default=0)), max(ys, default=1),
                              integer=whole_y and is_whole(ys))  # fmt: skip
    left, right = margins[0], width - margins[1] - (BRACKET_ROOM if brackets else 0)
    top, bottom = margins[2], height - margins[3]
    sx = Scale(x_values[0], x_values[-1], left, right)
    ty = math.log10 if y_log else float
    sy_linear = Scale(ty(y_values[0]), ty(y_values[-1]), bottom, top)

    def sy(y: float) -> float:
        return sy_linear(ty(y))

    def placed(pairs) -> list[tuple[float, float]]:
        return [(round(sx(x), 1), round(sy(y), 1)) for x, y in pairs]

    def svg(pairs) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in pairs)

    paths = []
    labelled: list[float] = []  # the y of each last-value label placed, so none overlap
    for line in lines:
        if not line.points:
            continue
        spots = placed(line.points)
        few = len(spots) <= MARKERS_UP_TO or not line.joined
        titles = list(line.titles) + [""] * (len(spots) - len(line.titles))
        x, y = spots[-1]
        last = None
        if (
            line.joined
            and not line.hollow
            and all(abs(y - other) >= LABEL_GAP for other in labelled)
        ):
            labelled.append(y)
            # right of the point when it is not at the right edge, else left of it
            anchor = "start" if x < right - 40 else "end"
            last = (x + (6 if anchor == "start" else -6), y - 6, tick_label(line.points[-1][1]),
                    anchor)  # fmt: skip
        paths.append(
            Path(
                label=line.label,
                css=f"series series-{line.color % 6}",
                dashed=line.dashed,
                points=svg(spots),
                markers=spots if few else [],
                dots=[Dot(x, y, t) for (x, y), t in zip(spots, titles, strict=True)] if few else [],
                joined=line.joined,
                hollow=line.hollow,
                last=last,
            )
        )
    shaded = []
    for band in bands:
        if not band.lows:
            continue
        lows, highs = placed(band.lows), placed(list(reversed(band.highs)))
        if len(lows) == 1:  # one x: a narrow bar from the lowest trial to the highest
            (x, low), (_, high) = lows[0], highs[0]
            lows, highs = [(x - 4, low), (x + 4, low)], [(x + 4, high), (x - 4, high)]
        shaded.append(Shape(band.label, f"band series-{band.color % 6}", svg(lows + highs)))
    ruled = []
    for rule in rules:
        x_from = left if rule.x_from is None else round(sx(rule.x_from), 1)
        x_to = right if rule.x_to is None else round(sx(rule.x_to), 1)
        y = round(sy(rule.y), 1)
        css = "rule" if rule.color is None else f"rule series series-{rule.color % 6}"
        ruled.append(Shape(rule.label, css, svg([(x_from, y), (x_to, y)])))
    bracketed = []
    for b in brackets:
        x, y1, y2 = round(sx(b.x), 1), round(sy(b.y1), 1), round(sy(b.y2), 1)
        corners = [(x - 5, y1), (x, y1), (x, y2), (x - 5, y2)]
        bracketed.append(Shape(b.label, "bracket", svg(corners), b.text, x + 4, (y1 + y2) / 2 + 4))
    return LineChart(
        title=title, width=width, height=height, left=left, right=right, top=top, bottom=bottom,
        x_ticks=[Tick(round(sx(t), 1), tick_label(t)) for t in x_values],
        y_ticks=[Tick(round(sy(t), 1), tick_label(t)) for t in y_values],
        x_label=x_label, y_label=f"{y_label}{', log scale' if y_log else ''}", paths=paths,
        bands=shaded, rules=ruled, brackets=bracketed,
    )  # fmt: skip


def _positive(line: Line) -> Line:
    """The line's points with a value above 0 (and their titles), for a logarithmic axis."""
    titles = list(line.titles) + [""] * (len(line.points) - len(line.titles))
    kept = [(p, t) for p, t in zip(line.points, titles, strict=True) if p[1] > 0]
    return Line(line.label, [p for p, _ in kept], line.color, line.dashed,
                [t for _, t in kept], line.hollow, line.joined)  # fmt: skip


# Calendar heatmap -------------------------------------------------------------------------------

CELL = 11  # a calendar day's square, px
GAP = 2


@dataclass(frozen=True)
class HeatCell:
    x: int
    y: int
    day: date
    count: int
    level: int  # 0..4, drawn as --heat-0 .. --heat-4


@dataclass(frozen=True)
class Heatmap:
    cells: list[HeatCell]
    months: list[tuple[int, str]]  # (x, "Jan") labels
    width: int
    height: int
    cell: int = CELL


def year_heatmap(per_day: dict[date, int], today: date, weeks: int = 53) -> Heatmap:
    """`weeks` week columns ending with this week (53: a year; 25 fit a phone), Monday on top,
    like a contributions calendar. A quiet year (at most 4 on the busiest day) steps one level
    per count: the top is at least 5."""
    last_monday = today - timedelta(days=today.weekday())
    first = last_monday - timedelta(weeks=weeks - 1)
    top = max(max(per_day.values(), default=0), 5)
    cells: list[HeatCell] = []
    months: list[tuple[int, str]] = []
    seen_month = None
    step = CELL + GAP
    day = first
    while day <= today:
        week = (day - first).days // 7
        x, y = 28 + week * step, 16 + day.weekday() * step
        count = per_day.get(day, 0)
        cells.append(HeatCell(x, y, day, count, heat_level(count, top)))
        if day.weekday() == 0 and day.month != seen_month:
            seen_month = day.month
            roomy = not months or x - months[-1][0] >= 3 * step
            if roomy and week < weeks - 1:  # labels never overlap or hang off the last column
                months.append((x, day.strftime("%b")))
        day += timedelta(days=1)
    return Heatmap(cells, months, width=28 + weeks * step, height=16 + 7 * step)
