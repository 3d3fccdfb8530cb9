from django import template
from django.contrib.humanize.templatetags.humanize import naturaltime
from django.template.defaultfilters import date as date_filter
from django.template.defaultfilters import pluralize
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.timezone import localtime

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


@register.simple_tag
def heat_cells(cells, who: str):
    """A heatmap row's cells (level from apps.charts.geometry.heat_level), built in one call
    with Django's format_html_join rather than a template loop or partial: the dashboard draws
    a row per member, and bench/README-charts.md shows what a template would cost."""
    return format_html_join(
        "",
        '<td class="heat heat-{}" title="{}: {} of {}">{}</td>',
        (
            (int(level), who, pct(share), figure.section.title, pct(share))
            for figure, share, level in cells
        ),
    )


MEMBER_ROW = """<tr>
        <th scope="row">{}{}{}</th>
        <td>{}</td>
        <td>{}</td>
        <td>{}</td>
        <td>{}</td>
        <td>{}</td>
        <td>{}</td>
        <td>{}</td>
        <td>{} day{}</td>
        <td title="{} of {} checks taken">{}</td>
        <td title="of {} code exercises">{}</td>
        <td>{}</td>
        <td>{}</td>
      </tr>"""

OWNER_BADGE = mark_safe(' <span class="badge">owner</span>')
YOU_BADGE = mark_safe(' <span class="badge you">you</span>')


@register.simple_tag
def member_row(m, viewer_id: int, check_count: int, exercise_count: int = 0):
    """One row of the member table, built in one call with format_html for the same reason as
    heat_cells: the markup the template loop gave, escaped by Django."""
    when: str
    if m.last_active:
        when = format_html(
            '<time datetime="{}">{}</time>',
            date_filter(localtime(m.last_active), "c"),
            naturaltime(m.last_active),
        )
    else:
        when = "never"
    return format_html(
        MEMBER_ROW,
        m.username,
        OWNER_BADGE if m.role == "owner" else "",
        YOU_BADGE if m.user_id == viewer_id else "",
        pct(m.readiness),
        pct(m.mastery_overall),
        m.cards_learned,
        m.due_backlog,
        m.reviews_7d,
        m.reviews_30d,
        pct(m.retention),
        m.streak_days,
        pluralize(m.streak_days),
        len(m.knowledge_checks),
        check_count,
        pct(m.knowledge),
        exercise_count,
        m.exercises_passed,
        m.own_cards,
        when,
    )
