"""The one place card, lesson and quiz text turns from Markdown into HTML.

Markdown is rendered with markdown-it (CommonMark + tables, raw HTML disabled), fenced code is
highlighted by Pygments, and the result is sanitised by nh3 (Ammonia) with an allow-list, so no
script, event handler or javascript: link can survive whatever an author or an import wrote.
Only an absolute web or mail address becomes a link (or an image): text that merely looks like
one, as the math `S[π_θ](s_t)` does, stays text. A deck's own image is written
`![alt](<media:NAME>)`: rendered with the deck's media (`media`, name -> URL) it becomes an <img>
of that URL; a name the deck has no image for becomes a visible "image missing" placeholder.
"""

import html as html_entities
import re
from functools import lru_cache
from html import escape as html_escape
from urllib.parse import unquote

import nh3
from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

from apps.decks.cloze import INDEX_DIGITS_MAX, Cloze, cloze_replace, clozes

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


def _highlight_part(code: str, lexer) -> str:
    html = highlight(code, lexer, _FORMATTER)
    # The formatter ends its last line with a newline the code may not have had.
    return html if code.endswith("\n") else html.removesuffix("\n")


def _highlight(code: str, lang: str, _attrs) -> str:
    options = {"stripnl": False, "ensurenl": False}
    try:
        lexer = get_lexer_by_name(lang, **options) if lang else TextLexer(**options)
    except ClassNotFound:
        lexer = TextLexer(**options)
    # A cloze's marks stay between Pygments' spans, never inside one, so the highlight they
    # become later nests properly (a mark lexed as code would be split across error tokens).
    body = "".join(
        part if _MARK_RUN.fullmatch(part) else _highlight_part(part, lexer)
        for part in _MARK_RUN.split(code)
        if part
    )
    return f'<pre class="highlight"><code>{body}</code></pre>'


LINK_SCHEMES = ("http://", "https://", "mailto:")
MEDIA_REF = "media:"  # `![alt](<media:NAME>)`: the deck's image called NAME


def _is_real_url(url: str) -> bool:
    """What markdown-it may turn into a link or an image: an absolute http(s) or mailto address,
    or a deck's image (media:NAME). `[π_θ](s_t)` in a formula, a relative path or a bare word
    is left as the text it was."""
    return url.strip().lower().startswith((*LINK_SCHEMES, MEDIA_REF))


def _image(renderer, tokens, idx, options, env) -> str:
    """An image: a deck's own (media:NAME) points at its URL in env["media"], or is a visible
    placeholder when the deck has no image of that name; any other image as markdown-it has it."""
    token = tokens[idx]
    src = token.attrGet("src") or ""
    if src.startswith(MEDIA_REF):
        name = unquote(src[len(MEDIA_REF) :])
        url = (env.get("media") or {}).get(name)
        if url is None:
            return f'<span class="media-missing">[image missing: {html_escape(name)}]</span>'
        token.attrSet("src", url)
    return renderer.image(tokens, idx, options, env)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable("table")
    # markdown-it-py documents replacing this method on an instance as the way to vet links.
    parser.validateLink = _is_real_url  # type: ignore[method-assign]
    parser.add_render_rule("image", _image)
    return parser


def render_markdown(text: str, *, media: dict[str, str] | None = None) -> str:
    """Sanitised HTML for author-written Markdown; safe to mark_safe in templates. `media` maps
    the names of the deck's images to the URLs they are served at."""
    if not text:
        return ""
    html = _parser().render(text, {"media": media or {}})
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


# Cloze deletions ---------------------------------------------------------------------------
# Anki's markup: {{c1::answer}} or {{c1::answer::hint}} (apps.decks.cloze finds them). Each
# distinct index is its own card; its prompt hides that index's deletions and shows the others
# as plain text.

# Private-use characters mark a deletion through Markdown and the sanitiser; author text never
# keeps them (they are taken out first), so no author can forge a highlight. The blank's brackets
# are marks too: "[...]" written out would be a link's text before "(...)", and a backslash
# escape of it shows as "\\[...\\]" inside a code span, where Markdown escapes nothing.
_OPEN, _CLOSE, _BLANK, _LEFT, _RIGHT = "\ue000", "\ue001", "\ue002", "\ue003", "\ue004"
_MARKS = str.maketrans("", "", _OPEN + _CLOSE + _BLANK + _LEFT + _RIGHT)
_MARK_RUN = re.compile(f"([{_OPEN}{_CLOSE}{_BLANK}{_LEFT}{_RIGHT}]+)")


