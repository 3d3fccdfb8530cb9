"""Quiz files: fixtures/quizzes/*.yaml, validated whole, then upserted by slug in one transaction.

A file names its deck and lists quizzes; each question names the deck's cards that teach it.
Errors name the file, the quiz slug, the question slug and the problem. Re-loading changes
nothing, and an unchanged choice, statement or pair keeps its public key (matched by its
text), so open attempts and the API's ids survive a re-seed.
"""

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction

from apps.decks.content import ContentError, DocReader, read_yaml
from apps.decks.models import Deck
from apps.decks.selectors import card_names
from apps.quizzes import drills, scoring
from apps.quizzes.models import Choice, MatchPair, Question, Quiz, Statement

QUIZ_KEYS = {
    "slug", "title", "kind", "section", "pass_mark", "time_limit_seconds", "shuffle", "questions",
}  # fmt: skip
QUESTION_KEYS = {"slug", "kind", "prompt", "explanation", "points", "cards", "evidence"}
KIND_KEYS = {
    scoring.SINGLE: "choices",
    scoring.MULTI: "choices",
    scoring.TRUE_FALSE: "statements",
    scoring.MATCH: "pairs",
    scoring.NUMERIC: "given",
}
# A sizing drill's fields beside its drawn numbers ("given").
SIZING_KEYS = ("derived", "formula", "tolerance", "unit", "solution")
EVIDENCE_KEYS = {"tool", "output", "source"}
EVIDENCE_OUTPUT_MAX = 12000  # characters of tool output: a screenful or two, not a log file


class DrillRefused(ContentError):
    """A sizing drill's numbers or formula refused: `field` is the drill's key at fault (given,
    derived, formula, tolerance, prompt, solution), as the API names it."""

    def __init__(self, source: str, entry: str, problem: str, *, field: str):
        super().__init__(source, entry, problem)
        self.field = field


@dataclass
class QuestionDoc:
    slug: str
    kind: str
    prompt: str
    explanation: str
    points: int
    cards: list[str]
    choices: list[tuple[str, bool]] = field(default_factory=list)
    statements: list[tuple[str, bool]] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    sizing: dict[str, Any] = field(default_factory=dict)
    solution: str = ""
    evidence: dict[str, str] = field(default_factory=dict)


@dataclass
class QuizDoc:
    slug: str
    title: str
    kind: str
    section: str | None
    pass_mark: float
    time_limit_seconds: int | None
    shuffle: bool
    questions: list[QuestionDoc]


@dataclass
class QuizFileDoc:
    deck: str
    quizzes: list[QuizDoc]


@dataclass
class QuizLoadResult:
    deck: str
    quizzes: int = 0
    questions: int = 0
    changed: int = 0
    kept: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        text = (
            f"{self.deck}: {self.quizzes} quizzes, {self.questions} questions, "
            f"{self.changed} new or changed"
        )
        if self.kept:
            text += (
                f"; kept {len(self.kept)} quizzes no longer in the file ({', '.join(self.kept)})"
            )
        return text


def _boolean(r: DocReader, key: str, default: bool | None = None) -> bool:
    value = r.data.get(key, default)
    if not isinstance(value, bool):
        r.fail(f"{key!r} must be true or false, got {value!r}")
    return value


def _texts_unique(r: DocReader, what: str, texts: list[str]) -> None:
    seen = set()
    for text in texts:
        if text in seen:
            r.fail(f"two {what} have the same text {text!r}")
        seen.add(text)


def _sizing_parse(r: DocReader, doc: "QuestionDoc") -> None:
    """A sizing drill's numbers, formula and texts, checked by apps.quizzes.drills (every range
    non-empty, no formula dividing by zero anywhere over the ranges, every name known)."""
    fields = {"given": r.data.get("given"), **{k: r.data.get(k) for k in SIZING_KEYS}}
    if fields["tolerance"] is None:
        r.fail("tolerance: give how far from the answer a learner may be, a share of it"
               " (0.05 for 5%; 0 for an exact count)")  # fmt: skip
    unit = r.text("unit", required=False, max_length=40)
    solution = r.text("solution")
    try:
        drills.sizing_drill(
            given=fields["given"], derived=fields["derived"], formula=fields["formula"],
            tolerance=fields["tolerance"], unit=unit, prompt=doc.prompt, solution=solution,
        )  # fmt: skip
    except drills.DrillError as exc:
        key = exc.field.split("[", 1)[0].split(".", 1)[0]
        raise DrillRefused(r.source, r.entry, str(exc), field=key) from None
    doc.sizing = {
        "given": fields["given"],
        "derived": fields["derived"] or [],
        "formula": str(fields["formula"]).strip(),
        "tolerance": fields["tolerance"],
        "unit": unit,
    }
    doc.solution = solution


