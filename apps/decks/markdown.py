"""The one place card, lesson and quiz text turns from Markdown into HTML.

Markdown is rendered with markdown-it (CommonMark + tables, raw HTML disabled), fenced code is
highlighted by Pygments, and the result is sanitised by nh3 (Ammonia) with an allow-list, so no
script, event handler or javascript: link can survive whatever an author or an import wrote.
"""

import html as html_entities
import re
from functools import lru_cache

import nh3
from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(nowrap=True)

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5",
    "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre", "s", "span", "strong", "sub", "sup",
    "table", "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "span": {"class"},
    "code": {"class"},
    "pre": {"class"},
    "th": {"align"},
    "td": {"align"},
}


def _highlight(code: str, lang: str, _attrs) -> str:
    try:
        lexer = get_lexer_by_name(lang) if lang else TextLexer()
    except ClassNotFound:
        lexer = TextLexer()
    return f'<pre class="highlight"><code>{highlight(code, lexer, _FORMATTER)}</code></pre>'


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable("table")


def render_markdown(text: str) -> str:
    """Sanitised HTML for author-written Markdown; safe to mark_safe in templates."""
    if not text:
        return ""
    html = _parser().render(text)
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


def html_to_text(value: str) -> str:
    """Plain text (with its line breaks) of HTML from elsewhere, e.g. an Anki field: every tag,
    script and comment dropped by nh3, entities decoded. Stored as a card's Markdown source,
    it is rendered and sanitised by render_markdown like any other text."""
    value = re.sub(r"(?i)<br\s*/?>|</(div|p|li)>", "\n", value)
    value = nh3.clean(value, tags=set(), strip_comments=True)
    value = html_entities.unescape(value).replace("\xa0", " ")
    return "\n".join(line.rstrip() for line in value.splitlines()).strip()
