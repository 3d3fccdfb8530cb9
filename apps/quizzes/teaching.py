"""Teaching quality, measured over a deck document and its quiz documents (pure: no Django).

The content lint (apps.quizzes.lint) finds tells and broken rules; this module measures how
well the deck teaches, as `manage.py content_report` prints it beside each target:

- cards whose answer holds more than one fact: a basic or reverse answer (code blocks and the
  "why" aside) with more than one sentence, a list, or clauses joined by a semicolon (a short
  caption before a code block and a bare "Yes."/"No." verdict are no facts of their own); a cloze
  card whose deletion is itself a list ("a, b and c");
- cloze cards whose answer the card itself gives away: the deletion appears in the text the
  card shows (another deletion, a hint, the rest of the sentence), it is an acronym spelled
  out in the parentheses beside it, or it is one of a set of percentages that add up to 100;
- deletions longer than DELETION_WORDS_MAX words;
- candidate near-duplicates: notes whose front and back share at least DUPLICATE_SHARE of
  their content words (Jaccard), joined transitively, for a person to read (word overlap finds
  related cards as well as duplicates, and misses duplicates phrased apart);
- reverse notes (a term and its definition both recalled);
- for quizzes: the score of each length strategy (the longest, second-longest, shortest or
  second-shortest option of single and multi-choice questions, as scored by
  apps.quizzes.scoring's rules), overall and in the worst knowledge check (positions are
  shuffled per attempt, so a strategy by position scores chance); the rate of absolute
  words in true and in false items; and quiz prompts identical to a card front.

These are heuristics: a figure that meets its target is where to stop looking, not proof. The
blind reader (someone who has not studied answers every question without the deck) is the
measure no heuristic replaces; `blind_packet` writes what to give them and `blind_scores`
scores their answers per quiz.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from apps.decks.cloze import Cloze, cloze_replace, clozes

from . import scoring
from .lint import STRATEGY_LIMIT, absolute_words

MULTI_FACT_MAX = 0.10
DELETION_WORDS_MAX = 6
DUPLICATE_SHARE = 0.3
POSITION_STRATEGY_MAX = 0.30
BLIND_MAX = 0.15

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`]*`")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'_.-]*")
_SENTENCE_END = re.compile(r"(?<![0-9A-Z][a-z]\.)(?<!e\.g)(?<!i\.e)(?<!vs)[.!?](?:\s+|$)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+\S", re.MULTILINE)
_STOP = {
    "a", "an", "the", "of", "to", "in", "on", "and", "or", "is", "are", "be", "by", "for", "with",
    "as", "at", "it", "its", "that", "this", "from", "which", "what", "when", "how", "why", "who",
    "does", "do", "can", "not", "no", "into", "than", "then", "their", "them", "they", "each",
    "one", "you", "your", "if", "so", "but", "was", "were", "has", "have", "more", "most",
}  # fmt: skip
# Options are shown in a per-attempt shuffle (knowledge checks) or in the order of their random
# public keys (checkpoints), so a strategy by position scores chance; these go by length.
POSITION_STRATEGIES = {
    "longest": "pick the longest option",
    "second_longest": "pick the second-longest option",
    "shortest": "pick the shortest option",
    "second_shortest": "pick the second-shortest option",
}


def _prose(markdown: str) -> str:
    return _INLINE_CODE.sub(" code ", _FENCE.sub(" ", markdown or ""))


def _content_words(text: str) -> set[str]:
    return {w.lower().strip(".") for w in _WORD.findall(_prose(text))} - _STOP


def sentences(text: str) -> int:
    """Sentences of prose: code aside, an abbreviation's dot is no end."""
    prose = " ".join(_prose(text).split())
    if not prose:
        return 0
    parts = [p for p in _SENTENCE_END.split(prose) if _WORD.search(p)]
    return max(1, len(parts))


# What is no fact of its own: a few words ending in a colon right before a code block ("In
# RLlib:") introduce the example, and a bare "Yes." or "No." opening an answer is the verdict the
# next sentence states (counted, "No. Small results travel inline." would be two facts).
_CAPTION = re.compile(r"(?:(?<=[.!?])\s+|^)(?:[^\s.!?:]+ ){0,3}[^\s.!?:]+:\s*(?=```)", re.MULTILINE)
_VERDICT = re.compile(r"^\s*(?:Yes|No)[.!]\s+(?=\S)", re.IGNORECASE)


