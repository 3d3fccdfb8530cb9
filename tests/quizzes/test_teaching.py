"""The teaching-quality figures: each measure on small made-up documents, the blind reader's
packet and scoring, and the figures of the shipped deck that are met staying met."""

import io
import json
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from hypothesis import given
from hypothesis import strategies as st

from apps.quizzes.teaching import (
    MULTI_FACT_MAX,
    POSITION_STRATEGY_MAX,
    WORDING_MAX,
    answer_facts,
    blind_packet,
    blind_scores,
    cross_leaks,
    duplicate_answers,
    duplicate_groups,
    restates,
    self_answering,
    teaching_figures,
    word_stems,
    wording_tells,
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
        # An inline list of short items is a list, whatever the punctuation.
        ("A task call, an actor-method call and `ray.put`.", 2),
        ("Dictionaries keyed by agent ID: observations, rewards, terminateds and infos.", 2),
        # ...but clauses joined by commas are not.
        ("When an EnvRunner dies, RLlib recreates it as an identical copy and syncs it.", 1),
        # A parenthetical that adds a default or a figure the front did not ask for.
        ("How many steps pass between two broadcasts (default 1: after every step).", 2),
        ("A pair `(ready, not_ready)` (see the docs for details).", 1),
        # A second predicate set off by an inserted phrase; two cases with an answer each.
        ("It watches memory and, above a threshold, kills a worker.", 2),
        ("1000 for an async actor and 1 for any other actor.", 2),
        # Two figures are two facts; a range is one.
        ("32 TPUs, for 44 days.", 2),
        ("40% to 80% lower cost.", 1),
    ],
)
def test_an_answer_counts_its_statements_with_code_aside(back, facts):
    assert answer_facts(back) == facts


@pytest.mark.parametrize(
    ("front", "facts"),
    [
        ("What is Ray's GCS, and where does it run?", 2),
        ("What must a trainable support, and why?", 2),
        ("Which three calls give you an ObjectRef?", 2),
        ("In Ray, what is a task?", 1),
        ("Do two Ray actors on one node need GIL release?", 1),
    ],
)
def test_a_front_that_asks_two_things_makes_a_second_fact(front, facts):
    assert answer_facts("A stateless remote call.", front) == facts


@given(st.lists(st.sampled_from(["Ray spills objects", "The learner waits", "Actors restart"]),
                min_size=1, max_size=5))  # fmt: skip
def test_each_sentence_adds_a_fact(sentences):
    assert answer_facts(". ".join(sentences) + ".") == len(sentences)


@pytest.mark.parametrize(
    ("front", "given"),
    [
        # A sibling name holds the deletion: STRICT_PACK is strict + pack.
        ("Ray's default is {{c1::PACK}}; STRICT_PACK is stricter.", ["n-c1"]),
        (
            "`{{c1::num_env_runners}}` runs, `{{c2::num_envs_per_env_runner}}` steps.",
            ["n-c1", "n-c2"],
        ),
        # A stem of the deletion shows: "spreads" gives "SPREAD" away.
        ('`{{c1::"SPREAD"}}` spreads tasks over the nodes.', ["n-c1"]),
        # A hint in parentheses spells it out.
        (
            "It cannot recover {{c1::objects whose owner died}} (readers get `OwnerDiedError`).",
            ["n-c1"],
        ),
        # The two ends of an interval give each other away.
        (
            "GAE with λ = {{c1::0}} is one-step; with λ = {{c2::1}} it is Monte Carlo.",
            ["n-c1", "n-c2"],
        ),
        # A unit shown elsewhere does not give a number away.
        ("It checks every {{c1::250 ms}} (`RAY_memory_monitor_refresh_ms`).", []),
        ("Lineage cannot recover {{c1::`ray.put` objects}} or {{c2::outputs of dead tasks}}.", []),
        ("The top {{c1::25%}} move into the bottom 25%.", ["n-c1"]),
        ("Its {{c1::35%}} and {{c2::50%}} and {{c3::15%}}.", ["n-c1", "n-c2", "n-c3"]),
        ("RLlib has {{c1::BC}} (behaviour cloning) and {{c2::CQL}}.", ["n-c1"]),
        ("Ape-X uses {{c1::5}}-step returns over 256 actors.", []),
        ("Call {{c1::`save_to_path()`}}, then `restore_from_path()`.", ["n-c1"]),
    ],
)
def test_a_cloze_that_gives_its_own_answer_is_found(front, given):
    assert self_answering(front, "n") == given


@given(st.from_regex(r"[a-z]{4,9}", fullmatch=True), st.from_regex(r"[a-z]{4,9}", fullmatch=True))
def test_a_deletion_shown_elsewhere_is_given_away_and_a_fresh_word_is_not(word, other):
    assert self_answering(f"It is {{{{c1::{word}}}}}, and {word} again.", "n") == ["n-c1"]
    if stem_differs(word, other):
        assert self_answering(f"It is {{{{c1::{word}}}}}, then {other}.", "n") == []


