"""Time what drawing with Django templates costs, side by side in the same run: the team
dashboard's heatmap and member rows as they are drawn (teams' simple tags, format_html) and as
templates would draw them (inclusion tags over the same markup, kept here), and a demo's line
chart (apps.charts geometry + charts/charts.html#line).

    .venv/bin/python bench/charts_render.py                 # 200 members x 10 sections
    .venv/bin/python bench/charts_render.py --members 25 --repeat 15

Timed, each the median (and best) of --repeat renders after one warm-up, no database: the
dashboard's `heat_cells` and `member_row` for --members members over --sections sections, both
ways, and a demo run's line chart of 4 series x 60 points. The two ways' markup is compared
first (whitespace aside), so the figures compare the same output.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def configure() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SECRET_KEY", "bench-" + "x" * 60)
    os.environ.setdefault("ALLOWED_HOSTS", "localhost")
    import django

    django.setup()


HEAT_CELLS = (
    '{% for cell in cells %}<td class="heat heat-{{ cell.level }}" title="{{ cell.title }}">'
    "{{ cell.text }}</td>{% endfor %}"
)
MEMBER_ROW = """{% load humanize teams %}<tr>
        <th scope="row">{{ m.username }}{% if m.role == "owner" %} <span class="badge">owner</span>{% endif %}{% if you %} <span class="badge you">you</span>{% endif %}</th>
        <td>{{ m.readiness|pct }}</td>
        <td>{{ m.mastery_overall|pct }}</td>
        <td>{{ m.cards_learned }}</td>
        <td>{{ m.due_backlog }}</td>
        <td>{{ m.reviews_7d }}</td>
        <td>{{ m.reviews_30d }}</td>
        <td>{{ m.retention|pct }}</td>
        <td>{{ m.streak_days }} day{{ m.streak_days|pluralize }}</td>
        <td title="{{ m.knowledge_checks|length }} of {{ check_count }} checks taken">{{ m.knowledge|pct }}</td>
        <td>{% if m.last_active %}<time datetime="{{ m.last_active|date:'c' }}">{{ m.last_active|naturaltime }}</time>{% else %}never{% endif %}</td>
      </tr>"""  # noqa: E501


def template_tags(engine):
    """The same two tags drawn by templates (inclusion tags), the way the charts are."""
    from django import template

    from apps.teams.templatetags.teams import pct

    register = template.Library()

    @register.inclusion_tag(engine.from_string(HEAT_CELLS))
    def heat_cells(cells, who: str) -> dict:
        return {
            "cells": [
                {"level": level, "text": pct(share), "title": f"{who}: {pct(share)} of "
                 f"{figure.section.title}"}
                for figure, share, level in cells
            ]
        }  # fmt: skip

    @register.inclusion_tag(engine.from_string(MEMBER_ROW))
    def member_row(m, viewer_id: int, check_count: int) -> dict:
        return {"m": m, "you": m.user_id == viewer_id, "check_count": check_count}

    return register


def members(count: int, sections: int) -> list:
    from django.utils import timezone

    from apps.charts.geometry import heat_level

    figures = [
        SimpleNamespace(section=SimpleNamespace(title=f"Section <{i}>")) for i in range(sections)
    ]
    now = timezone.now()
    return [
        SimpleNamespace(
            username=f"member{i}",
            role="owner" if i == 0 else "member",
            user_id=i,
            readiness=0.4,
            mastery_overall=0.5,
            cards_learned=40,
            due_backlog=3,
            reviews_7d=20,
            reviews_30d=80,
            retention=0.9,
            streak_days=i % 3,
            knowledge_checks=[1, 2],
            knowledge=0.7,
            last_active=now if i % 5 else None,
            cells=[
                (f, (i + k) % 11 / 10, heat_level((i + k) % 11 / 10)) for k, f in enumerate(figures)
            ],
        )  # fmt: skip
        for i in range(count)
    ]


def timed(render, repeat: int) -> tuple[float, float]:
    render()
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        render()
        runs.append(time.perf_counter() - started)
    return 1000 * statistics.median(runs), 1000 * min(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--sections", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    configure()
    from django.template import engines

    from apps.charts.geometry import Line, line_chart

    engine = engines["django"]
    engine.engine.template_libraries["template_tags"] = template_tags(engine.engine)
    rows = (
        "{% for m in members %}{% heat_cells m.cells m.username %}{% member_row m 1 9 %}"
        "{% endfor %}"
    )
    now = engine.from_string("{% load teams %}" + rows)
    templates = engine.from_string("{% load template_tags %}" + rows)
    context = {"members": members(args.members, args.sections)}

    def same(markup: str) -> str:
        return re.sub(r">\s+<", "><", markup).strip()

    assert same(now.render(context)) == same(templates.render(context)), "the two tags differ"
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"dashboard rows, {args.members} members x {args.sections} sections (median, best ms):")
    for label, template in (
        ("format_html (the tags)", now),
        ("templates (inclusion tags)", templates),
    ):
        median, best = timed(lambda t=template: t.render(context), args.repeat)
        print(f"  {label:26} {median:7.1f} {best:7.1f}")

    lines = [Line(f"series {s}", [(x, (s + 1) * 0.3 + x / 200) for x in range(60)], color=s)
             for s in range(4)]  # fmt: skip
    chart = engine.from_string(
        '<svg viewBox="0 0 640 340">{% include "charts/charts.html#line" %}</svg>'
    )

    def draw():
        return chart.render({"chart": line_chart(lines, title="t", x_label="x", y_label="y")})

    median, best = timed(draw, args.repeat)
    print(
        f"demo line chart, 4 series x 60 points, geometry + partial: {median:.1f} ({best:.1f}) ms"
    )


if __name__ == "__main__":
    main()
