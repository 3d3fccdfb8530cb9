"""Filters of the review pages: a time spent."""

from django import template

register = template.Library()


@register.filter
def duration(seconds) -> str:
    """18 s, 4 min 10 s, 1 h 5 min."""
    seconds = int(seconds or 0)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"
