from django import template

register = template.Library()


@register.filter
def pct(value) -> str:
    """A share 0..1 as a whole percentage; a dash when there is nothing to measure."""
    if value is None or value == "":
        return "—"  # the stats page's dash too
    return f"{round(100 * float(value))}%"


@register.filter
def lookup(mapping, key):
    return mapping.get(key) if mapping else None


@register.simple_tag
def sort_link(current: str, column: str) -> str:
    """The ?sort= value a column header links to: descending first, flipped when already on."""
    if current == f"-{column}":
        return column
    if current == column:
        return f"-{column}"
    return column if column == "username" else f"-{column}"


@register.simple_tag
def aria_sort(current: str, column: str) -> str:
    if current == column:
        return "ascending"
    if current == f"-{column}":
        return "descending"
    return "none"


@register.inclusion_tag("charts/charts.html#heat-cells")
def heat_cells(cells, who: str) -> dict:
    """A heatmap row's cells: each section's share as a percentage, coloured by its heat level."""
    return {
        "cells": [
            {
                "level": level,
                "text": pct(share),
                "title": f"{who}: {pct(share)} of {figure.section.title}",
            }
            for figure, share, level in cells
        ]
    }


@register.inclusion_tag("teams/_member_row.html")
def member_row(m, viewer_id: int, check_count: int) -> dict:
    """One row of the member table."""
    return {"m": m, "you": m.user_id == viewer_id, "check_count": check_count}
