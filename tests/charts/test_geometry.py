"""The chart geometry (apps.charts.geometry) is pure: what every chart on the site relies on,
checked over many inputs with hypothesis."""

import ast
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from apps.charts import bars, geometry
from apps.charts.bars import BAR_TOP, bar_chart, paired_bar_chart, text_width
from apps.charts.geometry import (
    Line,
    Scale,
    heat_level,
    line_chart,
    log_ticks,
    nice_ticks,
    tick_label,
    year_heatmap,
)

numbers = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
points = st.lists(st.tuples(numbers, numbers), max_size=60)


@pytest.mark.parametrize("module", [geometry, bars], ids=["geometry", "bars"])
def test_the_geometry_imports_nothing_from_django(module):
    tree = ast.parse(Path(module.__file__).read_text())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    ours = {name for name in imported if name and name.split(".")[0] in ("django", "apps")}
    assert ours <= {"apps.charts.geometry"}


@given(low=numbers, high=numbers)
@example(low=-6.103515625e-05, high=250000.0)  # CI found it: the first tick 0, a hair above low
@example(low=0.3, high=1.0)  # 0.3 / 0.1 is 2.9999999999999996
def test_ticks_rise_and_enclose_the_range(low, high):
    ticks = nice_ticks(low, high)
    assert ticks == sorted(set(ticks)) and len(ticks) >= 2
    # Each end within a millionth of a step (and of rounding): far below a pixel on any chart.
    slack = 1e-6 * (ticks[1] - ticks[0])
    assert ticks[0] <= low + slack + 1e-9 * max(1, abs(low))
    assert ticks[-1] >= min(high, low + 1) - slack - 1e-9 * max(1, abs(high))
    assert len(ticks) <= 12  # about five steps, never a crowd


@given(low=numbers, high=numbers, a=numbers, b=numbers)
def test_a_scale_keeps_order_and_maps_its_ends(low, high, a, b):
    scale = Scale(min(low, high), max(low, high), 300.0, 16.0)  # a y axis: pixels grow down
    if scale.high > scale.low:
        assab = sorted((a, b))
        assert scale(assab[0]) >= scale(assab[1]) - 1e-6
        assert abs(scale(scale.low) - 300.0) < 1e-6 and abs(scale(scale.high) - 16.0) < 1e-6
    else:
        assert scale(a) == 300.0


@given(st.lists(points, min_size=1, max_size=4))
def test_every_point_and_tick_lands_inside_the_plot(series):
    chart = line_chart([Line(f"s{i}", p, color=i) for i, p in enumerate(series)],
                       title="t", x_label="x", y_label="y")  # fmt: skip
    for tick in chart.x_ticks:
        assert chart.left - 0.05 <= tick.at <= chart.right + 0.05
    for tick in chart.y_ticks:
        assert chart.top - 0.05 <= tick.at <= chart.bottom + 0.05
    xs = [t.at for t in chart.x_ticks]
    ys = [t.at for t in chart.y_ticks]
    assert xs == sorted(xs) and ys == sorted(ys, reverse=True)  # y grows upwards on screen
    assert len(chart.paths) == sum(1 for p in series if p)
    for path in chart.paths:
        for pair in path.points.split():
            x, y = map(float, pair.split(","))
            assert chart.left - 0.05 <= x <= chart.right + 0.05
            assert chart.top - 0.05 <= y <= chart.bottom + 0.05


def test_an_empty_chart_still_has_axes_and_says_it_waits():
    chart = line_chart([Line("a", [])], title="t", x_label="x", y_label="y")
    assert chart.empty and chart.x_ticks and chart.y_ticks


def test_tick_labels_are_short():
    assert [tick_label(v) for v in (0, 0.25, 12.5, 40_000, 0.005)] == [
        "0", "0.25", "12.5", "40k", "5e-03"
    ]  # fmt: skip


@given(value=st.floats(min_value=0, max_value=1e6), top=st.floats(min_value=1e-3, max_value=1e6))
def test_heat_levels_are_quarters_of_the_top(value, top):
    level = heat_level(value, top)
    assert 0 <= level <= 4
    assert (level == 0) == (value == 0)
    if 0 < value < top:
        assert level == min(4, 1 + int(4 * value / top))
    assert heat_level(value * 2, top) >= level  # more is never lighter


def test_a_quiet_calendar_steps_one_level_per_review():
    today = date(2026, 12, 1)
    counts = {today - timedelta(days=n): n for n in range(1, 5)}
    cells = {c.day: c.level for c in year_heatmap(counts, today).cells}
    assert [cells[today - timedelta(days=n)] for n in range(1, 5)] == [1, 2, 3, 4]
    assert cells[today] == 0


