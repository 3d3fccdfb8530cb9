"""Filters of the card browser: a grade's name, a search's matches marked."""

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

# What the review buttons call each SM-2 grade (0 and 2 are the exact-grade keys' fails).
GRADE_BUTTONS = {0: "Again", 1: "Again", 2: "Again", 3: "Hard", 4: "Good", 5: "Easy"}


@register.filter
def grade_name(grade) -> str:
    """A review's grade as the button that gives it: "Good (4)"."""
    return f"{GRADE_BUTTONS.get(grade, '?')} ({grade})"


def search_words(query: str) -> list[str]:
    """The words a search looks for (its "-excluded" words and `or` aside), quotes dropped."""
    words = [w.strip('"') for w in re.findall(r'"[^"]+"|\S+', query or "")]
    return [w for w in words if w and not w.startswith("-") and w.lower() != "or"]


@register.filter
def highlight(text: str, query: str) -> SafeString:
    """`text` escaped, with each word of the search `query` marked (<mark>), case-insensitive;
    a word also marks its longer forms ("actor" in "actors"), as the stemmed search finds them."""
    words = sorted(search_words(query), key=len, reverse=True)
    text = escape(text or "")
    if not words:
        return mark_safe(text)  # noqa: S308 (escaped above)
    # An entity the escaping wrote (&amp;) is matched first and kept whole, never marked inside.
    words_re = "|".join(re.escape(escape(w)) for w in words)
    pattern = re.compile(f"(&#?\\w+;)|({words_re})", re.IGNORECASE)
    marked = pattern.sub(lambda m: m.group(1) or f"<mark>{m.group(2)}</mark>", text)
    return mark_safe(marked)  # noqa: S308 (escaped above)


@register.filter
def match_snippet(text: str, query: str, width: int = 140) -> str:
    """About `width` characters of `text` around the first word of `query` found in it, marked;
    "" when none is (e.g. the back of a card found by its front)."""
    text = " ".join((text or "").split())
    lowered = text.lower()
    found = [i for w in search_words(query) if (i := lowered.find(w.lower())) >= 0]
    if not found:
        return ""
    start = max(0, min(found) - width // 3)
    piece = text[start : start + width]
    return highlight(("…" if start else "") + piece + ("…" if start + width < len(text) else ""),
                     query)  # fmt: skip