def stem_differs(a, b):
    return not (word_stems(a) & word_stems(b))


@given(st.lists(st.from_regex(r"[a-z]{3,8}", fullmatch=True), min_size=1, max_size=4))
def test_an_identifier_has_the_stems_of_its_parts(words):
    spaced = " ".join(words)
    assert word_stems("`" + "_".join(words) + "`") == word_stems(spaced)
    assert word_stems("".join(w.capitalize() for w in words)) == word_stems(spaced)


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
    assert figures.duplicate_answers == [("a", "b")]
    assert figures.cards == 5


def test_near_duplicates_are_the_same_why_or_the_same_answer_not_parallel_questions():
    answers = {
        "knob-a": {"num_env_runners"}, "knob-b": {"num_learners"},
        "c-bar": {"speed", "contraction", "trace", "variance"},
        "c-bar-again": {"speed", "contraction", "trace", "variance", "products"},
    }  # fmt: skip
    whys = {
        "stack-cli": "A hung task shows its ray.get.",
        "stack-ui": "A hung task shows its ray.get.",
    }
    pairs = duplicate_answers(answers | {"stack-cli": set(), "stack-ui": set()}, whys)
    assert pairs == [("c-bar", "c-bar-again"), ("stack-cli", "stack-ui")]


@given(st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True),
                       st.sets(st.sampled_from("abcdefgh"), max_size=6), max_size=6))  # fmt: skip
def test_duplicate_pairs_are_ordered_and_never_a_note_with_itself(answers):
    pairs = duplicate_answers(answers, {})
    assert all(a != b for a, b in pairs)
    slugs = list(answers)
    assert all(slugs.index(a) < slugs.index(b) for a, b in pairs)


def single(prompt, right, *wrong, evidence=None):
    question = {
        "slug": "q",
        "kind": "single",
        "prompt": prompt,
        "choices": [{"text": right, "correct": True}] + [{"text": w} for w in wrong],
    }
    if evidence:
        question["evidence"] = {"tool": "ray status", "output": evidence}
    return question  # fmt: skip


@pytest.mark.parametrize(
    ("question", "tells"),
    [
        (single("Which component steps the environments?", "The component stepping environments",
                "The Learner", "The RLModule", "The config"), ["prompt words"]),
        (single("What is wrong?", "No node has a GPU for the task", "Its CPUs are busy",
                "The store is full", "A lost GCS entry",
                evidence="Pending Demands: {'CPU': 1.0, 'GPU': 1.0}"),
         ["evidence names the cause"]),
        (single("How do SEED actors talk?", "Over gRPC: observations out",
                "They write files", "They push gradients", "They pull weights"), ["odd shape"]),
        (single("Why?", "Because it is off-policy", "It always works",
                "It never lags", "Because of gradients"), ["only one without absolutes"]),
        (single("Which strategy is the default?", "PACK", "SPREAD", "STRICT_PACK",
                "STRICT_SPREAD"), []),
    ],
)  # fmt: skip
def test_wording_tells_of_a_single_choice_question(question, tells):
    assert wording_tells(question) == tells


@given(st.permutations(["Wait for a ray.wait slot", "Spill the tasks to disk",
                        "Nothing: Ray drops them", "Call ray.get after each"]))  # fmt: skip
def test_wording_tells_do_not_depend_on_the_order_of_the_options(texts):
    def question(order):
        choices = [{"text": t, "correct": t.startswith("Wait")} for t in order]
        return {"slug": "q", "kind": "single", "prompt": "What bounds memory?", "choices": choices}

    assert wording_tells(question(texts)) == wording_tells(question(sorted(texts)))


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
        "near-duplicates (the same why, or answers sharing",
        "near-duplicate candidates",
        "single-choice questions answerable from their wording",
        "reverse notes",
        "worst position/length strategy",
        "absolute words",
        "quiz prompts identical to a card front",
        "statement or match pair restates",
        "blind reader",
    ):
        assert words in text, words  # fmt: skip
    assert json.loads(packet.read_text())["quizzes"]


def test_the_shipped_deck_meets_the_teaching_aims():
    """The aims of content_report's teaching figures, held by every deck and quiz file shipped:
    new material meets them too (docs/using.md, "Teaching-quality aims")."""
    quizzes = [yaml.safe_load(f.read_text()) for f in sorted((FIXTURES / "quizzes").glob("*.yaml"))]
    for path in sorted((FIXTURES / "decks").glob("*.yaml")):
        shipped = yaml.safe_load(path.read_text())
        mine = [q for q in quizzes if q.get("deck") == shipped["slug"]]
        figures = teaching_figures(shipped, mine)
        assert figures.self_answering == []
        assert figures.long_deletions == []
        assert figures.prompt_is_front == []
        assert figures.duplicate_answers == []
        assert figures.cross_leaks == {}
        assert figures.multi_fact_share <= MULTI_FACT_MAX, figures.multi_fact
        assert figures.wording_share <= WORDING_MAX, figures.wording_tells
        assert len(figures.reverse_notes) >= 3
        true_rate = figures.absolute_true[0] / figures.absolute_true[1]
        assert figures.absolute_false[0] / figures.absolute_false[1] <= true_rate
        for name, (overall, worst, quiz) in figures.strategies.items():
            assert overall <= POSITION_STRATEGY_MAX, name
            assert worst <= POSITION_STRATEGY_MAX, (name, quiz)


