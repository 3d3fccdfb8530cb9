"""Exercise files: fixtures/exercises/*.yaml (and the author import, YAML or JSON), validated whole.

A file names its deck and lists exercises; each names the deck's cards it practises and a source.
Every piece of code must compile (compiling runs nothing); the tests must define `test_*`
functions. Whether the reference passes and the wrong solutions fail is decided in the sandbox,
by the worker (services.revision_check_run); the shipped file is checked by the test suite
(tests/exercises/test_shipped.py), so `manage.py seed` loads its exercises as accepted.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from apps.decks.content import ContentError, DocReader, read_yaml
from apps.exercises.grading import test_names

FILE_KEYS = {"deck", "exercises"}
EXERCISE_KEYS = {
    "slug", "title", "section", "cards", "source", "prompt", "starter", "examples", "tests",
    "reference", "wrong", "runtime",
}  # fmt: skip
RUNTIMES = ("numpy", "ray")
WRONG_KEYS = {"mistake", "code"}
MAX_CODE_CHARS = 64 * 1024  # each piece of an exercise's code, and a learner's submission


@dataclass
class ExerciseDoc:
    slug: str
    title: str
    prompt: str
    tests: str
    reference: str
    wrong: list[dict]  # [{"mistake", "code"}]
    cards: list[str]
    source: str
    section: str = ""
    starter: str = ""
    examples: str = ""
    runtime: str = "numpy"  # "ray": the sandbox holds Ray, RLlib and torch, with Ray's limits

    def content(self) -> dict:
        """The revision fields this document sets (ExerciseRevision.CONTENT_FIELDS)."""
        return {
            "title": self.title, "prompt": self.prompt, "starter": self.starter,
            "examples": self.examples, "tests": self.tests, "reference": self.reference,
            "wrong": self.wrong, "card_slugs": self.cards, "source": self.source,
            "section_slug": self.section, "runtime": self.runtime,
        }  # fmt: skip


@dataclass
class ExerciseFileDoc:
    deck: str
    exercises: list[ExerciseDoc] = field(default_factory=list)


def _code(r: DocReader, key: str, *, required: bool, what: str) -> str:
    value = r.data.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        r.fail(f"{key!r} must be text (Python code), got {type(value).__name__}")
    if required and not value.strip():
        r.fail(f"{key!r} is missing or empty")
    if len(value) > MAX_CODE_CHARS:
        r.fail(f"{key!r} is longer than {MAX_CODE_CHARS:,} characters")
    if "\x00" in value:
        r.fail(f"{key!r} holds a NUL character")
    if value.strip():
        try:
            compile(value, f"<{key}>", "exec")
        except SyntaxError as exc:
            r.fail(f"{what} does not compile: {exc.msg} on line {exc.lineno}")
    return value.rstrip() + "\n" if value.strip() else ""


def exercise_parse(
    source: str, entry: str, raw: Any, *, card_names: set[str], sections: set[str]
) -> ExerciseDoc:
    """One exercise entry (of a file, the author form or the API), checked whole; raises
    ContentError naming the entry and the problem."""
    r = DocReader(source, entry, raw, EXERCISE_KEYS)
    slug = r.slug()
    r.entry = f"exercise {slug!r}"
    section = r.text("section", required=False, max_length=80)
    if section and section not in sections:
        r.fail(f"section {section!r} is not a section of this deck")
    cards = r.strings("cards")
    if not cards:
        r.fail("list at least one card the exercise practises under 'cards'")
    unknown = [c for c in cards if c not in card_names]
    if unknown:
        r.fail(f"unknown card {unknown[0]!r} (cards are named by their slug in this deck)")
    tests = _code(r, "tests", required=True, what="the hidden tests")
    if not test_names(tests):
        r.fail("the hidden tests define no test: write top-level functions named test_...")
    examples = _code(r, "examples", required=False, what="the example tests")
    if examples and not test_names(examples):
        r.fail("the example tests define no test: write top-level functions named test_...")
    clash = set(test_names(tests)) & set(test_names(examples))
    if clash:
        r.fail(f"test {sorted(clash)[0]!r} is both an example and a hidden test: rename one")
    runtime = r.data.get("runtime") or "numpy"
    if runtime not in RUNTIMES:
        r.fail(f"runtime must be one of {', '.join(RUNTIMES)}, got {runtime!r}")
    wrong_raw = r.items("wrong")
    if not wrong_raw:
        r.fail("give at least one plausible wrong solution under 'wrong'")
    wrong = []
    for i, item in enumerate(wrong_raw):
        w = DocReader(source, f"exercise {slug!r} wrong[{i}]", item, WRONG_KEYS)
        wrong.append({
            "mistake": w.text("mistake", max_length=300),
            "code": _code(w, "code", required=True, what=f"wrong solution {i + 1}"),
        })  # fmt: skip
    return ExerciseDoc(
        slug=slug,
        title=r.text("title", max_length=200),
        section=section,
        cards=cards,
        source=r.text("source", max_length=1000),
        prompt=r.text("prompt"),
        starter=_code(r, "starter", required=False, what="the starter code"),
        examples=examples,
        tests=tests,
        reference=_code(r, "reference", required=True, what="the reference solution"),
        wrong=wrong,
        runtime=runtime,
    )


def exercise_file_parse(data: Any, source: str, *, names_of) -> ExerciseFileDoc:
    """A whole exercise file. `names_of(deck slug) -> (card names, section slugs)` or None for
    a deck this site does not have."""
    top = DocReader(source, "file", data, FILE_KEYS)
    deck = top.slug("deck")
    known = names_of(deck)
    if known is None:
        top.fail(f"deck {deck!r} does not exist here: import the deck first")
    card_names, sections = known
    doc = ExerciseFileDoc(deck=deck)
    seen = set()
    for i, raw in enumerate(top.items("exercises")):
        exercise = exercise_parse(
            source, f"exercises[{i}]", raw, card_names=card_names, sections=sections
        )
        if exercise.slug in seen:
            top.fail(f"exercise slug {exercise.slug!r} appears twice")
        seen.add(exercise.slug)
        doc.exercises.append(exercise)
    if not doc.exercises:
        top.fail("the file lists no exercises")
    return doc


def exercise_file_read(data: bytes, source: str, *, names_of) -> ExerciseFileDoc:
    """An uploaded file (YAML, or JSON, which YAML reads too) as a validated document."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ContentError(source, "", f"not UTF-8 text (byte {exc.start})") from None
    if "\x00" in text:
        raise ContentError(source, "", "the file holds a NUL character")
    return exercise_file_parse(read_yaml(text, source), source, names_of=names_of)


def _block(dumper, text: str):
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(str, _block)


def exercise_file_dump(doc: ExerciseFileDoc, fmt: str = "yaml") -> str:
    """The file a download holds; reading it back gives the same documents."""
    exercises = []
    for e in doc.exercises:
        item = asdict(e)
        ordered = {k: item[k] for k in (
            "slug", "title", "section", "cards", "source", "runtime", "prompt", "starter",
            "examples", "tests", "reference", "wrong",
        ) if item[k] not in ("", [], None, "numpy")}  # fmt: skip
        exercises.append(ordered)
    data = {"deck": doc.deck, "exercises": exercises}
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def exercise_file_load_path(path: Path, *, names_of) -> ExerciseFileDoc:
    return exercise_file_read(path.read_bytes(), path.name, names_of=names_of)
