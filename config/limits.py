"""Input limits, in one place: how deep JSON and YAML may nest, and what bytes a request may carry.

- Nesting: no document the app reads nests deeper than MAX_NESTING (a deck file has 7 levels, a
  quiz answer 3), while Python's parsers recurse once per level and fail with a RecursionError
  (a 500) near 1,000. JSON is measured by a linear scan before it is parsed (`json_depth_check`),
  YAML while it is composed (apps/decks/content.py counts through `nesting_refuse`).
- Bytes: a NUL character or invalid UTF-8 in a path, a query string or a form body is refused
  with a 400 before any view runs (`RequestBytesMiddleware`; a multipart form's fields when it
  is read, through a strict codec, not stored as U+FFFD), a JSON body that is not UTF-8 by
  the parser, and a NUL in a raw JSON value by `NulFreeJSONField` (CharField refuses one
  itself): PostgreSQL cannot store a NUL, and bytes that are not text name nothing the app has.
- Types: `StrictUUIDField` takes a UUID only as a string (DRF's UUIDField also takes an integer,
  so `false` and `12345` became UUIDs), `JSONBooleanField` a boolean only as true or false.

Each refusal is a sentence naming the field or the part of the request and the problem.
"""

from __future__ import annotations

import codecs
import json
import re
from urllib.parse import unquote_to_bytes

from django.core.exceptions import BadRequest
from django.http import JsonResponse, QueryDict
from django.shortcuts import render
from rest_framework import parsers, serializers
from rest_framework.exceptions import ParseError

MAX_NESTING = 32


class NestingTooDeep(ValueError):
    def __init__(self, where: str):
        self.where = where
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}nested more than {MAX_NESTING} levels deep")


def json_depth_check(text: str) -> None:
    """Raise NestingTooDeep, naming the object keys on the way, if `text` (JSON) nests deeper
    than MAX_NESTING. Linear in the text, and no recursion; JSON syntax is left to the parser."""
    keys: list[str | None] = []  # one entry per open container: the key being read, if any
    depth, i, n = 0, 0, len(text)
    last_string = None
    while i < n:
        ch = text[i]
        if ch == '"':
            end, escaped = i + 1, False
            while end < n and (escaped or text[end] != '"'):
                escaped = not escaped and text[end] == "\\"
                end += 1
            last_string = text[i + 1 : end]
            i = end + 1
            continue
        if ch == ":" and keys and last_string is not None:
            keys[-1] = last_string
        elif ch in "[{":
            depth += 1
            if depth > MAX_NESTING:
                raise NestingTooDeep(".".join(k for k in keys if k))
            keys.append(None)
        elif ch in "]}":
            depth -= 1
            if keys:
                keys.pop()
        elif ch == "," and keys:
            keys[-1] = None
        if not ch.isspace():
            last_string = None
        i += 1


def nesting_refuse(depth: int, where: str = "") -> None:
    """For parsers that count their own depth (the YAML composer)."""
    if depth > MAX_NESTING:
        raise NestingTooDeep(where)


def printable(text: str) -> str:
    """`text` safe to put in a message: a lone surrogate written as its \\uXXXX escape (as it
    is, it cannot be encoded, and the answer that echoed it failed with a 500)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def string_path(value, holds, path: str = "") -> str | None:
    """The dotted path of the first string (key or value) in parsed JSON for which
    `holds(string)` is true."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if holds(item):
                return where or "body"
        elif isinstance(item, dict):
            for key, child in item.items():
                name = f"{where}.{printable(str(key))}" if where else printable(str(key))
                if holds(str(key)):
                    return name
                stack.append((child, name))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(item))
    return None


def nul_path(value, path: str = "") -> str | None:
    """The dotted path of the first string (key or value) in parsed JSON that holds a NUL."""
    return string_path(value, lambda text: "\x00" in text, path)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_path(value) -> str | None:
    """Where parsed JSON holds a lone surrogate (a \\ud800 escape without its pair): not a
    character, so no text can hold it (UTF-8 cannot encode it, PostgreSQL refuses it)."""
    return string_path(value, lambda text: _SURROGATE.search(text) is not None)


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, with the body required to be UTF-8 text (no lone surrogate escape,
    in a key or a value) and to nest at most MAX_NESTING levels; each refusal a 400 that names
    the field. (A NUL inside a string is refused by the
    field that keeps it: CharField does, NulFreeJSONField for raw JSON values.)"""

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(f"the body is not valid UTF-8 (byte {exc.start})") from None
        try:
            json_depth_check(text)
        except NestingTooDeep as exc:
            raise ParseError(str(exc)) from None
        try:
            data = json.loads(text) if text.strip() else None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        if _SURROGATE_ESCAPE.search(text):  # only an escape can make one in decoded UTF-8
            where = surrogate_path(data)
            if where:
                raise ParseError(
                    f"{where}: holds a lone surrogate (a \\ud800-\\udfff escape without its "
                    "pair), which is not a character; send the text itself"
                )
        return data


class NulFreeJSONField(serializers.JSONField):
    """Raw JSON kept as it is (a quiz answer, a demo parameter): PostgreSQL's jsonb cannot hold
    a NUL, so a string or key holding one is refused, naming where."""

    def to_internal_value(self, data):
        where = nul_path(data)
        if where:
            place = "" if where == "body" else f" (at {where})"
            raise serializers.ValidationError(f"a NUL character (\\u0000) is not allowed{place}")
        return super().to_internal_value(data)


class StrictUUIDField(serializers.UUIDField):
    """A UUID given as a string, e.g. "0b6e...-...". Numbers and booleans are refused."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError(
                f'must be a UUID string such as "2f1c7e9a-5b7d-4c1e-9a55-0c3b8d4e6f10", '
                f"got {json.dumps(data)[:40]}"
            )
        return super().to_internal_value(data)


