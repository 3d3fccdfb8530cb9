"""Teaching quality, measured over a deck document and its quiz documents (pure: no Django).

The content lint (apps.quizzes.lint) finds tells and broken rules; this module measures how
well the deck teaches, as `manage.py content_report` prints it beside each target. Words are
compared as stems (`word_stems`): identifiers split into their parts (`STRICT_PACK` is strict +
pack, `EnvRunnerGroup` env + runner + group), a light suffix strip (`spreads` and `spread` meet),
stop words out.

- cards whose answer holds more than one fact (`answer_facts`): a basic or reverse answer (code
  blocks and the "why" aside) with more than one sentence, a list, clauses joined by a
  semicolon, an inline list of three or more short items ("a, b and c"), a parenthetical that
  adds a figure or a default the front did not ask for, two or more figures with units, an
  inserted second predicate ("and, above a threshold, kills"), or a front that asks two things
  ("..., and why?"); a short caption before a code block and a bare "Yes."/"No." verdict are no
  facts of their own; a cloze card whose deletion is itself a list;
- cloze cards whose answer the card itself gives away (`self_answering`): at least half of the
  deletion's stems appear in the text the card shows (another deletion, a sibling name, a hint,
  the rest of the sentence), a number it hides is shown elsewhere, it is an acronym spelled out
  in the parentheses beside it, one of a set of percentages adding up to 100, or one end of a
  0/1 pair;
- deletions longer than DELETION_WORDS_MAX words;
- near-duplicates: notes with the same "why", or whose answers share at least
  DUPLICATE_ANSWER_SHARE of their stems (target 0); and candidates for a person to read, notes
  whose front and back share at least DUPLICATE_SHARE of their stems (Jaccard), joined
  transitively (word overlap finds related cards as well as duplicates);
- reverse notes (a term and its definition both recalled);
- single-choice questions answerable from their wording (`wording_tells`, target at most
  WORDING_MAX): the right option shares more words with the prompt than any distractor, shares
  more of the evidence's own words than any distractor (the evidence names its cause), differs
  in shape from distractors that share one (first word, a colon), or is the only option free of
  absolute words;
- single and multi-choice questions another question gives away (`cross_leaks`, target 0): a
  true/false statement or a match pair in the same quiz, or in the checkpoint or knowledge
  check of the same section, that restates a right option (`restates`);
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
DUPLICATE_SHARE = 0.35
DUPLICATE_ANSWER_SHARE = 0.5
WORDING_MAX = 0.15
LEAK_SHARE = 0.6
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


# Word stems ---------------------------------------------------------------------------------

# A token, Greek letters included (ρ̄ and c̄ are words of their own here).
_TOKEN = re.compile(r"[A-Za-z0-9\u0370-\u03ff][A-Za-z0-9\u0370-\u03ff'_.\-/]*")
# The parts of an identifier: camel-case humps, runs of capitals, lower-case runs, numbers.
_PART = re.compile(
    r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z\u0370-\u03ff]+|[A-Z\u0391-\u03a9]+|\d+(?:\.\d+)?"
)
_STEM_STOP = _STOP | {
    "all", "any", "every", "only", "other", "own", "same", "such", "there", "these", "those",
    "where", "whose", "via", "per", "e.g", "i.e", "also", "about", "after", "before", "while",
    "until", "s", "t", "x",
}  # fmt: skip
# Longest first: "ations" before "ation" before "s". A stem keeps at least three letters.
_SUFFIXES = ("ations", "ation", "ings", "ing", "ers", "er", "ies", "ied", "es", "ed", "ly", "s",
             "e", "y")  # fmt: skip


def stem(word: str) -> str:
    """A crude stem: enough for "spreads" to meet "SPREAD" and "sampler" to meet "sample"."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def word_parts(text: str) -> list[str]:
    """The words of a text with every identifier split into its parts: `num_envs_per_env_runner`
    is num, envs, per, env, runner; `EnvRunnerGroup` is Env, Runner, Group."""
    parts: list[str] = []
    for token in _TOKEN.findall((text or "").replace("`", " ")):
        for piece in re.split(r"[_.\-/']", token):
            parts += _PART.findall(piece)
    return parts