def _evidence_parse(r: DocReader) -> dict[str, str]:
    """A debugging drill's scenario: the tool whose output the learner reads, the output, and
    where it came from (a real run, named, or the docs page it was taken from)."""
    e = DocReader(r.source, f"{r.entry} evidence", r.data["evidence"], EVIDENCE_KEYS)
    output = e.data.get("output")
    if not isinstance(output, str) or not output.strip():
        e.fail("'output' is missing or empty: paste what the tool printed")
    if len(output) > EVIDENCE_OUTPUT_MAX:
        e.fail(f"'output' is longer than {EVIDENCE_OUTPUT_MAX} characters: keep what matters")
    return {
        "tool": e.text("tool", max_length=80),
        "output": output.rstrip(),  # leading spaces are part of a table's layout
        "source": e.text("source", max_length=500),
    }


def question_parse(
    source: str, quiz_entry: str, i: int, raw: Any, card_slugs: set[str], quiz_kind: str = ""
):
    """One question entry of a quiz file (also what the author editor and API send), checked
    whole; raises ContentError naming the entry. `quiz_kind` is the kind of its quiz: a sizing
    drill draws its numbers per attempt, so a checkpoint (which has none) cannot hold one."""
    r = DocReader(
        source,
        f"{quiz_entry} questions[{i}]",
        raw,
        QUESTION_KEYS | set(KIND_KEYS.values()) | set(SIZING_KEYS),
    )
    slug = r.slug()
    r.entry = f"{quiz_entry} question {slug!r}"
    kind = r.text("kind")
    if kind not in KIND_KEYS:
        r.fail(f"kind must be one of {', '.join(KIND_KEYS)}, got {kind!r}")
    for other in set(KIND_KEYS.values()) - {KIND_KEYS[kind]}:
        if other in r.data:
            r.fail(f"a {kind} question takes {KIND_KEYS[kind]!r}, not {other!r}")
    if kind != scoring.NUMERIC:
        for other in SIZING_KEYS:
            if other in r.data:
                r.fail(f"a {kind} question takes no {other!r} (a numeric sizing drill does)")
    elif quiz_kind == Quiz.Kind.CHECKPOINT:
        r.fail("a numeric sizing drill draws its numbers per attempt: put it in a knowledge"
               " check, not a checkpoint")  # fmt: skip
    if "evidence" in r.data and kind not in (scoring.SINGLE, scoring.MULTI):
        r.fail("'evidence' (a debugging drill's tool output) goes with a single or multi question")
    points = r.data.get("points", 1)
    if not isinstance(points, int) or isinstance(points, bool) or not 1 <= points <= 100:
        r.fail(f"points must be a whole number from 1 to 100, got {points!r}")
    cards = r.strings("cards")
    if not cards:
        r.fail("list at least one card that teaches this question under 'cards'")
    unknown = [c for c in cards if c not in card_slugs]
    if unknown:
        r.fail(f"card {unknown[0]!r} is not in the deck")
    doc = QuestionDoc(
        slug=slug,
        kind=kind,
        prompt=r.text("prompt"),
        explanation=r.text("explanation"),
        points=points,
        cards=list(dict.fromkeys(cards)),
    )
    if "evidence" in r.data:
        doc.evidence = _evidence_parse(r)
    if kind == scoring.NUMERIC:
        _sizing_parse(r, doc)
        return doc
    items = r.items(KIND_KEYS[kind])
    if kind in (scoring.SINGLE, scoring.MULTI):
        for j, raw_choice in enumerate(items):
            c = DocReader(source, f"{r.entry} choices[{j}]", raw_choice, {"text", "correct"})
            doc.choices.append((c.text("text"), _boolean(c, "correct", False)))
        if len(doc.choices) < 2:
            r.fail("a choice question needs at least 2 choices")
        _texts_unique(r, "choices", [t for t, _ in doc.choices])
        right = sum(1 for _, correct in doc.choices if correct)
        if kind == scoring.SINGLE and right != 1:
            r.fail(f"a single-choice question needs exactly 1 correct choice, has {right}")
        if kind == scoring.MULTI and right < 1:
            r.fail("a select-all question needs at least 1 correct choice")
    elif kind == scoring.TRUE_FALSE:
        for j, raw_statement in enumerate(items):
            s = DocReader(source, f"{r.entry} statements[{j}]", raw_statement, {"text", "answer"})
            doc.statements.append((s.text("text"), _boolean(s, "answer")))
        if not doc.statements:
            r.fail("a true/false question needs at least 1 statement")
        _texts_unique(r, "statements", [t for t, _ in doc.statements])
    else:
        for j, raw_pair in enumerate(items):
            p = DocReader(source, f"{r.entry} pairs[{j}]", raw_pair, {"left", "right"})
            doc.pairs.append((p.text("left"), p.text("right")))
        if len(doc.pairs) < 2:
            r.fail("a matching question needs at least 2 pairs")
        _texts_unique(r, "left items", [left for left, _ in doc.pairs])
        _texts_unique(r, "right items", [right for _, right in doc.pairs])
    return doc