def answer_facts(back: str) -> int:
    """How many facts an answer appears to hold: sentences, list items and semicolon clauses,
    leaving out a code block's caption and a bare yes/no verdict."""
    prose = _prose(_VERDICT.sub("", _CAPTION.sub(" ", back or "")))
    items = len(_LIST_ITEM.findall(prose))
    if items >= 2:
        return items
    return sentences(prose) + prose.count(";")


def _is_list(text: str) -> bool:
    words = _WORD.findall(text)
    return len(words) >= 3 and (text.count(",") >= 1 and " and " in f" {text} ") or ";" in text


@dataclass
class TeachingFigures:
    cards: int = 0
    multi_fact: list[str] = field(default_factory=list)
    cloze_cards: int = 0
    self_answering: list[str] = field(default_factory=list)
    long_deletions: list[str] = field(default_factory=list)
    duplicate_groups: list[list[str]] = field(default_factory=list)
    reverse_notes: list[str] = field(default_factory=list)
    # strategy -> (score over all scored questions, worst knowledge check score, its slug)
    strategies: dict[str, tuple[float, float, str]] = field(default_factory=dict)
    absolute_true: tuple[int, int] = (0, 0)  # items with an absolute word, items
    absolute_false: tuple[int, int] = (0, 0)
    prompt_is_front: list[str] = field(default_factory=list)
    blind: dict[str, float] | None = None  # quiz slug -> the blind reader's share

    @property
    def multi_fact_share(self) -> float:
        return len(self.multi_fact) / self.cards if self.cards else 0.0

    def lines(self) -> list[str]:
        def ok(good: bool) -> str:
            return "meets target" if good else "MISSES target"

        def pct(x: float) -> str:
            return f"{x:.0%}"

        worst = max(self.strategies.items(), key=lambda kv: kv[1][1], default=None)
        at, af = self.absolute_true, self.absolute_false
        rate_t = at[0] / at[1] if at[1] else 0.0
        rate_f = af[0] / af[1] if af[1] else 0.0
        out = [
            f"cards holding more than one fact: {len(self.multi_fact)} of {self.cards}"
            f" ({pct(self.multi_fact_share)}; target at most {pct(MULTI_FACT_MAX)}:"
            f" {ok(self.multi_fact_share <= MULTI_FACT_MAX)})",
            f"cloze cards answered by their own text: {len(self.self_answering)} of"
            f" {self.cloze_cards} (target 0: {ok(not self.self_answering)})",
            f"deletions over {DELETION_WORDS_MAX} words: {len(self.long_deletions)} (target 0:"
            f" {ok(not self.long_deletions)})",
            f"near-duplicate candidates (content words {DUPLICATE_SHARE:.0%} shared):"
            f" {len(self.duplicate_groups)} group(s) to read"
            + "".join(f"; {' + '.join(g)}" for g in self.duplicate_groups),
            f"reverse notes: {len(self.reverse_notes)} (target: some, where a term and its"
            f" definition both deserve recall: {ok(bool(self.reverse_notes))})",
        ]
        for name, (overall, worst_score, slug) in self.strategies.items():
            out.append(
                f"position/length strategy '{POSITION_STRATEGIES[name]}': {pct(overall)} overall,"
                f" at most {pct(worst_score)} in a knowledge check ({slug})"
            )
        if worst is not None:
            out.append(
                f"worst position/length strategy: {pct(worst[1][1])} (target at most"
                f" {pct(POSITION_STRATEGY_MAX)}: {ok(worst[1][1] <= POSITION_STRATEGY_MAX)})"
            )
        out += [
            f"absolute words: in {pct(rate_f)} of false items ({af[0]} of {af[1]}), in"
            f" {pct(rate_t)} of true items ({at[0]} of {at[1]}) (target: no more common in"
            f" false: {ok(rate_f <= rate_t)})",
            f"quiz prompts identical to a card front: {len(self.prompt_is_front)} (target 0:"
            f" {ok(not self.prompt_is_front)})",
        ]
        if self.blind is None:
            out.append(
                "blind reader: not measured here (manage.py content_report --blind-packet FILE,"
                " then --blind-answers FILE); target at most 15% per quiz"
            )
        else:
            for slug, share in sorted(self.blind.items()):
                out.append(f"blind reader, {slug}: {pct(share)} ({ok(share <= BLIND_MAX)})")
        return out


