"""The content lint: the tells that let a learner pass a quiz without knowing the subject, and
the card rules of the deck format, measured over a deck document and its quiz documents (the
dicts of fixtures/decks/*.yaml and fixtures/quizzes/*.yaml, or of an author's import).

Pure: no Django. `content_lint(deck, quiz_files, demo_files)` returns the figures (`Figures`)
and the findings (`Finding`, each naming the card, question or quiz and what breaks which rule). The
suite runs it over the shipped files and fails on any finding; the author's import preview
shows the findings for an imported deck as warnings; `manage.py content_report` prints them.

Gaming strategies are scored as a quiz would score them (apps.quizzes.scoring's rules: single
1 or 0, multi max(0, (right - wrong) / rights), true/false and matching by the share right), a
question the strategy cannot answer scoring 0, weighted by points: over every question of every
quiz, and over each knowledge check (the scored quizzes; a checkpoint is one guided exercise,
where balanced true/false items alone give "everything true" half the points). Each must stay
under STRATEGY_LIMIT.
"""

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from apps.decks.markdown import ClozeError, cloze_indices, cloze_text

ANSWER_WORDS_MAX = 40
TRUE_SHARE = (0.4, 0.6)
STRATEGY_LIMIT = 0.4
# The right option may be the longest in about 1 in k single-choice questions (k options),
# as chance would have it; this much above that expectation is a tell.
LONGEST_SLACK = 1.25
# Absolute words: their rate in true and in false items may differ by this much at most
# (when at least ABSOLUTE_MIN_ITEMS items carry one at all).
ABSOLUTE_GAP = 0.15
ABSOLUTE_MIN_ITEMS = 3
ABSOLUTE_WORDS = (
    "always", "never", "any", "only", "all", "none", "immune", "freely", "guaranteed",
    "guarantees", "guarantee", "every", "entirely", "completely", "impossible", "solely",
    "exclusively", "instantly", "unlimited", "nothing",
)  # fmt: skip
_ABSOLUTE_RE = re.compile(r"\b(" + "|".join(ABSOLUTE_WORDS) + r")\b", re.IGNORECASE)
_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'_-]*")
_STOP = {
    "a", "an", "the", "of", "to", "in", "on", "and", "or", "is", "are", "be", "by", "for", "with",
    "as", "at", "it", "its", "that", "this", "from", "which", "what", "when", "how", "why", "who",
    "does", "do", "can", "not", "no", "into", "than", "then", "their", "them", "they", "each",
    "one",
}  # fmt: skip
STRATEGIES = ("all_true", "longest", "prompt_words")
STRATEGY_NAMES = {
    "all_true": "mark everything true",
    "longest": "always pick the longest option",
    "prompt_words": "pick the option sharing most words with the prompt",
}


@dataclass(frozen=True)
class Finding:
    rule: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class Figures:
    notes: int = 0
    cards: int = 0
    cloze_items: int = 0
    questions: Counter[str] = field(default_factory=Counter)
    statements: int = 0
    true_statements: int = 0
    single_choice: int = 0
    longest_right: float = 0.0  # single-choice questions whose right option is the longest
    longest_expected: float = 0.0  # how many chance would give (sum of 1/k)
    strategy_scores: dict[str, float] = field(default_factory=dict)
    # Each strategy's best knowledge check: name -> (score, quiz slug).
    strategy_worst: dict[str, tuple[float, str]] = field(default_factory=dict)

    @property
    def true_share(self) -> float | None:
        return self.true_statements / self.statements if self.statements else None

    @property
    def longest_right_share(self) -> float | None:
        return self.longest_right / self.single_choice if self.single_choice else None

    def lines(self) -> list[str]:
        def pct(value: float | None) -> str:
            return "n/a" if value is None else f"{value:.0%}"

        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.questions.items())) or "none"
        out = [
            f"cards: {self.cards} scheduled ({self.notes} notes, {self.cloze_items} cloze items)",
            f"questions: {sum(self.questions.values())} ({kinds})",
            f"true/false statements: {self.statements}, true share {pct(self.true_share)}",
            f"single choice: {self.single_choice}, right option the longest in"
            f" {self.longest_right:g} ({pct(self.longest_right_share)}; chance"
            f" {self.longest_expected:.1f})",
        ]
        for name in STRATEGIES:
            line = f"strategy '{STRATEGY_NAMES[name]}': {pct(self.strategy_scores.get(name))}"
            if name in self.strategy_worst:
                score, quiz = self.strategy_worst[name]
                line += f" overall, at most {pct(score)} in a knowledge check ({quiz})"
            out.append(line)
        return out


