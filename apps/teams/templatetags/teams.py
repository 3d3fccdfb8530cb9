from django import template
from django.utils.html import format_html_join

register = template.Library()


@register.filter
def pct(value) -> str:
    """A share 0..1 as a whole percentage; a dash when there is nothing to measure."""
    if value is None or value == "":
        return "–"
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


@register.simple_tag
def heat_cells(cells, who: str):
    """A heatmap row's cells, built in one call instead of a template loop (the dashboard's
    heatmap is most of its template time): same markup, escaped the same way."""
    return format_html_join(
        "",
        '<td class="heat heat-{}" title="{}: {} of {}">{}</td>',
        (
            (level, who, pct(share), figure.section.title, pct(share))
            for figure, share, level in cells
        ),
    )