def word_stems(text: str) -> set[str]:
    """Content stems of a text (fenced code left out, inline code read as the words it spells)."""
    return {
        stem(part) for part in word_parts(_FENCE.sub(" ", text or ""))
        if part.isdigit() or (len(part) > 1 and part.lower() not in _STEM_STOP)
    }  # fmt: skip


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


# A front asking two things: "..., and why?", "and how is it switched on?", "Which three ...".
_TWO_QUESTIONS = re.compile(
    r",\s+and\s+(?:what|when|where|why|how|which|who|to what)\b|\band\s+(?:why|how)\s*\?"
    r"|\b(?:which|what)\s+(?:\w+\s+)?(?:two|three|four|five)\b", re.IGNORECASE)  # fmt: skip
_PARENTHETICAL = re.compile(r"\(([^()]*)\)")
_EXAMPLE = re.compile(r"\s*(?:e\.g|i\.e|such as|for example)\b", re.IGNORECASE)
# An inline list: three or more short items (five words at most, not opening a clause), "a, b
# and c" or "a, b, or c", after the start of a sentence, a colon or a word that announces one
# ("of", "as", "include", "are").
_ITEM = (
    r"(?!(?:which|so|when|where|while|if|because|then|but|as|such|using|with|by|yet|to|"
    r"from|into|for|after|before|until|unless|since|though)\b)(?:[^\s,;:.()]+\s){0,4}[^\s,;:.()]+"
)
_INLINE_LIST = re.compile(
    r"(?:^|:\s*|\b(?:of|as|include|includes|are)\s)(?:" + _ITEM + r",\s)+" + _ITEM
    + r",?\s(?:and|or)\s" + _ITEM)  # fmt: skip
# "..., and, above a threshold, kills": a second predicate set off by an inserted phrase.
_INSERTED = re.compile(r"\band,\s")
# "1000 for an async actor and 1 for any other": two answers to two cases.
_CASES = re.compile(r"\bfor\b[^,.;:]*\band\b[^,.;:]*\bfor\b")
_FIGURE = re.compile(
    r"(?<![\w.])\d[\d,]*(?:\.\d+)?\s*(?:%|GB|GiB|MB|MiB|KiB|ms\b|µs\b|s\b|seconds|days|hours|"
    r"TPUs|GPUs|CPUs|frames|images|million|billion|epochs|steps|actors|agents)")  # fmt: skip


# "40% to 80%" is one figure, a range.
_RANGE = re.compile(r"(\d[\d,.]*\s*%?)\s*(?:to|-|–)\s*\d[\d,.]*")


