"""alice's one next step, on home and the study index alike: due cards first, then the interview
plan's cards, then the next section to read and its checkpoint (done once every question was
answered, right or wrong), then new cards, then a knowledge check; always one primary button."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.decks.models import Section
from apps.quizzes.models import Question
from apps.site import selectors
from apps.study.services import checkpoint_answer_record, review_record, section_read

pytestmark = pytest.mark.django_db


def primary_buttons(html: str) -> list[str]:
    return re.findall(r'class="btn btn-primary"[^>]*>([^<]*)<', html)


def step(client, url="/") -> str:
    html = client.get(url).content.decode()
    buttons = primary_buttons(html)
    assert len(buttons) == 1, f"{url}: {len(buttons)} primary buttons: {buttons}"
    return buttons[0]


def test_due_cards_come_first_then_the_section_then_new_cards_then_the_quiz(
    client, alice, small_deck, tmp_path
):
    from apps.quizzes.content import quiz_file_load
    from tests.quizzes.conftest import QUIZ_FILE

    path = tmp_path / "q.yaml"
    path.write_text(QUIZ_FILE)
    quiz_file_load(path)
    client.force_login(alice)
    assert step(client) == step(client, "/study/") == "Read section 01: Ray core"

    core = Section.objects.get(slug="ray-core")
    section_read(user=alice, section=core)
    assert step(client) == "Answer the checkpoint of section 01: Ray core"
    # every checkpoint question answered, wrongly: the path moves on all the same
    for question in Question.objects.filter(quiz__slug="checkpoint-core"):
        checkpoint_answer_record(user=alice, section=core, key=question.key, right=False)
    assert step(client) == "Read section 02: RLlib"
    home = client.get("/").content.decode()
    assert "checkpoint 0/1 right" in home

    section_read(user=alice, section=Section.objects.get(slug="rllib"))
    assert step(client) == step(client, "/study/") == "Learn 5 new cards today"

    # a card due today goes before everything
    card = small_deck.cards.get(slug="ray-task")
    review_record(user=alice, card=card, grade=4, now=timezone.now() - timedelta(days=1))
    assert step(client) == step(client, "/study/") == "Review 1 card due today"
    others = client.get("/").content.decode()
    assert "Learn 4 new cards today" in others and "Take the knowledge check" in others


def test_with_nothing_due_or_new_the_quiz_then_cram(alice, small_deck):
    decks = [small_deck]
    paths = selectors.learning_path(alice, decks)
    for step_ in paths[small_deck.pk].sections:
        step_.read = True
    nothing = {small_deck.pk: {"due": 0, "new": 0}}
    actions = selectors.next_actions(decks, nothing, paths, interview=None)
    assert actions.primary.kind == "cram" and actions.others == []
    plan = selectors.Action("interview", "Study 3 cards for your interview (in 4 days)", "/p/")
    actions = selectors.next_actions(decks, {small_deck.pk: {"due": 2, "new": 5}}, paths,
                                     interview=plan)  # fmt: skip
    assert [a.kind for a in [actions.primary, *actions.others]] == ["due", "interview", "new"]