def parse_quiz_file(data: Any, source: str, *, deck: Deck | None = None) -> QuizFileDoc:
    """Validate a quiz file whole against its deck; raises ContentError at the first problem."""
    top = DocReader(source, "", data, {"deck", "quizzes"})
    deck_slug = top.slug("deck")
    if deck is None:
        deck = Deck.objects.filter(slug=deck_slug).first()
    if deck is None:
        top.fail(f"deck {deck_slug!r} is not loaded; add fixtures/decks/{deck_slug}.yaml first")
    section_slugs = set(deck.sections.values_list("slug", flat=True))
    card_slugs = set(card_names(deck))
    quizzes: list[QuizDoc] = []
    seen: set[str] = set()
    raw_quizzes = top.items("quizzes")
    if not raw_quizzes:
        top.fail("'quizzes' is empty")
    for i, raw in enumerate(raw_quizzes):
        r = DocReader(source, f"quizzes[{i}]", raw, QUIZ_KEYS)
        slug = r.slug()
        r.entry = f"quiz {slug!r}"
        if slug in seen:
            r.fail(f"duplicate quiz slug {slug!r}")
        seen.add(slug)
        kind = r.text("kind")
        if kind not in Quiz.Kind.values:
            r.fail(f"kind must be checkpoint or knowledge_check, got {kind!r}")
        section = r.text("section", required=False) or None
        if section is None and kind == Quiz.Kind.CHECKPOINT:
            r.fail("a checkpoint needs the 'section' whose page shows it")
        if section is not None and section not in section_slugs:
            r.fail(f"section {section!r} is not in deck {deck_slug!r}")
        pass_mark = r.data.get("pass_mark", 0.7)
        if isinstance(pass_mark, bool) or not isinstance(pass_mark, (int, float)):
            r.fail(f"pass_mark must be a number from 0 to 1, got {pass_mark!r}")
        if not 0 <= pass_mark <= 1:
            r.fail(f"pass_mark must be from 0 to 1 (a share of the points), got {pass_mark!r}")
        limit = r.data.get("time_limit_seconds")
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or not 10 <= limit <= 86400
        ):
            r.fail(f"time_limit_seconds must be a whole number from 10 to 86400, got {limit!r}")
        questions: list[QuestionDoc] = []
        raw_questions = r.items("questions")
        if not raw_questions:
            r.fail("a quiz needs at least one question")
        for j, raw_question in enumerate(raw_questions):
            question = question_parse(source, r.entry, j, raw_question, card_slugs, kind)
            if any(q.slug == question.slug for q in questions):
                r.fail(f"duplicate question slug {question.slug!r}")
            questions.append(question)
        quizzes.append(
            QuizDoc(
                slug=slug,
                title=r.text("title", max_length=200),
                kind=kind,
                section=section,
                pass_mark=round(float(pass_mark), 2),
                time_limit_seconds=limit,
                shuffle=_boolean(r, "shuffle", True),
                questions=questions,
            )
        )
    taken = dict(
        Quiz.objects.filter(slug__in=seen).exclude(deck=deck).values_list("slug", "deck__slug")
    )
    if taken:
        slug, other = next(iter(taken.items()))
        raise ContentError(
            source, f"quiz {slug!r}", f"the slug is already used by a quiz of deck {other!r}"
        )
    return QuizFileDoc(deck=deck_slug, quizzes=quizzes)


def _sync(rows: dict[str, Any], wanted: list[tuple], make, update) -> bool:
    """Upsert rows keyed by their text; returns whether anything changed."""
    changed = False
    order = list(enumerate(wanted))
    # Create new rows in a random order so not even the database id follows the author's order.
    random.shuffle(order)
    for position, item in order:
        row = rows.pop(item[0], None)
        if row is None:
            make(position, item)
            changed = True
        elif update(row, position, item):
            changed = True
    for row in rows.values():
        row.delete()
        changed = True
    return changed