def answer_facts(back: str, front: str = "") -> int:
    """How many facts an answer appears to hold: sentences, list items and semicolon clauses,
    plus one for each sign of a second fact (module docstring), leaving out a code block's
    caption and a bare yes/no verdict. `front`, when given, is read for a second question."""
    prose = " ".join(_prose(_VERDICT.sub("", _CAPTION.sub(" ", back or ""))).split())
    items = len(_LIST_ITEM.findall(_prose(_VERDICT.sub("", _CAPTION.sub(" ", back or "")))))
    facts = items if items >= 2 else sentences(prose) + prose.count(";")
    asks_default = "default" in (front or "").lower()
    added = [
        bool(_TWO_QUESTIONS.search(_prose(front or ""))),
        any(
            re.search(r"\d|\bdefaults?\b", inner) and re.match(r"[A-Za-z][^()]*\s", inner)
            and not _EXAMPLE.match(inner) and not asks_default
            for inner in _PARENTHETICAL.findall(prose)
        ),
    ]  # fmt: skip
    flat = re.sub(r"\b(?:e\.g|i\.e)\.[^,;)]*[,;)]?", " ", _PARENTHETICAL.sub(" ", prose))
    added += [
        bool(_INLINE_LIST.search(flat)),
        bool(_INSERTED.search(flat)),
        bool(_CASES.search(flat)),
        len(set(_FIGURE.findall(_RANGE.sub(r"\1", flat)))) >= 2,
    ]
    return facts + sum(added)


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
    duplicate_answers: list[tuple[str, str]] = field(default_factory=list)
    single_choice: int = 0
    # "quiz slug/question slug" -> the tells that give its right option away
    wording_tells: dict[str, list[str]] = field(default_factory=dict)
    reverse_notes: list[str] = field(default_factory=list)
    # strategy -> (score over all scored questions, worst knowledge check score, its slug)
    strategies: dict[str, tuple[float, float, str]] = field(default_factory=dict)
    absolute_true: tuple[int, int] = (0, 0)  # items with an absolute word, items
    absolute_false: tuple[int, int] = (0, 0)
    prompt_is_front: list[str] = field(default_factory=list)
    # "quiz slug/question slug" -> the "quiz slug/question slug" whose statements or pairs
    # restate one of its right options
    cross_leaks: dict[str, list[str]] = field(default_factory=dict)
    choice_questions: int = 0
    blind: dict[str, float] | None = None  # quiz slug -> the blind reader's share

    @property
    def multi_fact_share(self) -> float:
        return len(self.multi_fact) / self.cards if self.cards else 0.0

    @property
    def wording_share(self) -> float:
        return len(self.wording_tells) / self.single_choice if self.single_choice else 0.0

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
            f"near-duplicates (the same why, or answers sharing {DUPLICATE_ANSWER_SHARE:.0%} of"
            f" their words): {len(self.duplicate_answers)} pair(s) (target 0:"
            f" {ok(not self.duplicate_answers)})"
            + "".join(f"; {a} + {b}" for a, b in self.duplicate_answers),
            f"near-duplicate candidates (words {DUPLICATE_SHARE:.0%} shared):"
            f" {len(self.duplicate_groups)} group(s) to read"
            + "".join(f"; {' + '.join(g)}" for g in self.duplicate_groups),
            f"single-choice questions answerable from their wording: {len(self.wording_tells)}"
            f" of {self.single_choice} ({pct(self.wording_share)}; target at most"
            f" {pct(WORDING_MAX)}: {ok(self.wording_share <= WORDING_MAX)})"
            + "".join(f"; {q} ({', '.join(t)})" for q, t in sorted(self.wording_tells.items())),
            f"single/multi-choice questions whose right option another question's statement or"
            f" match pair restates (same quiz, or the section's checkpoint and knowledge check):"
            f" {len(self.cross_leaks)} of {self.choice_questions} (target 0:"
            f" {ok(not self.cross_leaks)})"
            + "".join(f"; {q} by {', '.join(by)}" for q, by in self.cross_leaks.items()),
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


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")


def _given_by_words(hidden: str, shown: str) -> bool:
    """Whether the text a cloze card shows gives its deletion away: the whole deletion appears
    in it, or (for a deletion of words) at least half of its stems do; a deletion holding
    numbers is given only by the same numbers, units aside."""
    if re.search(rf"(?<![\w]){re.escape(hidden.strip())}(?![\w])", shown, re.IGNORECASE):
        return True
    numbers = set(_NUMBER.findall(hidden))
    if numbers:
        return numbers <= set(_NUMBER.findall(shown))
    hidden_stems = word_stems(hidden)
    return bool(hidden_stems) and 2 * len(hidden_stems & word_stems(shown)) >= len(hidden_stems)


def self_answering(front: str, slug: str) -> list[str]:
    found = []
    deletions = list(clozes(front))
    percents = [float(m.group(1)) for m in (_PERCENT.match(c.answer) for c in deletions) if m]
    sums_to_100 = len(percents) == len(deletions) >= 2 and abs(sum(percents) - 100) < 0.5
    # λ = {{c1::0}} ... λ = {{c2::1}}: each end of the interval gives the other away.
    ends_of_unit = sorted(c.answer.strip() for c in deletions) == ["0", "1"]
    for card, hidden, shown in _cloze_cards(slug, front):
        if (
            _given_by_words(hidden, shown)
            or sums_to_100
            or ends_of_unit
            or _acronym_spelled_out(front, hidden)
        ):
            found.append(card)
    return found


def _notes(deck: Mapping) -> Iterable[dict]:
    for section in deck.get("sections") or []:
        yield from section.get("cards") or []