@dataclass
class LintReport:
    figures: Figures
    findings: list[Finding]

    @property
    def ok(self) -> bool:
        return not self.findings


def prose_words(markdown: str) -> int:
    """Words of prose: fenced code blocks are left out, inline code counts as one word."""
    return len(_WORD_RE.findall(_FENCE_RE.sub(" ", markdown or "")))


def absolute_words(text: str) -> list[str]:
    return [m.lower() for m in _ABSOLUTE_RE.findall(text or "")]


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD_RE.findall(text or "")} - _STOP


def _note_cards(card: dict[str, Any]) -> list[str]:
    slug, kind = card.get("slug", "?"), card.get("kind") or "basic"
    if kind == "cloze":
        try:
            return [f"{slug}-c{n}" for n in cloze_indices(card.get("front") or "")]
        except ClozeError:
            return []
    if kind == "reverse":
        return [slug, f"{slug}-reverse"]
    return [slug]


def _lint_cards(deck: dict[str, Any], figures: Figures, findings: list[Finding]) -> set[str]:
    names: set[str] = set()
    for section in deck.get("sections") or []:
        for card in section.get("cards") or []:
            slug, kind = card.get("slug", "?"), card.get("kind") or "basic"
            where = f"card {slug!r}"
            made = _note_cards(card)
            figures.notes += 1
            figures.cards += len(made)
            if kind == "cloze":
                figures.cloze_items += len(made)
            names.update(made)
            names.add(slug)
            answer = card.get("back") or ""
            words = prose_words(answer)
            if words > ANSWER_WORDS_MAX:
                findings.append(
                    Finding(
                        "answer-length", where,
                        f"the answer has {words} words of prose (at most {ANSWER_WORDS_MAX},"
                        " code blocks aside): one fact per card, or a cloze",
                    )
                )  # fmt: skip
            if not str(card.get("source") or "").strip():
                findings.append(
                    Finding(
                        "source",
                        where,
                        "no source (a paper and its section, or a Ray docs"
                        " page and the Ray version)",
                    )  # fmt: skip
                )
            front = cloze_text(card.get("front") or "")
            if "what defines" in front.lower():
                findings.append(
                    Finding("what-defines", where, "a 'What defines ...?' prompt; ask for one fact")
                )
    return names


def _choice_scores(question: dict[str, Any]) -> dict[str, float]:
    """Each strategy's fraction on a single or multi choice question."""
    choices = question.get("choices") or []
    if not choices:
        return {}
    rights = sum(1 for c in choices if c.get("correct"))
    prompt = _words(question.get("prompt", ""))

    def scored(picks: list[float]) -> float:
        """picks: the weight given to each choice (ties split a pick between them)."""
        if question.get("kind") == "single":
            return sum(w for w, c in zip(picks, choices, strict=True) if c.get("correct"))
        right = sum(w for w, c in zip(picks, choices, strict=True) if c.get("correct"))
        wrong = sum(w for w, c in zip(picks, choices, strict=True) if not c.get("correct"))
        return max(0.0, (right - wrong) / rights) if rights else 0.0

    def pick_best(values: list[float]) -> list[float]:
        top = max(values)
        tied = [v == top for v in values]
        return [1 / sum(tied) if t else 0.0 for t in tied]

    scores = {
        "longest": scored(pick_best([len(str(c.get("text", ""))) for c in choices])),
        "prompt_words": scored(
            pick_best([len(_words(str(c.get("text", ""))) & prompt) for c in choices])
        ),
    }
    if question.get("kind") == "multi":
        scores["all_true"] = scored([1.0] * len(choices))
    return scores