def question_apply(quiz: Quiz, doc: QuestionDoc, order: int, existing, cards) -> bool:
    """Write one parsed question (`existing`: slug -> Question; `cards`: slug -> card ids);
    choices keep their rows when their text is unchanged. Returns whether anything changed."""
    question = existing.get(doc.slug)
    wanted = {
        "kind": doc.kind,
        "prompt": doc.prompt,
        "explanation": doc.explanation,
        "points": doc.points,
        "order": order,
        "sizing": doc.sizing,
        "solution": doc.solution,
        "evidence": doc.evidence,
    }
    changed = question is None or any(getattr(question, k) != v for k, v in wanted.items())
    if question is None:
        question = Question(quiz=quiz, slug=doc.slug)
    if changed:
        for k, v in wanted.items():
            setattr(question, k, v)
        question.save()
    card_ids = list(dict.fromkeys(pk for slug in doc.cards for pk in cards[slug]))
    if {c.pk for c in question.cards.all()} != set(card_ids):
        question.cards.set(card_ids)
        changed = True

    def field_update(row, fields: dict) -> bool:
        if all(getattr(row, k) == v for k, v in fields.items()):
            return False
        for k, v in fields.items():
            setattr(row, k, v)
        row.save()
        return True

    if doc.kind in (scoring.SINGLE, scoring.MULTI):
        changed |= _sync(
            {c.text: c for c in question.choices.all()},
            doc.choices,
            lambda i, item: Choice.objects.create(
                question=question, text=item[0], correct=item[1], order=i
            ),
            lambda row, i, item: field_update(row, {"correct": item[1], "order": i}),
        )
    else:
        changed |= bool(question.choices.all().delete()[0])
    if doc.kind == scoring.TRUE_FALSE:
        changed |= _sync(
            {s.text: s for s in question.statements.all()},
            doc.statements,
            lambda i, item: Statement.objects.create(
                question=question, text=item[0], answer=item[1], order=i
            ),
            lambda row, i, item: field_update(row, {"answer": item[1], "order": i}),
        )
    else:
        changed |= bool(question.statements.all().delete()[0])
    if doc.kind == scoring.MATCH:
        changed |= _sync(
            {p.left: p for p in question.pairs.all()},
            doc.pairs,
            lambda i, item: MatchPair.objects.create(
                question=question, left=item[0], right=item[1], order=i
            ),
            lambda row, i, item: field_update(row, {"right": item[1], "order": i}),
        )
    else:
        changed |= bool(question.pairs.all().delete()[0])
    return changed


@transaction.atomic
def quizzes_apply(doc: QuizFileDoc) -> QuizLoadResult:
    """Upsert every quiz and question by slug. Quizzes missing from the file are kept (their
    attempts are someone's history) and reported; questions missing from a quiz are removed."""
    deck = Deck.objects.get(slug=doc.deck)
    result = QuizLoadResult(deck=doc.deck)
    sections = {s.slug: s for s in deck.sections.all()}
    cards = card_names(deck)
    existing_quizzes = {q.slug: q for q in deck.quizzes.all()}
    for order, quiz_doc in enumerate(doc.quizzes):
        quiz = existing_quizzes.pop(quiz_doc.slug, None) or Quiz(deck=deck, slug=quiz_doc.slug)
        wanted = {
            "title": quiz_doc.title,
            "kind": quiz_doc.kind,
            "section": sections.get(quiz_doc.section) if quiz_doc.section else None,
            "pass_mark": quiz_doc.pass_mark,
            "time_limit_seconds": quiz_doc.time_limit_seconds,
            "shuffle": quiz_doc.shuffle,
            "order": order,
        }
        if (
            quiz.pk is None
            or any(getattr(quiz, k) != v for k, v in wanted.items() if k != "pass_mark")
            or float(quiz.pass_mark) != quiz_doc.pass_mark
        ):
            for k, v in wanted.items():
                setattr(quiz, k, v)
            quiz.save()
            result.changed += 1
        existing = {
            q.slug: q
            for q in quiz.questions.prefetch_related("cards", "choices", "statements", "pairs")
        }
        for q_order, question_doc in enumerate(quiz_doc.questions):
            if question_apply(quiz, question_doc, q_order, existing, cards):
                result.changed += 1
            existing.pop(question_doc.slug, None)
        for stale in existing.values():
            stale.delete()
            result.changed += 1
        result.quizzes += 1
        result.questions += len(quiz_doc.questions)
    result.kept = sorted(existing_quizzes)
    return result


def quiz_file_load(path: Path) -> QuizLoadResult:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ContentError(source, "", f"cannot read file ({exc})") from None
    return quizzes_apply(parse_quiz_file(read_yaml(text, source), source))
