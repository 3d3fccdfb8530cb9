"""Card kinds (basic, reverse, cloze), sources, and retiring cards a deck file no longer has."""

import copy

import pytest
from django.urls import reverse

from apps.authoring.selectors import learners_with_progress
from apps.decks.content import ContentError, deck_apply, deck_document, parse_deck, read_yaml
from apps.decks.markdown import ClozeError, card_faces, cloze_indices
from apps.decks.models import Card
from apps.demos.content import demo_links_file_load
from apps.demos.models import DemoCardLink
from apps.demos.ray_demos.catalogue import DEMOS
from apps.quizzes.content import parse_quiz_file, quizzes_apply
from apps.quizzes.models import Question
from apps.site.selectors import stats
from apps.study.queue import queue
from apps.study.selectors import due_counts
from apps.study.services import review_record

SOURCE = "Moritz et al. 2018, Ray: A Distributed Framework for Emerging AI Applications, §3.1"
CLOZE = "Ray's core has {{c1::tasks}}, {{c2::actors::stateful}} and {{c1::`objects`}}."

DECK = {
    "slug": "kinds",
    "title": "Kinds",
    "sections": [
        {
            "slug": "one",
            "title": "One",
            "cards": [
                {"slug": "ray-task", "front": "A **task**?", "back": "A call.", "source": SOURCE},
                {
                    "slug": "object-ref",
                    "kind": "reverse",
                    "front": "ObjectRef",
                    "back": "A future naming a value in the object store.",
                    "source": "Ray 2.40 docs: Ray Core > Objects",
                },
                {"slug": "core", "kind": "cloze", "front": CLOZE, "source": SOURCE},
            ],
        }
    ],
}


def load(data):
    return deck_apply(parse_deck(data, "deck.yaml"))


def with_cards(*cards):
    data = copy.deepcopy(DECK)
    data["sections"][0]["cards"] = list(cards)
    return data


@pytest.mark.django_db
def test_each_note_becomes_one_card_per_scheduled_item():
    result = load(DECK)
    slugs = list(Card.objects.order_by("order").values_list("slug", "kind", "note_slug", "ordinal"))
    assert slugs == [
        ("ray-task", "basic", "ray-task", 1),
        ("object-ref", "reverse", "object-ref", 1),
        ("object-ref-reverse", "reverse", "object-ref", 2),
        ("core-c1", "cloze", "core", 1),
        ("core-c2", "cloze", "core", 2),
    ]
    assert result.created == 5


@pytest.mark.django_db
def test_a_cloze_card_hides_its_own_deletions_and_shows_the_others():
    load(DECK)
    c1, c2 = Card.objects.get(slug="core-c1"), Card.objects.get(slug="core-c2")
    assert c1.front_html == (
        '<p>Ray\'s core has <span class="cloze cloze-blank">[...]</span>, actors and'
        ' <span class="cloze cloze-blank">[...]</span>.</p>\n'
    )
    assert '<span class="cloze cloze-blank">[stateful]</span>' in c2.front_html
    assert "tasks" in c2.front_html and "<code>objects</code>" in c2.front_html
    assert '<span class="cloze"><code>objects</code></span>' in c1.back_html
    assert '<span class="cloze">actors</span>' in c2.back_html


@pytest.mark.django_db
def test_a_reversed_note_asks_both_ways_and_every_back_names_its_source():
    load(DECK)
    forward, backward = (
        Card.objects.get(slug="object-ref"),
        Card.objects.get(slug="object-ref-reverse"),
    )
    assert forward.front_html == "<p>ObjectRef</p>\n"
    assert backward.front_html.startswith("<p>A future naming")
    assert backward.back_html.startswith("<p>ObjectRef</p>")
    for card in Card.objects.all():
        assert '<p class="card-source"><span>Source:</span> ' in card.back_html
    assert "Ray 2.40 docs: Ray Core &gt; Objects" in forward.back_html


@pytest.mark.parametrize(
    ("front", "problem"),
    [
        ("Ray has {{c1::tasks} and actors.", "unbalanced cloze braces"),
        ("Ray has tasks and actors.", "needs at least one deletion"),
        ("Ray has {{c0::tasks}}.", "c0 must start at 1"),
        ("Ray has {{tasks}}.", "is not a cloze deletion"),
    ],
)
def test_malformed_cloze_markup_is_refused_naming_the_card(front, problem):
    data = with_cards({"slug": "broken", "kind": "cloze", "front": front})
    with pytest.raises(ContentError) as refused:
        parse_deck(data, "deck.yaml")
    assert "card 'broken'" in str(refused.value)
    assert problem in str(refused.value)


def test_unknown_kind_and_a_reverse_note_without_a_back_are_refused():
    with pytest.raises(ContentError, match="kind 'flip' must be one of basic, reverse, cloze"):
        parse_deck(with_cards({"slug": "x", "kind": "flip", "front": "A", "back": "B"}), "d")
    with pytest.raises(ContentError, match="card 'x': 'back' is missing"):
        parse_deck(with_cards({"slug": "x", "kind": "reverse", "front": "A"}), "d")


def test_a_made_slug_that_clashes_with_another_card_is_refused():
    data = with_cards(
        {"slug": "core-c1", "front": "A", "back": "B"},
        {"slug": "core", "kind": "cloze", "front": "{{c1::x}}"},
    )
    with pytest.raises(ContentError, match="card 'core': duplicate card slug 'core-c1'"):
        parse_deck(data, "d")


def test_cloze_indices_are_distinct_and_sorted():
    assert cloze_indices("{{c3::a}} {{c1::b}} {{c3::c}}") == [1, 3]
    with pytest.raises(ClozeError):
        cloze_indices("{{c1::a {{c2::b}} }}")


