"""Every card, lesson text and quiz text that ships renders as a learner should see it: no cloze
blank shown as an escaped `\\[...\\]` (inside code spans and fenced code too), no text turned into
a link that is not a real address (the PPO objective's `S[π_θ](s_t)` was a link to a 404), and
HTML whose tags nest, so a highlight never swallows the text after it."""

from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from apps.decks.content import parse_deck, read_yaml
from apps.decks.markdown import card_faces, render_cloze, render_markdown

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
DECK_FILES = sorted((FIXTURES / "decks").glob("*.yaml"))
QUIZ_FILES = sorted((FIXTURES / "quizzes").glob("*.yaml"))
VOID = {"br", "hr", "img"}


class Rendered(HTMLParser):
    """The links, the visible text and whether the tags nest."""

    def __init__(self, html: str):
        super().__init__()
        self.open: list[str] = []
        self.urls: list[str] = []
        self.text: list[str] = []
        self.problems: list[str] = []
        self.feed(html)
        self.close()
        if self.open:
            self.problems.append(f"unclosed {self.open}")

    def handle_starttag(self, tag, attrs):
        self.urls += [value for name, value in attrs if name in ("href", "src")]
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.open[-1:] or 'nothing'}")
        else:
            self.open.pop()

    def handle_data(self, data):
        self.text.append(data)


def assert_renders_right(html: str, where: str) -> Rendered:
    page = Rendered(html)
    assert not page.problems, f"{where}: tags do not nest: {page.problems}\n{html}"
    for url in page.urls:
        assert url.startswith(("https://", "http://", "mailto:")), f"{where}: a link to {url!r}"
    text = "".join(page.text)
    assert "\\[" not in text and "\\]" not in text, f"{where}: an escaped bracket shows: {text}"
    assert "{{" not in text and "\ue000" not in text, f"{where}: cloze markup shows: {text}"
    return page


def shipped_notes():
    for path in DECK_FILES:
        deck = parse_deck(read_yaml(path.read_text(encoding="utf-8"), str(path)), str(path))
        for section in deck.sections:
            for note in section.cards:
                yield deck, section, note


def test_every_shipped_card_face_renders_right():
    faces = 0
    for _deck, section, note in shipped_notes():
        for slug, ordinal in note.cards():
            prompt, answer = card_faces(note.kind, ordinal, note.front, note.back)
            assert_renders_right(prompt, f"{section.slug}/{slug} prompt")
            assert_renders_right(answer, f"{section.slug}/{slug} answer")
            assert_renders_right(render_markdown(note.why), f"{section.slug}/{slug} why")
            if note.kind == "cloze":
                assert '<span class="cloze cloze-blank">[' in prompt, f"{slug}: no blank"
            faces += 2
    assert faces > 500  # the whole lesson, not an empty glob


def test_every_shipped_lesson_and_quiz_text_renders_right():
    texts = 0
    for path in DECK_FILES + QUIZ_FILES:
        stack = [yaml.safe_load(path.read_text(encoding="utf-8"))]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                stack += value.values()
            elif isinstance(value, list):
                stack += value
            elif isinstance(value, str) and "{{c" not in value:
                assert_renders_right(render_markdown(value), f"{path.name}: {value[:60]!r}")
                texts += 1
    assert texts > 1000


BLANK = '<span class="cloze cloze-blank">'


@pytest.mark.parametrize(
    ("text", "blank"),
    [
        ("Call `ray.{{c1::get}}(ref)` to wait.", f"<code>ray.{BLANK}[...]</span>(ref)</code>"),
        ("`{{c1::num_env_runners::a count}}`", f"<code>{BLANK}[a count]</span></code>"),
        (
            "```python\nray.{{c1::get}}(ref)\n```",
            f'<span class="o">.</span>{BLANK}[<span class="o">...</span>]</span><span class="p">(',
        ),
        ("{{c1::actor}}(handle) holds state", f"{BLANK}[...]</span>(handle)"),
    ],
)
def test_a_cloze_blank_inside_code_shows_plain_brackets(text, blank):
    html = render_cloze(text, 1, reveal=False)
    assert blank in html
    assert_renders_right(html, text)


def test_math_that_looks_like_a_link_stays_text_and_real_links_stay_links():
    html = render_markdown("entropy S[π_θ](s_t), see [Ray](https://docs.ray.io), <mailto:a@b.c>")
    assert "S[π_θ](s_t)" in html
    assert 'href="https://docs.ray.io"' in html and 'href="mailto:a@b.c"' in html
    for fake in ("[x](s_t)", "[x](/decks/a/)", "[x](#top)", "![i](x.png)", "[x](ftp://a.b/)"):
        assert "<a " not in render_markdown(fake) and "<img" not in render_markdown(fake), fake