def _cloze_cards(slug: str, front: str) -> Iterable[tuple[str, str, str]]:
    """(card slug, its deletions' text, the text the card shows) per deletion index."""
    deletions = list(clozes(front))
    for index in sorted({c.index for c in deletions}):
        hidden = " ".join(c.answer for c in deletions if c.index == index)

        def shown(c: Cloze, index: int = index) -> str:
            return (c.hint or " ") if c.index == index else c.answer

        yield f"{slug}-c{index}", hidden, cloze_replace(front, shown)


_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")


def _acronym_spelled_out(front: str, deletion: str) -> bool:
    """An acronym deletion followed by its own expansion in parentheses: {{c1::BC}} (behaviour
    cloning) spells the answer out."""
    letters = re.sub(r"[^A-Za-z]", "", deletion)
    if not (2 <= len(letters) <= 6 and letters.isupper()):
        return False
    after = front.split(deletion + "}}", 1)[-1].lstrip()
    match = re.match(r"\(([^)]*)\)", after)
    if not match:
        return False
    initials = "".join(w[0] for w in re.findall(r"[A-Za-z]+", match.group(1))).upper()
    return letters in initials or initials.startswith(letters[:2])


def _cloze_words(text: str) -> set[str]:
    """Content words, inline code kept as the words it spells (a name is an answer too)."""
    return {w.lower().strip(".") for w in _WORD.findall(text.replace("`", " "))} - _STOP


def self_answering(front: str, slug: str) -> list[str]:
    found = []
    deletions = list(clozes(front))
    percents = [float(m.group(1)) for m in (_PERCENT.match(c.answer) for c in deletions) if m]
    sums_to_100 = len(percents) == len(deletions) >= 2 and abs(sum(percents) - 100) < 0.5
    for card, hidden, shown in _cloze_cards(slug, front):
        words, shown_words = _cloze_words(hidden), _cloze_words(shown)
        whole = re.search(rf"(?<![\w]){re.escape(hidden.strip())}(?![\w])", shown, re.I)
        given = bool(whole) or bool(words and words <= shown_words)
        if given or sums_to_100 or _acronym_spelled_out(front, hidden):
            found.append(card)
    return found


def _notes(deck: Mapping) -> Iterable[dict]:
    for section in deck.get("sections") or []:
        yield from section.get("cards") or []


def card_figures(deck: Mapping, figures: TeachingFigures) -> None:
    words: dict[str, set[str]] = {}
    for note in _notes(deck):
        slug, kind = note.get("slug", "?"), note.get("kind") or "basic"
        front = str(note.get("front") or "")
        if kind == "cloze":
            for card, hidden, _ in _cloze_cards(slug, front):
                figures.cards += 1
                figures.cloze_cards += 1
                if _is_list(hidden):
                    figures.multi_fact.append(card)
                if len(_WORD.findall(_prose(hidden))) > DELETION_WORDS_MAX:
                    figures.long_deletions.append(card)
            figures.self_answering += self_answering(front, slug)
            words[slug] = _content_words(cloze_replace(front, lambda c: c.answer))
            continue
        made = 2 if kind == "reverse" else 1
        figures.cards += made
        if kind == "reverse":
            figures.reverse_notes.append(slug)
        if answer_facts(str(note.get("back") or "")) > 1:
            figures.multi_fact += [slug] * made
        words[slug] = _content_words(front) | _content_words(str(note.get("back") or ""))
    figures.duplicate_groups = duplicate_groups(words)