def test_author_text_cannot_forge_a_cloze_highlight():
    prompt, answer = card_faces("cloze", 1, "\ue000x\ue001 {{c1::y}} <script>", "")
    assert "<script>" not in prompt
    assert prompt.count('<span class="cloze') == 1 and "\ue000" not in answer


@pytest.mark.django_db
def test_the_document_writes_each_note_once_and_loads_back_identically():
    load(DECK)
    document = deck_document(Card.objects.first().deck)
    entries = document["sections"][0]["cards"]
    assert [(e["slug"], e.get("kind", "basic")) for e in entries] == [
        ("ray-task", "basic"),
        ("object-ref", "reverse"),
        ("core", "cloze"),
    ]
    assert entries[2]["source"] == SOURCE
    result = load(document)
    assert (result.created, result.changed, result.unchanged, result.retired) == (0, 0, 5, {})


@pytest.mark.django_db
def test_a_card_the_file_drops_is_retired_with_its_learners_history(alice, bob):
    load(DECK)
    task = Card.objects.get(slug="ray-task")
    review_record(user=alice, card=task, grade=5)
    review_record(user=bob, card=task, grade=4)
    split = with_cards(
        {"slug": "ray-task-call", "front": "A task is?", "back": "A call.", "source": SOURCE},
        *DECK["sections"][0]["cards"][1:],
    )
    # The learners' count comes from above decks (study's states); authoring passes it in.
    counted = {"learners_of": learners_with_progress}
    preview = deck_apply(parse_deck(split, "deck.yaml"), dry_run=True, **counted)
    assert preview.retired == {"ray-task": 2} and preview.created_slugs == ["ray-task-call"]
    assert Card.objects.filter(slug="ray-task").exists()  # a dry run writes nothing

    result = deck_apply(parse_deck(split, "deck.yaml"), **counted)
    assert result.retired == {"ray-task": 2}
    assert "1 retired (2 learner progress records kept)" in str(result)
    assert not Card.objects.filter(slug="ray-task").exists()
    kept = Card.all_objects.get(slug="ray-task")
    assert kept.retired_at is not None and kept.states.count() == 2
    assert task.pk not in {item.card.pk for item in queue(alice, kept.deck).items}
    counts = due_counts(alice)[kept.deck_id]
    # ray-task-call and the first card of each note (their siblings wait a day); the retired
    # ray-task is neither new nor "seen" here; the queue serves exactly what the count says
    assert counts["new"] == 3 == queue(alice, kept.deck).counts["new"]
    mastery = {m.title: (m.cards, m.learnt) for m in stats(alice).mastery}
    assert mastery["One"] == (5, 0)

    back = load(DECK)  # the slug comes back: the same row, schedules and all
    assert Card.objects.get(slug="ray-task").pk == task.pk and back.retired == {"ray-task-call": 0}


@pytest.mark.django_db
def test_a_quiz_may_name_a_cloze_note_meaning_all_its_deletion_cards():
    load(DECK)
    quizzes = {
        "deck": "kinds",
        "quizzes": [
            {
                "slug": "kc",
                "title": "Check",
                "kind": "knowledge_check",
                "questions": [
                    {
                        "slug": "q",
                        "kind": "single",
                        "prompt": "Which holds state?",
                        "explanation": "Actors do.",
                        "cards": ["core", "object-ref"],
                        "choices": [
                            {"text": "An actor", "correct": True},
                            {"text": "A task", "correct": False},
                        ],
                    }
                ],
            }
        ],
    }
    quizzes_apply(parse_quiz_file(quizzes, "quiz.yaml"))
    linked = set(Question.objects.get().cards.values_list("slug", flat=True))
    assert linked == {"core-c1", "core-c2", "object-ref", "object-ref-reverse"}


@pytest.mark.django_db
def test_a_demo_link_may_name_a_note_meaning_all_its_cards(tmp_path):
    load(DECK)
    links = tmp_path / "links.yaml"
    links.write_text(f"deck: kinds\nlinks:\n  {DEMOS[0].slug}: [core, ray-task]\n")
    assert demo_links_file_load(links) == "3 card links for 1 demos"
    linked = DemoCardLink.objects.filter(demo=DEMOS[0].slug).order_by("order")
    assert [link.card.slug for link in linked] == ["core-c1", "core-c2", "ray-task"]


def test_an_unquoted_cloze_front_in_yaml_gets_a_hint():
    text = (
        "slug: d\nsections:\n  - slug: s\n    cards:\n      - front: {{c1::Ray}} is a framework\n"
    )
    with pytest.raises(ContentError, match="a cloze\\) must be in quotes or a \\|- block"):
        read_yaml(text, "deck.yaml")
    with pytest.raises(ContentError, match="put text that starts with \\{ or \\[ in quotes"):
        parse_deck(with_cards({"slug": "x", "kind": "cloze", "front": {"c1": "x"}}), "d")


@pytest.mark.django_db
def test_the_section_page_cram_and_the_api_show_the_source_on_the_back(client, alice):
    load(DECK)
    card = Card.objects.get(slug="core-c2")
    page = client.get(card.get_absolute_url()).content.decode()
    assert '<span class="cloze cloze-blank">[stateful]</span>' in page
    assert page.count('<p class="card-source"><span>Source:</span>') == 5
    client.force_login(alice)
    cram = client.get(reverse("study:cram", args=["kinds"])).content.decode()
    assert '<p class="card-source">' in cram
    api = client.get("/api/decks/kinds/").json()
    cards = {c["slug"]: c for s in api["sections"] for c in s["cards"]}
    assert cards["core-c2"]["source"] == SOURCE and "card-source" in cards["core-c2"]["back_html"]
    assert (cards["core-c2"]["kind"], cards["core-c2"]["note_slug"]) == ("cloze", "core")
