import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.decks.markdown import render_markdown


def test_renders_emphasis_lists_and_tables():
    html = render_markdown(
        "**Actors** keep *state*.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    )
    assert "<strong>Actors</strong>" in html
    assert "<li>one</li>" in html
    assert "<table>" in html


def test_fenced_code_is_highlighted_by_pygments():
    html = render_markdown("```python\n@ray.remote\ndef f(x):\n    return x\n```")
    assert '<pre class="highlight">' in html
    assert '<span class="k">def</span>' in html


def test_unknown_language_falls_back_to_plain_text():
    html = render_markdown("```klingon\nqapla'\n```")
    assert "qapla" in html


TAG = re.compile(r"<[a-zA-Z][^>]*>")
URL_ATTR = re.compile(r'(?:href|src)="([^"]*)"')
EVENT_HANDLER = re.compile(r"\son[a-z]+\s*=", re.IGNORECASE)
ALLOWED_SCHEMES = {"http", "https", "mailto"}


def assert_inert(html: str) -> None:
    """Escaped text may mention anything; real tags must carry nothing that runs."""
    for tag in TAG.findall(html):
        lowered = tag.lower()
        assert not lowered.startswith(("<script", "<iframe", "<svg", "<div", "<style")), tag
        assert "style=" not in lowered, tag
        assert not EVENT_HANDLER.search(tag), tag
        for url in URL_ATTR.findall(lowered):
            assert ":" not in url or url.split(":")[0].strip() in ALLOWED_SCHEMES, tag


@pytest.mark.parametrize(
    "attack",
    [
        "<script>alert(1)</script>",
        '<img src="x" onerror="alert(1)">',
        "[click](javascript:alert(1))",
        "[click](JaVaScRiPt:alert(1))",
        '<a href="javascript:alert(1)">x</a>',
        "![x](javascript:alert(1))",
        '<svg onload="alert(1)"></svg>',
        '<iframe src="https://evil.example"></iframe>',
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        '<div style="background:url(javascript:alert(1))">x</div>',
        "```html\n<script>alert(1)</script>\n```",
        "<<script>script>alert(1)<</script>/script>",
    ],
)
def test_card_markdown_never_yields_script_handlers_or_javascript_links(attack):
    assert_inert(render_markdown(attack))


def test_links_get_safe_rel():
    html = render_markdown("[Ray](https://docs.ray.io)")
    assert 'href="https://docs.ray.io"' in html
    assert "noopener" in html


@given(st.text(max_size=300))
def test_any_text_renders_inert(text):
    assert_inert(render_markdown(text))


# A deck's images ------------------------------------------------------------------------------


def test_a_deck_image_points_at_its_url_and_a_missing_one_is_a_placeholder():
    from apps.decks.markdown import render_markdown

    text = "See ![the ring](<media:ring buffer.png>) and ![](<media:gone.png>)"
    html = render_markdown(text, media={"ring buffer.png": "/decks/d/media/ring%20buffer.png"})
    assert '<img src="/decks/d/media/ring%20buffer.png" alt="the ring">' in html
    assert '<span class="media-missing">[image missing: gone.png]</span>' in html


def test_an_image_with_a_path_or_a_script_url_never_becomes_an_img():
    from apps.decks.markdown import render_markdown

    media = {"x.png": "/decks/d/media/x.png"}
    html = render_markdown("![](<media:../../etc/passwd>) ![](javascript:alert(1))", media=media)
    assert "<img" not in html and 'src="javascript' not in html and "href" not in html
    assert "[image missing: ../../etc/passwd]" in html


def test_anki_html_images_become_deck_image_references():
    from apps.decks.markdown import html_to_text, media_names

    field = (
        '<div>The learner <img src="gpu%20box.png" alt="a [GPU]"></div><img src="https://x/y.png">'
        '<img src="../../secret.png"><script>alert(1)</script>'
    )
    text = html_to_text(field)
    assert text == "The learner ![a GPU](<media:gpu box.png>)\n![](<media:../../secret.png>)"
    assert media_names(text) == {"gpu box.png", "../../secret.png"}