@given(st.dictionaries(st.integers(0, 400), st.integers(0, 500), max_size=60))
def test_the_calendar_is_53_weeks_with_every_day_inside(offsets):
    today = date(2026, 12, 1)
    heatmap = year_heatmap({today - timedelta(days=k): v for k, v in offsets.items()}, today)
    assert heatmap.cells[-1].day == today and heatmap.cells[0].day.weekday() == 0
    for cell in heatmap.cells:
        assert cell.x >= 0 and cell.x + heatmap.cell <= heatmap.width
        assert cell.y >= 0 and cell.y + heatmap.cell <= heatmap.height
    xs = [x for x, _ in heatmap.months]
    assert all(b - a >= 3 * 13 for a, b in zip(xs, xs[1:], strict=False))  # labels never overlap


def assert_readable(chart, width: int):
    """Text that never overlaps, ticks that are whole numbers, a chart no wider than asked
    (a day is at least a few px)."""
    assert chart.width <= max(width, chart.left + 4 + len(chart.bars) * 4)
    assert all(float(t.label).is_integer() for t in chart.y_ticks if "k" not in t.label)
    assert chart.top >= max(b.value for g in chart.groups for b in g)
    for texts in (chart.values, chart.x_ticks):
        spans = sorted((t.x - text_width(t.text) / 2, t.x + text_width(t.text) / 2) for t in texts)
        assert all(a[1] <= b[0] + 2 for a, b in zip(spans, spans[1:], strict=False)), spans
    assert chart.x_ticks and chart.x_ticks[0].text == chart.bars[0].label


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=40), st.sampled_from([340, 640]))
def test_bars_stand_on_the_baseline_and_fit_under_the_top(values, width):
    labels = ["today"] + [f"{i} Dec" for i in range(1, len(values))]
    chart = bar_chart(values, labels, width=width)
    assert chart.top >= max(max(values), 1) and chart.y_ticks[-1].label == tick_label(chart.top)
    for bar, value in zip(chart.bars, values, strict=True):
        assert bar.y + bar.height == chart.baseline and bar.y >= BAR_TOP
        assert bar.x + bar.width <= chart.width and bar.value == value
    heights = [b.height for b in chart.bars]
    assert [h for _, h in sorted(zip(values, heights, strict=True))] == sorted(heights)
    assert_readable(chart, width)
    tallest = max(values)
    assert not tallest or str(tallest) in [v.text for v in chart.values]  # labelled first


@given(st.lists(st.tuples(st.integers(0, 500), st.integers(0, 500)), min_size=1, max_size=60))
def test_paired_bars_share_one_scale_side_by_side(pairs):
    planned, done = [p for p, _ in pairs], [d for _, d in pairs]
    labels = [f"{i} Nov" for i in range(len(pairs))]
    chart = paired_bar_chart(planned, done, labels, width=340, anchor=min(7, len(pairs) - 1))
    assert chart.top >= max(*planned, *done, 1)
    for p, d in zip(chart.planned, chart.done, strict=True):
        assert d.x == p.x + p.width and d.x + d.width <= chart.width
        assert p.y + p.height == d.y + d.height == chart.baseline
    assert labels[min(7, len(pairs) - 1)] in [t.text for t in chart.x_ticks]  # today's label


@given(st.integers(0, 10_000), st.integers(1, 10_000))
def test_ticks_of_counts_are_whole_numbers(low, span):
    ticks = nice_ticks(low, low + span, 3, integer=True)
    assert all(float(t).is_integer() for t in ticks) and ticks[0] <= low <= low + span <= ticks[-1]


def test_a_line_of_counts_gets_whole_ticks_and_its_last_value_labelled():
    chart = line_chart([Line("idle", [(1, 81.0), (2, 55.5), (3, 31.0)])], title="t",
                       x_label="rollout actors", y_label="idle (%)")  # fmt: skip
    assert [t.label for t in chart.x_ticks] == ["1", "2", "3"]  # no 1.5 actors
    assert chart.paths[0].last[2] == "31"
    assert chart.x_label and chart.y_label


@given(low=st.floats(1e-6, 1e6), span=st.floats(1, 1e6))
def test_log_ticks_rise_and_enclose_the_range(low, span):
    high = low * span
    ticks = log_ticks(low, high)
    assert ticks == sorted(set(ticks)) and len(ticks) >= 2
    assert ticks[0] <= low * (1 + 1e-9) and ticks[-1] >= high * (1 - 1e-9)
    assert len(ticks) <= 14


def test_a_log_chart_leaves_out_what_it_cannot_place_and_says_log_scale():
    chart = line_chart([Line("a", [(1, 0), (2, 3), (3, 30)])], title="t", x_label="x",
                       y_label="y", y_log=True)  # fmt: skip
    assert chart.y_label == "y, log scale" and len(chart.paths[0].points.split()) == 2
    plain = line_chart([Line("a", [(1, 0), (2, 3)])], title="t", x_label="x", y_label="y")
    assert plain.y_label == "y" and not plain.bands and not plain.rules and not plain.brackets