def card_figures(deck: Mapping, figures: TeachingFigures) -> None:
    words: dict[str, set[str]] = {}
    answers: dict[str, set[str]] = {}
    whys: dict[str, str] = {}
    for note in _notes(deck):
        slug, kind = note.get("slug", "?"), note.get("kind") or "basic"
        front = str(note.get("front") or "")
        whys[slug] = " ".join(str(note.get("why") or "").split())
        if kind == "cloze":
            for card, hidden, _ in _cloze_cards(slug, front):
                figures.cards += 1
                figures.cloze_cards += 1
                if _is_list(hidden):
                    figures.multi_fact.append(card)
                if len(_WORD.findall(_prose(hidden))) > DELETION_WORDS_MAX:
                    figures.long_deletions.append(card)
            figures.self_answering += self_answering(front, slug)
            words[slug] = word_stems(cloze_replace(front, lambda c: c.answer))
            answers[slug] = _answer_words(
                " ".join(c.answer for c in clozes(front))
            ) - _answer_words(cloze_replace(front, lambda c: " "))
            continue
        made = 2 if kind == "reverse" else 1
        figures.cards += made
        if kind == "reverse":
            figures.reverse_notes.append(slug)
        back = str(note.get("back") or "")
        if answer_facts(back, front) > 1:
            figures.multi_fact += [slug] * made
        words[slug] = word_stems(front) | word_stems(back)
        answers[slug] = _answer_words(back) - _answer_words(front)
    figures.duplicate_groups = duplicate_groups(words)
    figures.duplicate_answers = duplicate_answers(answers, whys)


def _answer_words(text: str) -> set[str]:
    """Stems of whole words, identifiers kept whole: `num_env_runners` and
    `num_envs_per_env_runner` are two different answers, not one."""
    words = _WORD.findall(_FENCE.sub(" ", text or "").replace("`", " "))
    return {stem(w.strip(".")) for w in words if w.lower().strip(".") not in _STEM_STOP}


def duplicate_answers(
    answers: Mapping[str, set[str]],
    whys: Mapping[str, str],
    share: float = DUPLICATE_ANSWER_SHARE,
) -> list[tuple[str, str]]:
    """Pairs of notes that teach the same thing twice: the same "why", or answers sharing at
    least `share` of their stems (Jaccard, three stems or more each). An answer is what the
    note adds to its question: the back's stems (a cloze note's deletions') that its front
    does not already show, so two parallel cards ("which setting sets X", "... sets Y") whose
    answers share only the question's words are no pair."""
    slugs = list(answers)
    pairs = []
    for i, a in enumerate(slugs):
        for b in slugs[i + 1 :]:
            same_why = bool(whys.get(a)) and whys.get(a) == whys.get(b)
            left, right = answers[a], answers[b]
            overlap = (
                len(left & right) / len(left | right) if min(len(left), len(right)) >= 3 else 0.0
            )
            if same_why or overlap >= share:
                pairs.append((a, b))
    return pairs


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


def _first_word(text: str) -> str:
    words = re.findall(r"\w+", text.lower())
    return words[0] if words else ""


def wording_tells(question: Mapping) -> list[str]:
    """What lets a reader pick a single-choice question's right option without the subject:
    "prompt words" (it shares two or more words with the prompt, more than any distractor),
    "evidence names the cause" (it shares more of the evidence's own words, its output and the
    source line shown with it, than any distractor), "odd shape" (the distractors share a first
    word or all lack a colon, and it does not), "only one without absolutes" (two or more
    distractors say always/never/only..., it says none of them)."""
    choices = list(question.get("choices") or [])
    right = [c for c in choices if c.get("correct")]
    wrong = [c for c in choices if not c.get("correct")]
    if question.get("kind") != scoring.SINGLE or len(right) != 1 or not wrong:
        return []
    texts = [str(c.get("text") or "") for c in wrong]
    answer = str(right[0].get("text") or "")
    tells = []
    prompt = word_stems(str(question.get("prompt") or ""))
    shared = len(word_stems(answer) & prompt)
    if shared >= 2 and shared > max(len(word_stems(t) & prompt) for t in texts):
        tells.append("prompt words")
    evidence = question.get("evidence") or {}
    # The source line is shown beside the output, so it is evidence too.
    shown = f"{evidence.get('output') or ''} {evidence.get('source') or ''}"
    own = word_stems(shown) - prompt
    if own:
        shared = len(word_stems(answer) & own)
        if shared > max(len(word_stems(t) & own) for t in texts):
            tells.append("evidence names the cause")
    firsts = {_first_word(t) for t in texts}
    colon = ":" in answer and not any(":" in t for t in texts)
    if (len(texts) >= 2 and len(firsts) == 1 and _first_word(answer) not in firsts) or colon:
        tells.append("odd shape")
    if not absolute_words(answer) and sum(bool(absolute_words(t)) for t in texts) >= 2:
        tells.append("only one without absolutes")
    return tells