def duplicate_groups(words: Mapping[str, set[str]], share: float = DUPLICATE_SHARE):
    """Notes whose content words overlap by at least `share` (Jaccard), joined transitively."""
    slugs = [s for s in words if len(words[s]) >= 4]
    parent = {s: s for s in slugs}

    def root(s: str) -> str:
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for i, a in enumerate(slugs):
        for b in slugs[i + 1 :]:
            union = words[a] | words[b]
            if union and len(words[a] & words[b]) / len(union) >= share:
                parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for s in slugs:
        groups.setdefault(root(s), []).append(s)
    return sorted((sorted(g) for g in groups.values() if len(g) > 1), key=lambda g: g[0])


def _ranked(choices: list[dict], name: str) -> list[float]:
    """Weights of the option each strategy picks (ties share the pick)."""
    n = len(choices)
    lengths = [len(str(c.get("text", ""))) for c in choices]
    order = sorted(set(lengths), reverse=name in ("longest", "second_longest"))
    rank = 0 if name in ("longest", "shortest") else 1
    if rank >= len(order):
        return [0.0] * n
    target = order[rank]
    tied = [length == target for length in lengths]
    return [1 / sum(tied) if t else 0.0 for t in tied]


def _strategy_score(question: Mapping, name: str) -> float:
    choices = list(question.get("choices") or [])
    if len(choices) < 2:
        return 0.0
    picks = _ranked(choices, name)
    right = [bool(c.get("correct")) for c in choices]
    if question.get("kind") == scoring.SINGLE:
        return sum(w for w, r in zip(picks, right, strict=True) if r)
    rights = sum(right)
    good = sum(w for w, r in zip(picks, right, strict=True) if r)
    bad = sum(w for w, r in zip(picks, right, strict=True) if not r)
    return max(0.0, (good - bad) / rights) if rights else 0.0


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[*_`]", "", cloze_replace(text, lambda c: c.answer)).lower().split())


def quiz_figures(deck: Mapping, quiz_files: Sequence[Mapping], figures: TeachingFigures) -> None:
    fronts = {_normal(str(n.get("front") or "")) for n in _notes(deck)}
    totals = dict.fromkeys(POSITION_STRATEGIES, 0.0)
    worst = dict.fromkeys(POSITION_STRATEGIES, (0.0, ""))
    points_all = 0.0
    abs_true = abs_false = n_true = n_false = 0
    for quiz_file in quiz_files:
        for quiz in quiz_file.get("quizzes") or []:
            earned, points = dict.fromkeys(POSITION_STRATEGIES, 0.0), 0.0
            for question in quiz.get("questions") or []:
                weight = float(question.get("points") or 1)
                points += weight
                if _normal(str(question.get("prompt") or "")) in fronts:
                    figures.prompt_is_front.append(f"{quiz.get('slug')}/{question.get('slug')}")
                kind = question.get("kind")
                if kind in (scoring.SINGLE, scoring.MULTI):
                    for name in POSITION_STRATEGIES:
                        earned[name] += weight * _strategy_score(question, name)
                    items = [(c.get("text"), bool(c.get("correct"))) for c in question["choices"]]
                elif kind == scoring.TRUE_FALSE:
                    items = [
                        (s.get("text"), s.get("answer") is True) for s in question["statements"]
                    ]
                else:
                    items = []
                for text, truth in items:
                    has = bool(absolute_words(str(text or "")))
                    if truth:
                        n_true, abs_true = n_true + 1, abs_true + has
                    else:
                        n_false, abs_false = n_false + 1, abs_false + has
            points_all += points
            for name in POSITION_STRATEGIES:
                totals[name] += earned[name]
                if quiz.get("kind") == "knowledge_check" and points:
                    share = earned[name] / points
                    if share > worst[name][0]:
                        worst[name] = (share, str(quiz.get("slug")))
    figures.strategies = {
        name: (totals[name] / points_all if points_all else 0.0, *worst[name])
        for name in POSITION_STRATEGIES
    }
    figures.absolute_true, figures.absolute_false = (abs_true, n_true), (abs_false, n_false)


def teaching_figures(deck: Mapping, quiz_files: Sequence[Mapping]) -> TeachingFigures:
    figures = TeachingFigures()
    card_figures(deck, figures)
    quiz_figures(deck, quiz_files, figures)
    return figures


# The blind reader ---------------------------------------------------------------------------


def blind_packet(quiz_files: Sequence[Mapping], *, seed: int = 0) -> dict[str, Any]:
    """Every scored question without its answers, explanations or cards, options shuffled, for
    a reader who has not seen the deck. Sizing drills get one fixed draw, written out."""
    from .drills import fill, sizing_drill

    rng = random.Random(seed)
    quizzes = []
    for quiz_file in quiz_files:
        for quiz in quiz_file.get("quizzes") or []:
            questions = []
            for question in quiz.get("questions") or []:
                shown: dict[str, Any] = {"slug": question["slug"], "kind": question["kind"]}
                prompt = str(question.get("prompt") or "")
                if question["kind"] == scoring.NUMERIC:
                    fields = {k: question.get(k) for k in ("given", "derived", "formula")}
                    drill = sizing_drill(**fields, tolerance=question.get("tolerance", 0))
                    prompt = fill(prompt, drill.draw(seed, question["slug"]).given)
                    shown["unit"] = question.get("unit", "")
                shown["prompt"] = prompt
                if question.get("evidence"):
                    shown["evidence"] = question["evidence"]["output"]
                for part, key in (("choices", "text"), ("statements", "text")):
                    if question.get(part):
                        texts = [item[key] for item in question[part]]
                        rng.shuffle(texts)
                        shown[part] = texts
                if question.get("pairs"):
                    lefts = [p["left"] for p in question["pairs"]]
                    rights = [p["right"] for p in question["pairs"]]
                    rng.shuffle(rights)
                    shown["left"], shown["right"] = lefts, rights
                questions.append(shown)
            quizzes.append({"slug": quiz["slug"], "kind": quiz.get("kind"), "questions": questions})
    return {
        "instructions": "Answer every question without looking anything up. single: the text of"
        " one choice; multi: a list of choice texts; true_false: {statement text: true|false};"
        " match: {left text: right text}; numeric: a number.",
        "quizzes": quizzes,
    }


def blind_scores(
    quiz_files: Sequence[Mapping], answers: Mapping[str, Mapping[str, Any]], *, seed=0
):
    """The blind reader's share of the points per quiz, scored as a quiz is scored. `answers` is
    {quiz slug: {question slug: answer}}, an answer written with the texts of the packet."""
    from .drills import sizing_drill

    shares: dict[str, float] = {}
    for quiz_file in quiz_files:
        for quiz in quiz_file.get("quizzes") or []:
            given = answers.get(quiz["slug"])
            if given is None:
                continue
            earned = total = 0.0
            for question in quiz.get("questions") or []:
                kind, points = question["kind"], float(question.get("points") or 1)
                total += points
                answer = given.get(question["slug"])
                if kind in (scoring.SINGLE, scoring.MULTI):
                    texts = [c["text"] for c in question["choices"]]
                    right = [c["text"] for c in question["choices"] if c.get("correct")]
                    key: Any = right[0] if kind == scoring.SINGLE else right
                    spec = scoring.Question(
                        id="q", kind=kind, key=key, points=1, choice_ids=tuple(texts)
                    )
                elif kind == scoring.TRUE_FALSE:
                    key = {s["text"]: s["answer"] for s in question["statements"]}
                    spec = scoring.Question(id="q", kind=kind, key=key)
                elif kind == scoring.MATCH:
                    key = {p["left"]: p["right"] for p in question["pairs"]}
                    spec = scoring.Question(id="q", kind=kind, key=key)
                else:
                    fields = {k: question.get(k) for k in ("given", "derived", "formula")}
                    drill = sizing_drill(**fields, tolerance=question.get("tolerance", 0))
                    draw = drill.draw(seed, question["slug"])
                    spec = scoring.Question(
                        id="q", kind=kind, key=draw.answer, tolerance=drill.tolerance
                    )
                earned += points * float(scoring.fraction_right(spec, answer))
            shares[quiz["slug"]] = earned / total if total else 0.0
    return shares


__all__ = [
    "STRATEGY_LIMIT", "TeachingFigures", "blind_packet", "blind_scores", "teaching_figures",
]  # fmt: skip
