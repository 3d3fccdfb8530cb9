"""The teaching-quality figures: each measure on small made-up documents, the blind reader's
packet and scoring, and the figures of the shipped deck that are met staying met."""

import io
import json
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from apps.quizzes.teaching import (
    answer_facts,
    blind_packet,
    blind_scores,
    duplicate_groups,
    self_answering,
    teaching_figures,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def deck(*cards):
    return {"slug": "d", "sections": [{"slug": "s", "cards": list(cards)}]}


def cloze(slug, front):
    return {"slug": slug, "kind": "cloze", "front": front}


@pytest.mark.parametrize(
    ("back", "facts"),
    [
        ("A stateless remote call.", 1),
        ("A stateless remote call. It returns an ObjectRef at once.", 2),
        ("It blocks; use ray.wait instead.", 2),
        ("- one\n- two\n- three", 3),
        ("Call `ray.get(ref)` (e.g. in the driver).\n\n```python\nx = 1. y = 2.\n```", 1),
        # A bare verdict is the answer the next sentence states, not a fact of its own.
        ("No. Small results travel back inside the reply.", 1),
        ("Yes. The mapping function is called once per episode.", 1),
        ("No. It blocks. It also pins the object.", 2),
        ("Nothing happens. It blocks.", 2),
        # A short caption before a code block introduces the example.
        ("Go data-parallel over N replicas. In RLlib:\n\n```python\nx = 1\n```", 1),
        ("Go data-parallel. Then set it in the config of your Algorithm:\n```py\nx\n```", 2),
    ],
)
def test_an_answer_counts_its_statements_with_code_aside(back, facts):
    assert answer_facts(back) == facts


@pytest.mark.parametrize(
    ("front", "given"),
    [
        ("Ray's default is {{c1::PACK}}; STRICT_PACK is stricter.", []),
        ("The top {{c1::25%}} move into the bottom 25%.", ["n-c1"]),
        ("Its {{c1::35%}} and {{c2::50%}} and {{c3::15%}}.", ["n-c1", "n-c2", "n-c3"]),
        ("RLlib has {{c1::BC}} (behaviour cloning) and {{c2::CQL}}.", ["n-c1"]),
        ("Ape-X uses {{c1::5}}-step returns over 256 actors.", []),
        ("Call {{c1::`save_to_path()`}}, then `restore_from_path()`.", []),
    ],
)
def test_a_cloze_that_gives_its_own_answer_is_found(front, given):
    assert self_answering(front, "n") == given


def test_long_deletions_reverse_notes_and_near_duplicates_are_counted():
    figures = teaching_figures(
        deck(
            cloze("long", "It arises {{c1::when asynchronous actors act with old weights}}."),
            {"slug": "term", "kind": "reverse", "front": "What is self-play?", "back": "Play."},
            {
                "slug": "a",
                "front": "What does rho-bar decide in V-trace?",
                "back": "Which value function V-trace converges to.",
            },
            {
                "slug": "b",
                "front": "In V-trace, what does rho-bar decide?",
                "back": "The value function V-trace converges to.",
            },
        ),  # fmt: skip
        [],
    )
    assert figures.long_deletions == ["long-c1"]
    assert figures.reverse_notes == ["term"]
    assert figures.duplicate_groups == [["a", "b"]]
    assert figures.cards == 5


def test_length_strategies_absolute_words_and_prompts_equal_to_fronts():
    quiz = {
        "slug": "kc", "kind": "knowledge_check",
        "questions": [
            {"slug": "q1", "kind": "single", "prompt": "What is a task?", "choices": [
                {"text": "A much longer right answer", "correct": True},
                {"text": "Short"}, {"text": "Shorter"}, {"text": "Tiny"}]},
            {"slug": "q2", "kind": "true_false", "prompt": "Mark each.", "statements": [
                {"text": "It always works", "answer": False},
                {"text": "It works", "answer": True}]},
        ],
    }  # fmt: skip
    figures = teaching_figures(
        deck({"slug": "t", "front": "What is a *task*?", "back": "A call."}),
        [{"quizzes": [quiz]}],
    )
    assert figures.strategies["longest"][0] == pytest.approx(0.5)  # 1 of 2 points
    assert figures.strategies["longest"][1:] == (pytest.approx(0.5), "kc")
    # Wrong choices count as false items, right ones as true.
    assert figures.absolute_false == (1, 4) and figures.absolute_true == (0, 2)
    assert figures.prompt_is_front == ["kc/q1"]


def test_the_blind_reader_gets_no_answer_and_is_scored_per_quiz():
    quizzes = [yaml.safe_load((FIXTURES / "quizzes" / "distributed-rl-on-ray.yaml").read_text())]
    packet = blind_packet(quizzes)
    text = json.dumps(packet)
    assert '"correct"' not in text and '"answer"' not in text and "explanation" not in text
    first = packet["quizzes"][0]
    question = first["questions"][0]
    # A reader who pairs every left item with the right one scores that question fully.
    answers = {first["slug"]: {}}
    source = quizzes[0]["quizzes"][0]["questions"][0]
    if question["kind"] == "match":
        answers[first["slug"]][question["slug"]] = {p["left"]: p["right"] for p in source["pairs"]}
    shares = blind_scores(quizzes, answers)
    assert set(shares) == {first["slug"]}
    assert 0 < shares[first["slug"]] <= 1


def test_content_report_prints_the_teaching_figures_beside_their_targets(tmp_path):
    out = io.StringIO()
    packet = tmp_path / "packet.json"
    call_command("content_report", "--blind-packet", str(packet), stdout=out)
    text = out.getvalue()
    for words in (
        "cards holding more than one fact",
        "cloze cards answered by their own text",
        "deletions over 6 words",
        "reverse notes",
        "worst position/length strategy",
        "absolute words",
        "quiz prompts identical to a card front",
        "blind reader",
    ):
        assert words in text, words  # fmt: skip
    assert json.loads(packet.read_text())["quizzes"]


def test_the_shipped_deck_keeps_the_figures_it_meets():
    shipped = yaml.safe_load((FIXTURES / "decks" / "distributed-rl-on-ray.yaml").read_text())
    quizzes = [yaml.safe_load((FIXTURES / "quizzes" / "distributed-rl-on-ray.yaml").read_text())]
    figures = teaching_figures(shipped, quizzes)
    assert figures.self_answering == []
    assert figures.long_deletions == []
    assert figures.prompt_is_front == []
    assert figures.multi_fact_share <= 0.10, figures.multi_fact
    assert len(figures.reverse_notes) >= 3
    true_rate = figures.absolute_true[0] / figures.absolute_true[1]
    assert figures.absolute_false[0] / figures.absolute_false[1] <= true_rate
    assert all(overall <= 0.30 for overall, _, _ in figures.strategies.values())


def test_duplicate_groups_join_transitively():
    words = {"a": {"w1", "w2", "w3", "w4"}, "b": {"w1", "w2", "w3", "w5"},
             "c": {"w2", "w3", "w5", "w6"}, "d": {"x1", "x2", "x3", "x4"}}  # fmt: skip
    assert duplicate_groups(words, share=0.5) == [["a", "b", "c"]]
