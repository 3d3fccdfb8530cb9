"""The quiz editor's forms, and the question editor's one-line-per-option text, to and from
the quiz file format:
Choices:     `[x] right choice` / `[ ] wrong choice`
Statements:  `[T] a true statement` / `[F] a false statement`
Pairs:       `left side => right side`
A sizing drill (numeric) takes its numbers and formula in the options box as YAML, the keys of
the quiz file (given, derived, formula, tolerance, unit, solution); a debugging drill's tool
output goes in the evidence box, as YAML too (tool, source, output).
"""

import re

from django.core.exceptions import ValidationError

from apps.authoring.formats.export import block_yaml
from apps.authoring.forms.base import AuthorForm, Text, Texts, Ticked
from apps.decks.content import ContentError, read_yaml
from apps.quizzes.content import EVIDENCE_KEYS, SIZING_KEYS

OPTION_FIELD = {"single": "choices", "multi": "choices", "true_false": "statements",
                "match": "pairs", "numeric": "given"}  # fmt: skip
OPTION_HELP = {
    "choices": "One choice a line: [x] for a right choice, [ ] for a wrong one.",
    "statements": "One statement a line: [T] if it is true, [F] if it is false.",
    "pairs": "One pair a line: left side => right side.",
    "given": "A sizing drill: YAML with given (the drawn numbers), derived, formula, tolerance,"
    " unit and solution, as in the quiz file.",
}
DRILL_KEYS = ("given", *SIZING_KEYS)


def _yaml_mapping(text: str, field: str, allowed) -> dict:
    try:
        data = read_yaml(text, field)
    except ContentError as exc:
        raise ValidationError({field: exc.problem}) from None
    if not isinstance(data, dict):
        raise ValidationError({field: f"write YAML keys: {', '.join(allowed)}"})
    unknown = sorted(set(map(str, data)) - set(allowed))
    if unknown:
        raise ValidationError(
            {field: f"unknown key {unknown[0]!r} (allowed: {', '.join(allowed)})"}
        )
    return data


def evidence_text(data: dict) -> str:
    return block_yaml(data["evidence"]) if data.get("evidence") else ""


def evidence_parse(text: str) -> dict:
    """The evidence box -> {"evidence": {...}}, or nothing when it is empty."""
    if not text.strip():
        return {}
    return {"evidence": _yaml_mapping(text, "evidence", sorted(EVIDENCE_KEYS))}


_MARK = re.compile(r"^\[(.?)\]\s*(.*)$")


def options_text(data: dict) -> str:
    """The options of a question document as editor lines."""
    if data.get("kind") == "numeric":
        return block_yaml({k: data[k] for k in DRILL_KEYS if k in data})
    if "choices" in data:
        return "\n".join(f"[{'x' if c['correct'] else ' '}] {c['text']}" for c in data["choices"])
    if "statements" in data:
        return "\n".join(f"[{'T' if s['answer'] else 'F'}] {s['text']}" for s in data["statements"])
    return "\n".join(f"{p['left']} => {p['right']}" for p in data.get("pairs", []))


def options_parse(kind: str, text: str) -> dict[str, list]:
    """Editor lines -> {"choices" | "statements" | "pairs": [...]}; errors name the line."""
    field = OPTION_FIELD.get(kind)
    if field is None:
        raise ValidationError({"kind": f"kind must be one of {', '.join(OPTION_FIELD)}"})
    if kind == "numeric":
        return _yaml_mapping(text, "options", DRILL_KEYS)
    items: list[dict[str, str | bool]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if field == "pairs":
            left, arrow, right = line.partition("=>")
            if not arrow:
                raise ValidationError({"options": f"line {number}: write it as left => right"})
            items.append({"left": left.strip(), "right": right.strip()})
            continue
        match = _MARK.match(line)
        mark, said = (
            (match.group(1).strip().lower(), match.group(2).strip()) if match else ("?", "")
        )
        if field == "choices":
            if mark not in ("x", ""):
                raise ValidationError({"options": f"line {number}: start it with [x] or [ ]"})
            items.append({"text": said, "correct": mark == "x"})
        else:
            if mark not in ("t", "f"):
                raise ValidationError({"options": f"line {number}: start it with [T] or [F]"})
            items.append({"text": said, "answer": mark == "t"})
    return {field: items}


class QuizForm(AuthorForm):
    slug = Text()
    title = Text()
    kind = Text()
    section = Text()
    pass_percent = Text()
    time_limit_minutes = Text()
    shuffle = Ticked()

    def clean(self):
        try:
            percent = self.cleaned_data.get("pass_percent") or "70"
            self.cleaned_data["pass_mark"] = int(percent) / 100
            minutes = (self.cleaned_data.get("time_limit_minutes") or "").strip()
            self.cleaned_data["time_limit_seconds"] = int(minutes) * 60 if minutes else None
        except ValueError:
            self.refused(
                ValidationError({"pass_mark": "pass mark and time limit are whole numbers"})
            )
        return self.cleaned_data

    def quiz_fields(self) -> dict:
        data = self.cleaned_data
        fields = {k: data[k] for k in ("slug", "title", "kind", "pass_mark", "time_limit_seconds")}
        return {**fields, "section": data["section"] or None, "shuffle": data["shuffle"]}


class QuestionForm(AuthorForm):
    """A question as the editor shows it, into the quiz file document question_save takes."""

    slug = Text()
    kind = Text()
    prompt = Text()
    explanation = Text()
    points = Text()
    options = Text()
    evidence = Text()
    cards = Texts()
    note = Text()

    def clean_slug(self) -> str:
        return self.cleaned_data["slug"].strip()

    def clean_points(self) -> int:
        try:
            return int(self.cleaned_data["points"] or "1")
        except ValueError:
            raise ValidationError("points must be a whole number from 1 to 100") from None

    def clean(self):
        data = self.cleaned_data
        if "kind" in data and "options" in data:
            try:
                data.update(options_parse(data["kind"], data["options"]))
            except ValidationError as exc:
                self.refused(exc)
        try:
            data.update(evidence_parse(data.get("evidence") or ""))
        except ValidationError as exc:
            self.refused(exc)
        return data

    def values(self) -> dict:
        return {**super().values(), "evidence": self.data.get("evidence", "")}

    def document(self) -> dict:
        data = self.cleaned_data
        doc = {k: data[k] for k in ("slug", "kind", "prompt", "explanation", "points", "cards")}
        extra = [*OPTION_HELP, *SIZING_KEYS]
        if isinstance(data.get("evidence"), dict):
            extra.append("evidence")
        return {**doc, **{k: data[k] for k in extra if k in data}}
