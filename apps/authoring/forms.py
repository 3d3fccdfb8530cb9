"""The question editor's one-line-per-option text, to and from the quiz file format.

Choices:     `[x] right choice` / `[ ] wrong choice`
Statements:  `[T] a true statement` / `[F] a false statement`
Pairs:       `left side => right side`
"""

import re

from django.core.exceptions import ValidationError

OPTION_FIELD = {"single": "choices", "multi": "choices", "true_false": "statements",
                "match": "pairs"}  # fmt: skip
OPTION_HELP = {
    "choices": "One choice a line: [x] for a right choice, [ ] for a wrong one.",
    "statements": "One statement a line: [T] if it is true, [F] if it is false.",
    "pairs": "One pair a line: left side => right side.",
}
_MARK = re.compile(r"^\[(.?)\]\s*(.*)$")


def options_text(data: dict) -> str:
    """The options of a question document as editor lines."""
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
    items = []
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
        mark = match.group(1).strip().lower() if match else None
        if field == "choices":
            if mark not in ("x", ""):
                raise ValidationError({"options": f"line {number}: start it with [x] or [ ]"})
            items.append({"text": match.group(2).strip(), "correct": mark == "x"})
        else:
            if mark not in ("t", "f"):
                raise ValidationError({"options": f"line {number}: start it with [T] or [F]"})
            items.append({"text": match.group(2).strip(), "answer": mark == "t"})
    return {field: items}