def _match_score(question: dict[str, Any]) -> float:
    """Pairing each left item with the unused right item sharing most words with it."""
    pairs = question.get("pairs") or []
    rights = [str(p.get("right", "")) for p in pairs]
    free = list(range(len(rights)))
    hits = 0
    for i, pair in enumerate(pairs):
        left = _words(str(pair.get("left", "")))
        if not free:
            break
        best = max(free, key=lambda j: (len(left & _words(rights[j])), -j))
        if len(left & _words(rights[best])) == 0:
            continue  # nothing to go on: no pick
        free.remove(best)
        hits += best == i
    return hits / len(pairs) if pairs else 0.0


def _absolute_check(
    where: str, what: str, true_items: list[str], false_items: list[str], findings: list[Finding]
) -> None:
    true_abs = sum(1 for t in true_items if absolute_words(t))
    false_abs = sum(1 for t in false_items if absolute_words(t))
    if true_abs + false_abs < ABSOLUTE_MIN_ITEMS or not true_items or not false_items:
        return
    rate_true, rate_false = true_abs / len(true_items), false_abs / len(false_items)
    if abs(rate_true - rate_false) > ABSOLUTE_GAP:
        findings.append(
            Finding(
                "absolute-words", where,
                f"absolute words (always, never, only...) in {rate_false:.0%} of false {what}"
                f" but {rate_true:.0%} of true ones: make them as common in both, or drop them",
            )
        )  # fmt: skip