class ClozeError(ValueError):
    """Cloze markup that cannot be scheduled; the message says what to fix."""


def cloze_indices(text: str) -> list[int]:
    """The distinct deletion indices of a cloze text, in order; ClozeError when the markup is
    malformed (unbalanced braces, no deletion, an index below 1, a deletion inside another)."""
    opened, closed = text.count("{{"), text.count("}}")
    if opened != closed:
        raise ClozeError(
            f"unbalanced cloze braces: {opened} '{{{{' against {closed} '}}}}'"
            " (write a deletion as {{c1::answer}})"
        )
    indices: list[int] = []
    for cloze in clozes(text):
        if len(cloze.index_text) > INDEX_DIGITS_MAX:
            raise ClozeError(f"cloze index c{cloze.index_text[:12]}... is too large (c1, c2, ...)")
        index = cloze.index
        if index < 1:
            raise ClozeError(f"cloze index c{cloze.index_text} must start at 1 (c1, c2, ...)")
        if "{{" in cloze.answer or "{{" in (cloze.hint or ""):
            raise ClozeError("a cloze deletion inside another is not supported")
        if not cloze.answer.strip():
            raise ClozeError(f"cloze deletion c{index} is empty")
        if "\n\n" in text[cloze.start : cloze.end]:
            raise ClozeError(f"cloze deletion c{index} spans paragraphs; keep it in one")
        indices.append(index)
    leftover = cloze_replace(text, lambda cloze: "")
    if "{{" in leftover or "}}" in leftover:
        at = leftover.find("{{")
        shown = leftover[at : at + 32] if at >= 0 else "}}"
        raise ClozeError(f"{shown!r} is not a cloze deletion (write it as {{{{c1::answer}}}})")
    if not indices:
        raise ClozeError("a cloze card needs at least one deletion, e.g. {{c1::answer}}")
    return sorted(set(indices))


def _cloze_markdown(text: str, index: int, *, reveal: bool) -> str:
    def replace(cloze: Cloze) -> str:
        if cloze.index != index:
            return cloze.answer
        if reveal:
            return f"{_OPEN}{cloze.answer}{_CLOSE}"
        hint = (cloze.hint or "").strip() or "..."
        return f"{_OPEN}{_BLANK}{_LEFT}{hint}{_RIGHT}{_CLOSE}"

    return cloze_replace(text.translate(_MARKS), replace)


def render_cloze(text: str, index: int, *, reveal: bool, media: dict | None = None) -> str:
    """Sanitised HTML of a cloze text for the card of deletion `index`: its deletions blanked
    as [...] (or [hint]) when not `reveal`, highlighted when `reveal`; others shown as text."""
    html = render_markdown(_cloze_markdown(text, index, reveal=reveal), media=media)
    html = html.replace(_OPEN + _BLANK, '<span class="cloze cloze-blank">')
    html = html.replace(_LEFT, "[").replace(_RIGHT, "]")
    return html.replace(_OPEN, '<span class="cloze">').replace(_CLOSE, "</span>")


def cloze_text(text: str) -> str:
    """The cloze text with every deletion shown as its answer (for search, lint and exports)."""
    return cloze_replace(text, lambda cloze: cloze.answer)


def card_faces(
    kind: str, ordinal: int, front: str, back: str, *, media: dict | None = None
) -> tuple[str, str]:
    """A scheduled card's prompt and answer as sanitised HTML: the one place that knows how a
    basic, reversed or cloze card is shown.

    basic: front / back. reverse: ordinal 1 is front -> back, ordinal 2 back -> front.
    cloze: `front` holds the deletions; the prompt blanks deletion `ordinal`, the answer shows
    the whole text with it highlighted, followed by `back` (optional extra text)."""
    if kind == "cloze":
        answer = render_cloze(front, ordinal, reveal=True, media=media)
        answer += render_markdown(back, media=media)
        return render_cloze(front, ordinal, reveal=False, media=media), answer
    if kind == "reverse" and ordinal == 2:
        return render_markdown(back, media=media), render_markdown(front, media=media)
    return render_markdown(front, media=media), render_markdown(back, media=media)