def test_duplicate_groups_join_transitively():
    words = {"a": {"w1", "w2", "w3", "w4"}, "b": {"w1", "w2", "w3", "w5"},
             "c": {"w2", "w3", "w5", "w6"}, "d": {"x1", "x2", "x3", "x4"}}  # fmt: skip
    assert duplicate_groups(words, share=0.5) == [["a", "b", "c"]]


def choice_quiz(slug, section, kind, *questions):
    return {"slug": slug, "kind": kind, "section": section, "questions": list(questions)}


def gcs_single(right="It keeps cluster metadata such as placement groups"):
    return single(
        "What does Ray's GCS hold?",
        right,
        "Object bytes of every task result",
        "Each actor's Python heap",
        "The spilled objects of dead nodes",
    ) | {"slug": "kc-gcs"}


def pairs_match(*pairs):
    return {"slug": "defs", "kind": "match", "prompt": "Match each.",
            "pairs": [{"left": a, "right": b} for a, b in pairs]}  # fmt: skip


def statements(*texts):
    return {"slug": "marks", "kind": "true_false", "prompt": "Mark each.",
            "statements": [{"text": t, "answer": True} for t in texts]}  # fmt: skip


def test_a_match_pair_that_restates_a_right_option_in_the_sections_checkpoint_leaks():
    leaking = pairs_match(("GCS", "Head-node service: cluster metadata and placement groups"))
    checkpoint = choice_quiz("cp", "core", "checkpoint", leaking)
    check = choice_quiz("kc", "core", "knowledge_check", gcs_single())
    assert cross_leaks([{"quizzes": [checkpoint, check]}]) == {"kc/kc-gcs": ["cp/defs"]}
    # In another section's checkpoint the learner does not meet it beside the question.
    elsewhere = choice_quiz("cp", "rllib", "checkpoint", leaking)
    assert cross_leaks([{"quizzes": [elsewhere, check]}]) == {}


def test_a_statement_of_a_different_fact_of_the_same_subject_does_not_leak():
    other_fact = statements("The GCS runs on the head node and can be made fault tolerant.")
    quiz = choice_quiz("kc", "core", "knowledge_check", gcs_single(), other_fact)
    assert cross_leaks([{"quizzes": [quiz]}]) == {}
    restating = statements("The GCS keeps cluster metadata, placement groups included.")
    quiz = choice_quiz("kc", "core", "knowledge_check", gcs_single(), restating)
    assert cross_leaks([{"quizzes": [quiz]}]) == {"kc/kc-gcs": ["kc/marks"]}


def test_a_source_that_restates_a_distractor_as_much_singles_nothing_out():
    source = "The GCS keeps cluster metadata and the object bytes of every task result."
    assert not restates("Cluster metadata", "What does the GCS keep?", ["Object bytes"], source)
    assert restates("Cluster metadata", "What does the GCS keep?", ["Actor heaps"], source)


WORDS = st.from_regex(r"[b-df-hj-np-tv-z]{5,8}", fullmatch=True)  # no vowel: no stop word


@given(st.lists(WORDS, min_size=9, max_size=9, unique=True))
def test_restates_means_the_options_words_and_the_subject_singled_out(words):
    subject, relation, *rest = words
    option = " ".join(rest[:3])
    distractors = [" ".join(rest[3:5]), " ".join(rest[5:7])]
    prompt = f"What does {subject} {relation}?"
    if not (word_stems(option) & word_stems(" ".join(rest[3:]))) and len(
        word_stems(option)) == 3:  # fmt: skip
        # The option's words beside the subject's: a leak, in any order of the distractors.
        source = f"{subject} {relation} {option}"
        assert restates(option, prompt, distractors, source)
        assert restates(option, prompt, distractors[::-1], source)
        # The same words with no word of the subject: no leak.
        assert not restates(option, prompt, distractors, option)
        # A distractor restated as fully as the option: nothing singled out.
        assert not restates(option, prompt, distractors, f"{source} {distractors[0]}")
    # A source with none of the option's words never leaks it.
    assert not restates(option, prompt, distractors, f"{subject} {relation} {distractors[0]}")


def test_a_source_line_shown_beside_the_evidence_can_name_the_cause_too():
    question = single(
        "Why does this task never start?",
        "No node has a GPU for it",
        "Its CPUs are busy",
        "The store is full",
        "A lost GCS entry",
        evidence="Pending Demands: {'CPU': 1.0}: 1+ pending tasks",
    )
    assert wording_tells(question) == []
    question["evidence"]["source"] = "Real run: a num_gpus=1 task on a node with no GPU"
    assert wording_tells(question) == ["evidence names the cause"]
