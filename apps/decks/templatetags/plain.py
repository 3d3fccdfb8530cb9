"""`{{ card.front_html|plain }}`: rendered Markdown as one line of plain text, for a link or a
list where markup would not fit (a card's front in "weakest concepts", "Illustrates:", an
announcement). The entities the renderer wrote come back as characters, so "a < b" reads as
such once the template escapes it again."""

import html

from django import template
from django.utils.html import strip_tags

register = template.Library()


@register.filter
def plain(rendered_html: str) -> str:
    return " ".join(html.unescape(strip_tags(rendered_html or "")).split())
