from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from apps.decks.content import ContentError, deck_document, deck_file_load, parse_deck
from apps.decks.models import Card, Concept, Deck, Section

SHIPPED = Path(__file__).resolve().parents[2] / "fixtures" / "decks"

MINIMAL = {
    "slug": "tiny",
    "title": "Tiny deck",
    "description": "A *tiny* deck.",
    "objectives": ["Know one thing"],
    "sections": [
        {
            "slug": "one",
            "title": "One",
            "summary": "The first.",
            "concepts": [{"question": "Why?", "explanation": "Because."}],
            "cards": [
                {"slug": "a", "front": "A?", "back": "A.", "tags": ["x"]},
                {"slug": "b", "front": "B?", "back": "B.", "why": "It matters."},
            ],
        }
    ],
}


def write(tmp_path: Path, data, name="deck.yaml") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.django_db
def test_loading_a_deck_file_creates_sections_concepts_and_cards(tmp_path):
    result = deck_file_load(write(tmp_path, MINIMAL))
    assert (result.created, result.changed, result.unchanged) == (2, 0, 0)
    deck = Deck.objects.get(slug="tiny")
    assert deck.description_html == "<p>A <em>tiny</em> deck.</p>\n"
    assert [c.slug for c in deck.cards.order_by("order")] == ["a", "b"]
    assert Concept.objects.get().question == "Why?"


@pytest.mark.django_db
def test_loading_twice_changes_nothing_and_keeps_card_identity(tmp_path):
    path = write(tmp_path, MINIMAL)
    deck_file_load(path)
    ids = dict(Card.objects.values_list("slug", "id"))
    stamps = dict(Card.objects.values_list("slug", "updated_at"))
    result = deck_file_load(path)
    assert (result.created, result.changed, result.unchanged) == (0, 0, 2)
    assert dict(Card.objects.values_list("slug", "id")) == ids
    assert dict(Card.objects.values_list("slug", "updated_at")) == stamps


@pytest.mark.django_db
def test_a_text_edit_updates_the_same_card_row(tmp_path):
    deck_file_load(write(tmp_path, MINIMAL))
    card_id = Card.objects.get(slug="a").id
    edited = yaml.safe_load(yaml.safe_dump(MINIMAL))
    edited["sections"][0]["cards"][0]["back"] = "A, fixed typo."
    result = deck_file_load(write(tmp_path, edited))
    assert (result.created, result.changed, result.unchanged) == (0, 1, 1)
    assert Card.objects.get(slug="a").id == card_id
    assert Card.objects.get(slug="a").back == "A, fixed typo."


@pytest.mark.django_db
def test_dry_run_counts_but_writes_nothing(tmp_path):
    result = deck_file_load(write(tmp_path, MINIMAL), dry_run=True)
    assert result.created == 2
    assert not Deck.objects.exists()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("title"), "deck: 'title' is missing or empty"),
        (lambda d: d.update(slug="Not A Slug"), "must be lowercase words joined by hyphens"),
        (lambda d: d.update(colour="red"), "unknown key 'colour'"),
        (lambda d: d["sections"][0]["cards"][1].update(slug="a"), "duplicate card slug 'a'"),
        (lambda d: d["sections"][0]["cards"][0].pop("back"), "card 'a': 'back' is missing"),
        (lambda d: d["sections"][0]["cards"][0].update(tags="x"), "'tags' must be a list"),
        (lambda d: d.update(sections=[]), "at least one section"),
    ],
)
def test_malformed_documents_name_the_entry_and_the_problem(mutate, message):
    data = yaml.safe_load(yaml.safe_dump(MINIMAL))
    mutate(data)
    with pytest.raises(ContentError, match="deck.yaml") as excinfo:
        parse_deck(data, "deck.yaml")
    assert message in str(excinfo.value)


@pytest.mark.django_db
def test_seed_refuses_a_broken_file_and_changes_nothing(tmp_path):
    (tmp_path / "decks").mkdir()
    write(tmp_path / "decks", MINIMAL, "a-good.yaml")
    write(tmp_path / "decks", "slug: broken\nsections: [\n", "b-broken.yaml")
    with pytest.raises(CommandError) as excinfo:
        call_command("seed", fixtures=tmp_path, verbosity=0)
    assert "b-broken.yaml" in str(excinfo.value)
    assert "line" in str(excinfo.value)
    assert "Nothing was loaded" in str(excinfo.value)
    assert not Deck.objects.exists()


@pytest.mark.django_db
def test_export_then_load_on_an_empty_database_round_trips(tmp_path):
    deck_file_load(write(tmp_path, MINIMAL))
    document = deck_document(Deck.objects.get(slug="tiny"))
    Deck.objects.all().delete()
    deck_file_load(write(tmp_path, document, "exported.yaml"))
    assert deck_document(Deck.objects.get(slug="tiny")) == document


@pytest.mark.django_db
def test_the_shipped_lesson_seeds_idempotently(seeded):
    deck = Deck.objects.get(slug="distributed-rl-on-ray")
    shipped = yaml.safe_load((SHIPPED / "distributed-rl-on-ray.yaml").read_text(encoding="utf-8"))
    assert list(deck.sections.values_list("slug", flat=True)) == [
        section["slug"] for section in shipped["sections"]
    ]
    assert deck.cards.count() >= 60
    assert len(deck.objectives) >= 6
    assert all(s.concepts.exists() for s in Section.objects.filter(deck=deck))
    ids = dict(Card.objects.values_list("slug", "id"))
    call_command("seed", verbosity=0)
    assert dict(Card.objects.values_list("slug", "id")) == ids


@pytest.mark.django_db
def test_a_reseed_brings_stale_html_up_to_the_renderer_and_nothing_else(tmp_path):
    path = write(tmp_path, MINIMAL)
    deck_file_load(path)
    stamp = Card.objects.get(slug="a").updated_at
    Card.objects.filter(slug="a").update(front_html="<p>rendered by an older renderer</p>")
    result = deck_file_load(path)
    assert (result.created, result.changed, result.unchanged) == (0, 0, 2)
    card = Card.objects.get(slug="a")
    assert card.front_html == "<p>A?</p>\n" and card.updated_at == stamp