def restates(option: str, prompt: str, distractors: Sequence[str], source: str) -> bool:
    """Whether `source`, a true/false statement or a match pair of another question, gives a
    right option away: it holds at least LEAK_SHARE of the option's content stems that the
    prompt does not already show, a larger share than it holds of any distractor's (so it
    singles the option out), and it speaks of the question's subject: it shares a stem with
    the prompt, and two of them unless it holds three or more of the option's."""
    shown = word_stems(prompt)
    answer = word_stems(option) - shown
    if not answer:
        return False
    words = word_stems(source)
    shared = len(answer & words)
    share = shared / len(answer)
    if share < LEAK_SHARE:
        return False
    for text in distractors:
        stems = word_stems(text) - shown
        if stems and len(stems & words) / len(stems) >= share:
            return False
    about = len(shown & words)
    return about >= 2 or (about >= 1 and shared >= 3)


def _stated(question: Mapping) -> list[str]:
    """What a question shows as fact or as a claim to judge: its statements and its pairs."""
    texts = [str(s.get("text") or "") for s in question.get("statements") or []]
    pairs = question.get("pairs") or []
    return texts + [f"{p.get('left', '')} {p.get('right', '')}" for p in pairs]


def cross_leaks(quiz_files: Sequence[Mapping]) -> dict[str, list[str]]:
    """Single and multi-choice questions whose right option another question restates
    (`restates`), within one quiz and within the checkpoints and knowledge checks of one
    section (a learner meets those together): {"quiz/question": ["quiz/question", ...]}."""
    scopes: dict[str, list[Mapping]] = {}
    for quiz_file in quiz_files:
        for quiz in quiz_file.get("quizzes") or []:
            scopes[f"quiz {quiz.get('slug')}"] = [quiz]
            if quiz.get("section") and quiz.get("kind") in ("checkpoint", "knowledge_check"):
                scopes.setdefault(f"section {quiz['section']}", []).append(quiz)
    found: dict[str, set[str]] = {}
    for quizzes in scopes.values():
        asked = [
            (f"{quiz.get('slug')}/{question.get('slug')}", question)
            for quiz in quizzes
            for question in quiz.get("questions") or []
        ]
        sources = [(name, text) for name, question in asked for text in _stated(question)]
        for name, question in asked:
            if question.get("kind") not in (scoring.SINGLE, scoring.MULTI):
                continue
            choices = list(question.get("choices") or [])
            wrong = [str(c.get("text") or "") for c in choices if not c.get("correct")]
            prompt = str(question.get("prompt") or "")
            for choice in choices:
                if not choice.get("correct"):
                    continue
                for where, text in sources:
                    if where != name and restates(str(choice.get("text")), prompt, wrong, text):
                        found.setdefault(name, set()).add(where)
    return {name: sorted(found[name]) for name in sorted(found)}


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
                if kind == scoring.SINGLE:
                    figures.single_choice += 1
                    tells = wording_tells(question)
                    if tells:
                        figures.wording_tells[f"{quiz.get('slug')}/{question.get('slug')}"] = tells
                if kind in (scoring.SINGLE, scoring.MULTI):
                    figures.choice_questions += 1
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
    figures.cross_leaks = cross_leaks(quiz_files)


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
    "STRATEGY_LIMIT", "TeachingFigures", "blind_packet", "blind_scores", "cross_leaks",
    "restates", "teaching_figures",
]  # fmt: skip
