"""The quiz page's form fields, named by public keys, read back into an answers map.

Field names: ``q-<question>`` for single (radio), multi (checkboxes) and numeric (a text
box), ``q-<question>-<statement>`` for true/false (a radio pair "true"/"false") and
``q-<question>-<left>`` for matching (a select of right keys). Names are built from the
known keys, never split, so keys may contain ``-``.
"""

import math
import re

from apps.decks.markdown import render_markdown
from apps.quizzes import drills, scoring
from apps.quizzes.models import Question

# Thousands separators a person may type: 12,800 or 12 800 or 12_800 (before three digits only,
# so "1,5" is not taken for 15: it is refused, as the decimal point is a dot).
_SEPARATORS = re.compile(r"(?<=\d)[,_ \u00a0\u202f](?=\d{3}(?!\d))")


def number_parse(text: str):
    """A typed number as a float, or the text as typed (refused by validation, with a message)
    when it is not one: "12,800", "12800", "1.28e4" and "0.5" are numbers."""
    cleaned = _SEPARATORS.sub("", text.strip())
    try:
        value = float(cleaned)
    except ValueError:
        return text.strip()[:60]
    return value if math.isfinite(value) else text.strip()[:60]


def field_name(question: Question, item_key: str = "") -> str:
    return f"q-{question.key}-{item_key}" if item_key else f"q-{question.key}"


def answers_from_form(questions: list[Question], data) -> dict:
    """Only questions with something entered appear; a left-out question scores 0."""
    answers: dict = {}
    for question in questions:
        if question.kind == scoring.NUMERIC:
            value = (data.get(field_name(question)) or "").strip()
            if value:
                answers[question.key] = number_parse(value)
        elif question.kind == scoring.SINGLE:
            value = data.get(field_name(question))
            if value:
                answers[question.key] = value
        elif question.kind == scoring.MULTI:
            values = [v for v in data.getlist(field_name(question)) if v]
            if values:
                answers[question.key] = values
        elif question.kind == scoring.TRUE_FALSE:
            marks = {}
            for statement in question.statements.all():
                value = data.get(field_name(question, statement.key))
                if value in ("true", "false"):
                    marks[statement.key] = value == "true"
                elif value:
                    marks[statement.key] = value  # refused by validation, with a message
            if marks:
                answers[question.key] = marks
        else:
            pairs = {}
            for pair in question.pairs.all():
                value = data.get(field_name(question, pair.left_key))
                if value:
                    pairs[pair.left_key] = value
            if pairs:
                answers[question.key] = pairs
    return answers


def typed(answer) -> str:
    """A numeric answer as its text box shows it again."""
    if isinstance(answer, bool) or answer is None:
        return ""
    if isinstance(answer, (int, float)):
        return f"{answer:g}" if abs(answer) < 1e15 else str(answer)
    return str(answer)


def question_fields(
    question: Question, *, seed: int | None, answer=None, number: int = 0, draw_seed=None
) -> dict:
    """One question as the page shows it, in the attempt's order, pre-filled with ``answer``.
    `draw_seed` is the attempt's seed, which draws a sizing drill's numbers (`seed` orders the
    options, and is None when the quiz does not shuffle)."""
    shown = {"question": question, "number": number, "name": field_name(question)}
    shown["prompt_html"] = question.prompt_html
    if question.kind == scoring.NUMERIC:
        drill = question.sizing_drill()
        shown["prompt_html"] = question.prompt_for(question.drawn(draw_seed))[1]
        shown["unit"] = drill.unit
        shown["typed"] = typed(answer)
        shown["numeric"] = True
    elif question.kind in (scoring.SINGLE, scoring.MULTI):
        picked = {answer} if isinstance(answer, str) else set(answer or ())
        shown["choices"] = [
            {"key": c.key, "html": c.text_html, "checked": c.key in picked}
            for c in question.options(seed)
        ]
    elif question.kind == scoring.TRUE_FALSE:
        marks = answer if isinstance(answer, dict) else {}
        shown["statements"] = [
            {
                "key": s.key,
                "html": s.text_html,
                "name": field_name(question, s.key),
                "mark": marks.get(s.key),
            }
            for s in question.shown_statements(seed)
        ]
    else:
        picks = answer if isinstance(answer, dict) else {}
        shown["lefts"] = [
            {
                "key": p.left_key,
                "html": p.left_html,
                "name": field_name(question, p.left_key),
                "pick": picks.get(p.left_key, ""),
            }
            for p in question.lefts(seed)
        ]
        shown["rights"] = [
            {"key": p.right_key, "text": p.right_plain} for p in question.rights(seed)
        ]
    return shown


def question_review(question: Question, *, seed: int | None, result: dict, number: int = 0):
    """One scored question: what was given next to what is right, with points and cards."""
    answer, key = result.get("answer"), result.get("correct_answer")
    shown = {
        "question": question,
        "number": number,
        "points": result["points"],
        "max_points": result["max_points"],
        "full": result["points"] >= result["max_points"],
        "answered": not scoring.is_unanswered(answer),
        "prompt_html": question.prompt_html,
    }
    if question.kind == scoring.NUMERIC:
        numbers = result.get("numbers") or {}
        drill = question.sizing_drill()
        shown["prompt_html"] = render_markdown(drills.fill(question.prompt, numbers))
        shown["solution_html"] = question.solution_for(numbers)[1]
        shown["numeric"] = {
            "typed": typed(answer),
            "right": drills.number_text(key) if scoring.is_number(key) else "",
            "unit": drill.unit,
            "tolerance": f"{drill.tolerance * 100:g}%" if drill.tolerance else "",
        }
    elif question.kind in (scoring.SINGLE, scoring.MULTI):
        picked = {answer} if isinstance(answer, str) else set(answer or ())
        right = {key} if isinstance(key, str) else set(key or ())
        shown["choices"] = [
            {"html": c.text_html, "picked": c.key in picked, "right": c.key in right}
            for c in question.options(seed)
        ]
    elif question.kind == scoring.TRUE_FALSE:
        marks = answer if isinstance(answer, dict) else {}
        key = key or {}
        shown["statements"] = [
            {"html": s.text_html, "mark": marks.get(s.key), "right": key.get(s.key)}
            for s in question.shown_statements(seed)
        ]
    else:
        picks = answer if isinstance(answer, dict) else {}
        key = key or {}
        texts: dict[str | None, str] = {p.right_key: p.right_html for p in question.pairs.all()}
        shown["lefts"] = [
            {
                "html": p.left_html,
                "pick": texts.get(picks.get(p.left_key)),
                "right": texts.get(key.get(p.left_key)),
                "ok": picks.get(p.left_key) == key.get(p.left_key),
            }
            for p in question.lefts(seed)
        ]
    return shown


def section_quiz_blocks(quizzes) -> dict:
    """Context for a section page: its checkpoints' questions, ready to answer inline (in the
    fixed order of their public keys), and its knowledge checks, linked."""
    checkpoints = [
        {
            "quiz": quiz,
            "questions": [
                question_fields(question, seed=None, number=i)
                for i, question in enumerate(quiz.questions.all(), 1)
            ],
        }
        for quiz in quizzes
        if quiz.is_checkpoint
    ]
    checks = [quiz for quiz in quizzes if not quiz.is_checkpoint]
    return {"section_checkpoints": checkpoints, "section_checks": checks}