class JSONBooleanField(serializers.BooleanField):
    """true or false, as JSON writes them; in a form body (which has only text) "true" or
    "false". DRF's BooleanField also takes 0, 1, "yes", "on"... (so `for_interview: 0` passed as
    false): a client sending those has a bug worth a 400."""

    default_error_messages = {"invalid": "Must be true or false."}

    def to_internal_value(self, data):
        if data is True or data is False:
            return data
        form = isinstance(getattr(self.root, "initial_data", None), QueryDict)
        if form and isinstance(data, str) and data.lower() in ("true", "false"):
            return data.lower() == "true"
        self.fail("invalid")


# Request bytes -------------------------------------------------------------------------------

FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"
FORM_NOT_UTF8 = "The form holds bytes that are not UTF-8: remove them and send the form again."


class FormNotUTF8(BadRequest):
    """A multipart form field (its name, its text or a file's name) that is not UTF-8; Django
    answers it with the 400 handler, which says `sentence`."""

    sentence = FORM_NOT_UTF8


def _strict_utf8_decode(data, errors="strict"):
    try:
        return codecs.utf_8_decode(data, "strict", True)
    except UnicodeDecodeError:
        raise FormNotUTF8(FORM_NOT_UTF8) from None


# Django's multipart parser decodes every field with errors="replace", so invalid UTF-8 became
# U+FFFD and was stored. A request's `encoding` (documented as writable) names the codec the
# parser uses: this one is UTF-8 that refuses, whatever errors= the caller asks for.
STRICT_UTF8 = "raydeck-strict-utf-8"
codecs.register(
    lambda name: (
        codecs.CodecInfo(codecs.utf_8_encode, _strict_utf8_decode, name=STRICT_UTF8)
        if name == STRICT_UTF8.replace("-", "_")
        else None
    )
)
_REQUOTED = re.compile("%[89A-F][0-9A-F]")


def _bad_bytes(raw: bytes) -> str | None:
    if b"\x00" in raw:
        return "a NUL character"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return "bytes that are not UTF-8"
    return None


def bad_request(request, message: str, *, status: int = 400):
    """A refusal in the caller's shape: JSON under /api/, else the app's error page."""
    if request.path_info.startswith("/api/"):
        return JsonResponse({"detail": message, "error": message}, status=status)
    return render(
        request, "error.html", {"title": "Bad request", "message": message}, status=status
    )


class RequestBytesMiddleware:
    """400 for a NUL or invalid UTF-8 in the path, the query string or a form or JSON body; a
    multipart form is decoded strictly when something reads it (FormNotUTF8, a 400)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        problem = self.problem(request)
        if problem:
            return bad_request(request, problem)
        if request.content_type == MULTIPART:
            request.encoding = STRICT_UTF8  # parsed later (an upload streams): FormNotUTF8 then
        return self.get_response(request)

    @staticmethod
    def problem(request) -> str | None:
        # Django has decoded the path already, re-quoting bytes that are not UTF-8 as %XX
        # (always 80 to FF); no route of the app has a literal "%" in it.
        path = request.path_info
        if "\x00" in path:
            return "The address holds a NUL character: check the link."
        if _REQUOTED.search(path):
            return "The address holds bytes that are not UTF-8: check the link."
        query = request.META.get("QUERY_STRING", "")
        bad = _bad_bytes(unquote_to_bytes(query.replace("+", " ")))
        if bad:
            return f"The query string holds {bad}: check the link."
        content_type = request.content_type or ""
        if request.method in ("POST", "PUT", "PATCH") and content_type == FORM:
            bad = _bad_bytes(unquote_to_bytes(request.body.decode("latin-1").replace("+", " ")))
            if bad:
                return f"The form holds {bad}: remove it and send the form again."
        return None
