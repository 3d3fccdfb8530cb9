"""The quiz loader: shipped content, idempotence with stable public keys, and refusals that
name the file, the quiz, the question and the problem."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.decks.content import ContentError
from apps.decks.models import Section
from apps.quizzes.content import quiz_file_load
from apps.quizzes.models import Choice, MatchPair, Question, Quiz, Statement
from tests.quizzes.conftest import QUIZ_FILE


def keys():
    return (
        set(Question.objects.values_list("key", flat=True)),
        set(Choice.objects.values_list("key", flat=True)),
        set(Statement.objects.values_list("key", flat=True)),
        set(MatchPair.objects.values_list("left_key", "right_key")),
    )


def test_loading_twice_changes_nothing_and_keeps_every_public_key(quizzes, quiz_path):
    before = keys()
    result = quiz_file_load(quiz_path)
    assert result.changed == 0
    assert (result.quizzes, result.questions) == (3, 7)
    assert keys() == before


def test_an_edit_keeps_the_keys_of_what_did_not_change(quizzes, quiz_path):
    single = Question.objects.get(slug="actor-single")
    task_key = single.choices.get(text="A task").key
    quiz_path.write_text(QUIZ_FILE.replace("{text: An ObjectRef}", "{text: A placement group}"))
    result = quiz_file_load(quiz_path)
    assert result.changed == 1
    assert single.choices.get(text="A task").key == task_key
    assert set(single.choices.values_list("text", flat=True)) == {
        "A task",
        "An actor",
        "A placement group",
    }


def test_a_question_left_out_of_the_file_is_removed_and_a_quiz_is_kept(quizzes, quiz_path):
    text = QUIZ_FILE.split("  - slug: final-check")[0]
    text = text.replace("      - slug: core-match-scored", "      - slug: core-match-gone")
    quiz_path.write_text(text)
    result = quiz_file_load(quiz_path)
    assert result.kept == ["final-check"]
    assert Quiz.objects.filter(slug="final-check").exists()
    assert not Question.objects.filter(slug="core-match-scored").exists()
    assert Question.objects.filter(slug="core-match-gone").exists()


def test_keys_are_opaque_and_unrelated_to_text_ids_or_sides(quizzes):
    for pair in MatchPair.objects.all():
        assert pair.left_key != pair.right_key
        assert str(pair.pk) not in (pair.left_key, pair.right_key)
    for choice in Choice.objects.all():
        assert len(choice.key) == 8 and not choice.key.isdigit()


BAD = [
    ("deck: nope\nquizzes: []", "deck 'nope' is not loaded"),
    (
        QUIZ_FILE.replace("kind: checkpoint", "kind: exam"),
        "quiz 'checkpoint-core': kind must be checkpoint or knowledge_check, got 'exam'",
    ),
    (
        QUIZ_FILE.replace(
            "    section: ray-core\n    questions:\n      - slug: core-match\n",
            "    questions:\n      - slug: core-match\n",
        ),
        "quiz 'checkpoint-core': a checkpoint needs the 'section'",
    ),
    (
        QUIZ_FILE.replace("section: ray-core", "section: ray-cor", 1),
        "quiz 'checkpoint-core': section 'ray-cor' is not in deck 'ray-basics'",
    ),
    (
        QUIZ_FILE.replace("{text: A task, correct: false}", "{text: A task, correct: true}"),
        "quiz 'core-check' question 'actor-single': a single-choice question needs exactly 1 "
        "correct choice, has 2",
    ),
    (
        QUIZ_FILE.replace("cards: [ray-actor]", "cards: [ray-actors]"),
        "quiz 'core-check' question 'actor-single': card 'ray-actors' is not in the deck",
    ),
    (
        QUIZ_FILE.replace("answer: false}", "answer: maybe}"),
        "quiz 'core-check' question 'task-tf' statements[0]: 'answer' must be true or false",
    ),
    (
        QUIZ_FILE.replace(
            "          - {left: Actor, right: Stateful worker}\n  - slug: final",
            "          - {left: Actor, right: Stateless remote call}\n  - slug: final",
        ),
        "quiz 'core-check' question 'core-match-scored': two right items have the same text",
    ),
    (
        QUIZ_FILE.replace("kind: multi", "kind: essay"),
        "question 'store-multi': kind must be one of single, multi, true_false, match",
    ),
    (
        QUIZ_FILE.replace("points: 3", "points: -1"),
        "question 'store-multi': points must be a whole number from 1 to 100, got -1",
    ),
    (
        QUIZ_FILE.replace("time_limit_seconds: 60", "time_limit_seconds: soon"),
        "quiz 'final-check': time_limit_seconds must be a whole number",
    ),
    (
        QUIZ_FILE.replace("      - slug: task-tf", "      - slug: store-multi"),
        "quiz 'core-check': duplicate question slug 'store-multi'",
    ),
    (
        QUIZ_FILE.replace("        kind: true_false\n", "        kind: single\n"),
        "question 'task-tf': a single question takes 'choices', not 'statements'",
    ),
    (QUIZ_FILE.replace("prompt: Match them.", "prompt: ''"), "'prompt' is missing or empty"),
    ("deck: ray-basics\nquizzes: [", "not valid YAML"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_a_bad_file_is_refused_whole_with_a_message_naming_the_problem(
    small_deck, quiz_path, text, message
):
    quiz_path.write_text(text)
    with pytest.raises(ContentError) as error:
        quiz_file_load(quiz_path)
    assert str(quiz_path) in str(error.value)
    assert message in str(error.value)
    assert not Quiz.objects.exists()


def test_seed_refuses_everything_when_a_quiz_file_is_bad(db, tmp_path, settings):
    fixtures = tmp_path / "fixtures"
    (fixtures / "decks").mkdir(parents=True)
    (fixtures / "quizzes").mkdir()
    deck = settings.BASE_DIR / "fixtures" / "decks" / "distributed-rl-on-ray.yaml"
    (fixtures / "decks" / deck.name).write_text(deck.read_text())
    (fixtures / "quizzes" / "bad.yaml").write_text("deck: distributed-rl-on-ray\nquizzes: []\n")
    with pytest.raises(CommandError, match="Nothing was loaded.*'quizzes' is empty"):
        call_command("seed", fixtures=fixtures, verbosity=0)
    from apps.decks.models import Deck

    assert not Deck.objects.exists()


def test_the_shipped_quizzes_cover_the_lesson(seeded):
    questions = Question.objects.prefetch_related("cards")
    assert questions.count() >= 40
    assert set(questions.values_list("kind", flat=True)) == {
        "single",
        "multi",
        "true_false",
        "match",
        "numeric",
    }
    for question in questions:
        assert question.explanation.strip(), question
        assert question.cards.all(), question
    checkpoints = Quiz.objects.filter(kind="checkpoint")
    assert checkpoints.count() >= 6
    assert all(quiz.section_id for quiz in checkpoints)
    checks = Quiz.objects.filter(kind="knowledge_check")
    sections_checked = set(checks.exclude(section=None).values_list("section__slug", flat=True))
    deck_sections = Section.objects.filter(deck__slug="distributed-rl-on-ray")
    assert sections_checked == set(deck_sections.values_list("slug", flat=True))
    assert checks.filter(section=None).exists(), "a final check across all sections"


def test_seeding_again_keeps_every_key(seeded):
    before = keys()
    call_command("seed", verbosity=0)
    assert keys() == before