def content_lint(
    deck: dict[str, Any],
    quiz_files: Sequence[dict[str, Any]],
    demo_files: Sequence[dict[str, Any]] = (),
) -> LintReport:
    figures, findings = Figures(), list[Finding]()
    names = _lint_cards(deck, figures, findings)
    for demo_file in demo_files:
        for demo, slugs in (demo_file.get("links") or {}).items():
            for slug in [s for s in slugs or [] if s not in names][:1]:
                findings.append(Finding("links", f"demo {demo!r}", f"links unknown card {slug!r}"))
    section_quizzes: dict[str, set[str]] = {
        s.get("slug"): set() for s in deck.get("sections") or []
    }
    earned = dict.fromkeys(STRATEGIES, 0.0)
    total_points = 0.0
    all_true_items, all_false_items, right_choices, wrong_choices = [], [], [], []
    for quiz_file in quiz_files:
        for quiz in quiz_file.get("quizzes") or []:
            quiz_where = f"quiz {quiz.get('slug')!r}"
            if quiz.get("section") in section_quizzes:
                section_quizzes[quiz["section"]].add(quiz.get("kind"))
            quiz_true = quiz_statements = 0
            quiz_earned, quiz_points = dict.fromkeys(STRATEGIES, 0.0), 0.0
            for question in quiz.get("questions") or []:
                where = f"{quiz_where} question {question.get('slug')!r}"
                kind = question.get("kind")
                points = float(question.get("points") or 1)
                total_points += points
                quiz_points += points
                figures.questions[kind] += 1
                linked = question.get("cards") or []
                missing = [c for c in linked if c not in names]
                if not linked:
                    findings.append(Finding("links", where, "links no card that teaches it"))
                elif missing:
                    findings.append(Finding("links", where, f"links unknown card {missing[0]!r}"))
                if "what defines" in str(question.get("prompt", "")).lower():
                    findings.append(Finding("what-defines", where, "a 'What defines ...?' prompt"))
                scores: dict[str, float] = {}
                if kind in ("single", "multi"):
                    scores = _choice_scores(question)
                    choices = question.get("choices") or []
                    right_choices += [str(c.get("text", "")) for c in choices if c.get("correct")]
                    wrong_choices += [
                        str(c.get("text", "")) for c in choices if not c.get("correct")
                    ]
                    if kind == "single" and choices:
                        figures.single_choice += 1
                        figures.longest_expected += 1 / len(choices)
                        figures.longest_right += scores["longest"]
                elif kind == "true_false":
                    statements = question.get("statements") or []
                    trues = [s for s in statements if s.get("answer") is True]
                    quiz_true += len(trues)
                    quiz_statements += len(statements)
                    all_true_items += [str(s.get("text", "")) for s in trues]
                    all_false_items += [
                        str(s.get("text", "")) for s in statements if s.get("answer") is not True
                    ]
                    if statements:
                        scores["all_true"] = len(trues) / len(statements)
                elif kind == "match":
                    scores["prompt_words"] = _match_score(question)
                for name in STRATEGIES:
                    earned[name] += points * scores.get(name, 0.0)
                    quiz_earned[name] += points * scores.get(name, 0.0)
            if quiz.get("kind") == "knowledge_check" and quiz_points:
                for name in STRATEGIES:
                    score = quiz_earned[name] / quiz_points
                    if score > figures.strategy_worst.get(name, (-1.0, ""))[0]:
                        figures.strategy_worst[name] = (score, str(quiz.get("slug")))
                    if score >= STRATEGY_LIMIT:
                        findings.append(
                            Finding(
                                "strategy", quiz_where,
                                f"'{STRATEGY_NAMES[name]}' scores {score:.0%} (must stay under"
                                f" {STRATEGY_LIMIT:.0%})",
                            )
                        )  # fmt: skip
            figures.statements += quiz_statements
            figures.true_statements += quiz_true
            if quiz_statements:
                share = quiz_true / quiz_statements
                if not TRUE_SHARE[0] <= share <= TRUE_SHARE[1]:
                    findings.append(
                        Finding(
                            "true-share", quiz_where,
                            f"{quiz_true} of {quiz_statements} true/false statements are true"
                            f" ({share:.0%}); keep it between 40% and 60%",
                        )
                    )  # fmt: skip
    overall = figures.true_share  # None exactly when there are no statements
    if overall is not None and not TRUE_SHARE[0] <= overall <= TRUE_SHARE[1]:
        findings.append(
            Finding(
                "true-share", "all quizzes",
                f"{figures.true_statements} of {figures.statements} statements are true"
                f" ({overall:.0%}); keep it between 40% and 60%",
            )
        )  # fmt: skip
    _absolute_check("all quizzes", "statements", all_true_items, all_false_items, findings)
    _absolute_check("all quizzes", "choices", right_choices, wrong_choices, findings)
    if figures.single_choice and figures.longest_right > LONGEST_SLACK * max(
        figures.longest_expected, 1.0
    ):
        findings.append(
            Finding(
                "longest-right", "all quizzes",
                f"the right option is the longest in {figures.longest_right:g} of"
                f" {figures.single_choice} single-choice questions (chance:"
                f" {figures.longest_expected:.1f}); lengthen distractors or trim right answers",
            )
        )  # fmt: skip
    for name in STRATEGIES:
        score = earned[name] / total_points if total_points else 0.0
        figures.strategy_scores[name] = score
        if score >= STRATEGY_LIMIT:
            findings.append(
                Finding(
                    "strategy", "all quizzes",
                    f"'{STRATEGY_NAMES[name]}' scores {score:.0%} (must stay under"
                    f" {STRATEGY_LIMIT:.0%})",
                )
            )  # fmt: skip
    if quiz_files:
        for section, kinds in section_quizzes.items():
            for needed, label in (("checkpoint", "guided checkpoint"),
                                  ("knowledge_check", "knowledge check")):  # fmt: skip
                if needed not in kinds:
                    findings.append(Finding("section-quizzes", f"section {section!r}",
                                            f"has no {label}"))  # fmt: skip
    return LintReport(figures, findings)


def lint_documents(deck: Any, quiz_files: list[Any]) -> LintReport:
    """content_lint over whatever was read (a malformed document gives findings, not errors)."""
    if not isinstance(deck, dict):
        return LintReport(Figures(), [Finding("document", "deck", "not a deck document")])
    return content_lint(deck, [q for q in quiz_files if isinstance(q, dict)])
