"""The quiz page's form fields, named by public keys, read back into an answers map.

Field names: ``q-<question>`` for single (radio) and multi (checkboxes),
``q-<question>-<statement>`` for true/false (a radio pair "true"/"false") and
``q-<question>-<left>`` for matching (a select of right keys). Names are built from the
known keys, never split, so keys may contain ``-``.
"""

from apps.quizzes import scoring
from apps.quizzes.models import Question


def field_name(question: Question, item_key: str = "") -> str:
    return f"q-{question.key}-{item_key}" if item_key else f"q-{question.key}"


def answers_from_form(questions: list[Question], data) -> dict:
    """Only questions with something entered appear; a left-out question scores 0."""
    answers: dict = {}
    for question in questions:
        if question.kind == scoring.SINGLE:
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


def question_fields(question: Question, *, seed: int | None, answer=None, number: int = 0) -> dict:
    """One question as the page shows it, in the attempt's order, pre-filled with ``answer``."""
    shown = {"question": question, "number": number, "name": field_name(question)}
    if question.kind in (scoring.SINGLE, scoring.MULTI):
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
    }
    if question.kind in (scoring.SINGLE, scoring.MULTI):
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
        texts = {p.right_key: p.right_html for p in question.pairs.all()}
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
