"""Every page carries a Content Security Policy that allows no inline script, and no template in
the repository needs one: behaviour lives in static files, styles in stylesheets."""

import re
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted(
    p for d in ("templates", "apps") for p in (ROOT / d).rglob("*.html") if "templates" in p.parts
)


def policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {d.split()[0]: d.split()[1:] for d in header.split(";") if d.strip()}


def page_paths(resolver=None, prefix="") -> list[str]:
    """Every page URL that takes no argument (the API is JSON and has no use for the policy)."""
    paths = []
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + str(entry.pattern)
        if "<" in route or "(?P" in route or route.startswith(("api/", "admin/")):
            continue
        if isinstance(entry, URLResolver):
            paths += page_paths(entry, route)
        elif isinstance(entry, URLPattern):
            paths.append("/" + route.lstrip("^").rstrip("$"))
    return paths


def assert_strict(response):
    directives = policy(response)
    for name in ("script-src", "style-src"):
        assert directives[name] == ["'self'"], (name, directives[name])
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]
    assert "'unsafe-eval'" not in response["Content-Security-Policy"]
    assert directives["default-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["base-uri"] == ["'self'"]
    assert directives["form-action"] == ["'self'"]
    assert directives["img-src"] == ["'self'", "data:"]


@pytest.mark.django_db
def test_every_html_page_has_the_strict_policy(client, staff, small_deck):
    client.force_login(staff)
    paths = page_paths() + [
        "/study/review/ray-basics/", "/study/cram/ray-basics/", "/decks/ray-basics/",
        "/admin/", "/admin/decks/card/", "/no-such-page/",
    ]  # fmt: skip
    checked = []
    for path in paths:
        response = client.get(path)
        if 300 <= response.status_code < 400 or "text/html" not in response.get("Content-Type", ""):
            continue
        assert_strict(response)
        checked.append(path)
    assert len(checked) >= 15, checked
    assert {"/", "/study/", "/study/stats/", "/quizzes/", "/demos/", "/no-such-page/"} <= set(
        checked
    )


@pytest.mark.django_db
def test_logged_out_pages_and_the_lock_out_page_too(client):
    for path in ("/", "/accounts/login/", "/accounts/signup/"):
        assert_strict(client.get(path))


@pytest.mark.django_db
def test_api_docs_load_their_script_from_a_file_and_relax_only_styles(client, alice):
    client.force_login(alice)
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert scripts and all("src=" in attrs and not body.strip() for attrs, body in scripts)
    directives = policy(response)
    assert directives["script-src"] == ["'self'"]
    assert directives["style-src"] == ["'self'", "'unsafe-inline'"]
    init = client.get("/api/docs/?script=")
    assert init.status_code == 200 and "SwaggerUIBundle" in init.content.decode()


def test_templates_have_no_inline_script_handler_or_style():
    assert len(TEMPLATES) > 40
    problems = []
    for path in TEMPLATES:
        text = re.sub(r"{#.*?#}", "", path.read_text(), flags=re.S)
        name = path.relative_to(ROOT)
        for attrs in re.findall(r"<script\b([^>]*)>", text):
            if "src=" not in attrs:
                problems.append(f"{name}: inline <script{attrs}>")
        if re.search(r"<style\b", text):
            problems.append(f"{name}: <style> block")
        for match in re.finditer(r"<[a-zA-Z][^>]*?\s(on[a-z]+|style)\s*=", text):
            problems.append(f"{name}: {match.group(1)}= attribute")
    assert not problems, "\n".join(problems)


def test_htmx_is_configured_not_to_eval_or_inject_styles():
    base = (ROOT / "templates" / "base.html").read_text()
    meta = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", base)
    assert meta, "base.html configures htmx"
    import json

    config = json.loads(meta.group(1))
    assert config["includeIndicatorStyles"] is False and config["allowEval"] is False
    assert base.index("htmx-config") < base.index("{% htmx_script %}")
