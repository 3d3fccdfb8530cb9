"""The content lint over small made-up documents (always on), and over the shipped files."""

import io
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command
from hypothesis import given
from hypothesis import strategies as st

from apps.quizzes.lint import content_lint, prose_words

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
SOURCE = "Moritz et al. 2018, Ray (OSDI), §3.1"


def card(slug, back="A remote call.", **extra):
    return {"slug": slug, "front": f"What is {slug}?", "back": back, "source": SOURCE} | extra


def deck(*cards, sections=("one",)):
    return {
        "slug": "d",
        "sections": [
            {"slug": s, "cards": list(cards) if i == 0 else []} for i, s in enumerate(sections)
        ],  # fmt: skip
    }


def single(slug, right, *wrong, prompt="Which is it?", cards=("task",)):
    choices = [{"text": right, "correct": True}] + [{"text": w, "correct": False} for w in wrong]
    return {"slug": slug, "kind": "single", "prompt": prompt, "cards": list(cards),
            "choices": choices}  # fmt: skip


def true_false(slug, *statements, cards=("task",)):
    return {"slug": slug, "kind": "true_false", "prompt": "Mark each.", "cards": list(cards),
            "statements": [{"text": t, "answer": a} for t, a in statements]}  # fmt: skip


def quizzes(*questions, kind="knowledge_check", section="one", more=()):
    both = [{"slug": "kc", "kind": kind, "section": section, "questions": list(questions)}]
    both.append({"slug": "cp", "kind": "checkpoint", "section": section, "questions": []})
    return [{"deck": "d", "quizzes": both + list(more)}]


def rules(report) -> set[str]:
    return {f.rule for f in report.findings}


BALANCED = [
    single("a", "An actor", "A task", "A ref", "A node"),
    single("b", "Spill", "Crash at once", "Block forever", "Drop it"),
    true_false("t", ("Tasks are stateless.", True), ("Actors are stateless.", False)),
]


def test_a_clean_deck_and_quiz_have_no_findings_and_the_figures_add_up():
    report = content_lint(
        deck(card("task"), card("core", kind="cloze", front="{{c1::a}} {{c2::b}}", back="")),
        quizzes(*BALANCED),
    )
    assert report.findings == []
    figures = report.figures
    assert (figures.notes, figures.cards, figures.cloze_items) == (2, 3, 2)
    assert dict(figures.questions) == {"single": 2, "true_false": 1}
    assert figures.true_share == 0.5
    assert figures.strategy_scores["all_true"] == pytest.approx(0.5 / 3)
    assert any("right option the longest in" in line for line in figures.lines())


def test_long_answers_missing_sources_and_what_defines_prompts_are_found():
    code = "```python\n" + "x = 1\n" * 60 + "```"
    report = content_lint(
        deck(
            card("task"),
            card("long", back="word " * 41),
            card("code", back="Short prose.\n\n" + code),
            card("nosource", source=""),
            card("defines", front="What defines IMPALA?"),
        ),
        quizzes(*BALANCED),
    )
    where = {(f.rule, f.where) for f in report.findings}
    assert where == {
        ("answer-length", "card 'long'"),
        ("source", "card 'nosource'"),
        ("what-defines", "card 'defines'"),
    }
    assert prose_words("Two words.\n\n```\nmany many many\n```") == 2


def test_true_share_is_kept_between_40_and_60_percent_in_each_quiz_and_overall():
    tilted = true_false("t", ("A", True), ("B", True), ("C", True), ("D", False))
    report = content_lint(deck(card("task")), quizzes(BALANCED[0], BALANCED[1], tilted))
    messages = [f.message for f in report.findings if f.rule == "true-share"]
    assert len(messages) == 2 and "3 of 4 true/false statements are true (75%)" in messages[0]


def test_absolute_words_only_in_false_statements_are_a_tell():
    statements = [
        ("Tasks are stateless.", True), ("Actors keep state.", True), ("Refs are futures.", True),
        ("Actors never fail.", False), ("Tasks always run first.", False),
        ("The GCS stores all objects.", False),
    ]  # fmt: skip
    report = content_lint(deck(card("task")), quizzes(BALANCED[0], true_false("t", *statements)))
    assert "absolute-words" in rules(report)
    fair = [(t.replace("Tasks are", "Tasks are always"), a) for t, a in statements]
    fair[1] = ("Actors only keep state in memory.", True)
    fair[2] = ("Refs never copy on read.", True)
    report = content_lint(deck(card("task")), quizzes(BALANCED[0], true_false("t", *fair)))
    assert "absolute-words" not in rules(report)


def test_the_longest_right_option_and_the_longest_strategy_are_found():
    giveaways = [
        single(f"q{i}", "A long and carefully qualified right answer", "Short", "Tiny", "Nope")
        for i in range(4)
    ]
    report = content_lint(deck(card("task")), quizzes(*giveaways))
    assert {"longest-right", "strategy"} <= rules(report)
    assert report.figures.strategy_scores["longest"] == 1.0
    assert report.figures.longest_right == 4 and report.figures.longest_expected == 1.0