def answer_text(kind: str, ordinal: int, front: str, back: str) -> str:
    """What a learner who types the answer is compared with, as plain text: the back (the front
    for a reversed card's second side), or a cloze card's deletions of its index."""
    if kind == "cloze":
        return ", ".join(cloze.answer.strip() for cloze in clozes(front) if cloze.index == ordinal)
    text = front if kind == "reverse" and ordinal == 2 else back
    text = _IMAGES.sub("", MEDIA_NAMES.sub("", text))  # pictures are not typed
    return html_to_text(render_markdown(text)).strip()


def source_html(source: str) -> str:
    """The card's source line, shown under every answer (inline Markdown: links stay links)."""
    if not source.strip():
        return ""
    inline = render_markdown(source.strip()).strip()
    inline = inline.removeprefix("<p>").removesuffix("</p>")
    return f'<p class="card-source"><span>Source:</span> {inline}</p>\n'


def cloze_preview(front: str, back: str = "", *, media: dict | None = None) -> str:
    """The author's preview of a cloze text: each card it makes, prompt and answer, or what is
    wrong with the markup."""
    try:
        indices = cloze_indices(front)
    except ClozeError as exc:
        return f'<p class="error">{html_escape(str(exc))}</p>\n'
    parts = []
    for index in indices:
        prompt, answer = card_faces("cloze", index, front, back, media=media)
        parts.append(
            f'<div class="cloze-preview"><p class="muted">Card c{index}</p>'
            f'<div class="cloze-prompt">{prompt}</div>'
            f'<div class="cloze-answer">{answer}</div></div>'
        )
    return "\n".join(parts)


_IMG = re.compile(r"(?i)<img\b[^>]*>")
_IMAGE_AT = "\ue010"  # marks where an image stood while the rest of the HTML is cleaned
_ATTR = re.compile(r"""([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""")


def _image_ref(match: re.Match) -> str:
    """An <img> of a file beside the HTML (Anki's media) as Markdown naming the deck's image;
    an image of a web address, or none at all, is dropped as before."""
    attrs = {m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None)
             for m in _ATTR.finditer(match.group(0))}  # fmt: skip
    src = html_entities.unescape(attrs.get("src", "")).strip()
    if not src or ":" in src.split("/")[0] or src.startswith("//"):
        return ""
    name = re.sub(r"[<>\r\n]", "", unquote(src))
    alt = re.sub(r"[\[\]\n]", "", html_entities.unescape(attrs.get("alt", "")))
    return f"![{alt}](<{MEDIA_REF}{name}>)"


MEDIA_NAMES = re.compile(r"!\[[^\]\n]*\]\(<media:([^>\n]+)>\)")
_IMAGES = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")


def media_names(text: str) -> set[str]:
    """The names of the deck images a text shows (`![alt](<media:NAME>)`)."""
    return set(MEDIA_NAMES.findall(text or ""))


def html_to_text(value: str) -> str:
    """Plain text (with its line breaks) of HTML from elsewhere, e.g. an Anki field: every tag,
    script and comment dropped by nh3, entities decoded; an image of a file (Anki's media) kept
    as `![alt](<media:NAME>)`. Stored as a card's Markdown source, it is rendered and sanitised
    by render_markdown like any other text."""
    images: list[str] = []

    def keep(match: re.Match) -> str:  # out of the way of the cleaning, put back after it
        images.append(_image_ref(match))
        return f"{_IMAGE_AT}{len(images) - 1}{_IMAGE_AT}"

    value = _IMG.sub(keep, value.replace(_IMAGE_AT, ""))
    value = re.sub(r"(?i)<br\s*/?>|</(div|p|li)>", "\n", value)
    value = nh3.clean(value, tags=set(), strip_comments=True)
    value = html_entities.unescape(value).replace("\xa0", " ")
    value = re.sub(f"{_IMAGE_AT}(\\d+){_IMAGE_AT}", lambda m: images[int(m.group(1))], value)
    return "\n".join(line.rstrip() for line in value.splitlines()).strip()