def test_the_prompt_words_strategy_on_choices_and_matching():
    echo = [
        single(
            f"q{i}",
            "Object spilling to disk",
            "A crash",
            "Backpressure",
            "Retry",
            prompt="What is object spilling?",
        )  # fmt: skip
        for i in range(3)
    ]
    pairs = {"slug": "m", "kind": "match", "prompt": "Match.", "cards": ["task"],
             "pairs": [{"left": "Replay buffer", "right": "A buffer of replay data"},
                       {"left": "Learner", "right": "The learner updates weights"}]}  # fmt: skip
    report = content_lint(deck(card("task")), quizzes(*echo, pairs))
    assert report.figures.strategy_scores["prompt_words"] == 1.0
    assert "'pick the option sharing most words with the prompt' scores 100%" in " ".join(
        f.message for f in report.findings
    )


def test_questions_must_link_existing_cards_and_sections_need_both_quizzes():
    cloze = card("core", kind="cloze", front="{{c1::a}}", back="")
    linked = [single("a", "x", "y", cards=("core",)), single("b", "x", "y", cards=("core-c1",))]
    report = content_lint(deck(cloze), quizzes(*linked))
    assert "links" not in rules(report)
    bad = [single("a", "x", "y", cards=("nope",)), single("b", "x", "y", cards=())]
    report = content_lint(deck(cloze, sections=("one", "two")), quizzes(*bad))
    found = {(f.rule, f.where) for f in report.findings}
    assert ("links", "quiz 'kc' question 'a'") in found
    assert ("links", "quiz 'kc' question 'b'") in found
    assert ("section-quizzes", "section 'two'") in found
    links = {"deck": "d", "links": {"object-store": ["core", "ray-put-get"]}}
    report = content_lint(deck(cloze), quizzes(*linked), [links])
    assert [str(f) for f in report.findings if f.rule == "links"] == [
        "demo 'object-store': links unknown card 'ray-put-get'"
    ]


@given(st.lists(st.booleans(), min_size=1, max_size=12))
def test_marking_everything_true_scores_the_true_share_of_a_true_false_quiz(answers):
    statements = [(f"Statement {i}.", a) for i, a in enumerate(answers)]
    report = content_lint(deck(card("task")), quizzes(true_false("t", *statements)))
    share = sum(answers) / len(answers)
    assert report.figures.strategy_scores["all_true"] == pytest.approx(share)
    assert ("true-share" in rules(report)) == (not 0.4 <= share <= 0.6)


def _shipped():
    deck_doc = yaml.safe_load((FIXTURES / "decks" / "distributed-rl-on-ray.yaml").read_text())
    quiz_doc = yaml.safe_load((FIXTURES / "quizzes" / "distributed-rl-on-ray.yaml").read_text())
    links = yaml.safe_load((FIXTURES / "demos" / "links.yaml").read_text())
    return content_lint(deck_doc, [quiz_doc], [links])


def test_the_shipped_deck_and_quizzes_pass_the_content_lint():
    report = _shipped()
    assert [str(f) for f in report.findings] == []


def test_the_shipped_deck_reaches_interview_depth():
    deck_doc = yaml.safe_load((FIXTURES / "decks" / "distributed-rl-on-ray.yaml").read_text())
    quiz_doc = yaml.safe_load((FIXTURES / "quizzes" / "distributed-rl-on-ray.yaml").read_text())
    notes = [c for s in deck_doc["sections"] for c in s["cards"]]
    questions = [q for quiz in quiz_doc["quizzes"] for q in quiz["questions"]]
    assert len(notes) >= 200 and len(questions) >= 120
    assert sum(c.get("kind") == "cloze" for c in notes) >= 20
    sections = {s["slug"] for s in deck_doc["sections"]}
    for kind in ("checkpoint", "knowledge_check"):
        assert {q.get("section") for q in quiz_doc["quizzes"] if q["kind"] == kind} >= sections


def test_content_report_prints_the_figures_and_check_fails_on_findings(tmp_path):
    (tmp_path / "decks").mkdir()
    (tmp_path / "quizzes").mkdir()
    cloze = card("core", kind="cloze", front="{{c1::a}} and {{c2::b}}", back="")
    (tmp_path / "decks" / "d.yaml").write_text(yaml.safe_dump(deck(card("task"), cloze)))
    (tmp_path / "quizzes" / "d.yaml").write_text(yaml.safe_dump(quizzes(*BALANCED)[0]))
    out = io.StringIO()
    call_command("content_report", fixtures=tmp_path, check=True, stdout=out)
    text = out.getvalue()
    assert "cards: 3 scheduled (2 notes, 2 cloze items)" in text
    assert "questions: 3 (single 2, true_false 1)" in text
    assert "true share 50%" in text and "strategy 'mark everything true': 17%" in text
    assert "findings: 0" in text
    (tmp_path / "decks" / "d.yaml").write_text(yaml.safe_dump(deck(card("task", source=""))))
    with pytest.raises(CommandError, match="The content lint has 1 finding"):
        call_command("content_report", fixtures=tmp_path, check=True, stdout=io.StringIO())


def test_the_lint_imports_nothing_from_django():
    code = "import sys, apps.quizzes.lint; print('django' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
