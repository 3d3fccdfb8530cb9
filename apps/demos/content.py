"""fixtures/demos/*.yaml: which cards each demo illustrates (loaded by `manage.py seed`)."""

from __future__ import annotations

from pathlib import Path

from apps.decks.content import ContentError, read_yaml
from apps.decks.models import Deck
from apps.decks.selectors import card_names
from apps.demos.models import DemoCardLink
from apps.demos.ray_demos import get_demo


def demo_links_file_load(path: Path) -> str:
    """Replace the card links of every demo named in the file; unknown names are refused. A
    note's slug (a cloze or reversed note) links all of the note's cards."""
    source = path.name
    data = read_yaml(path.read_text(encoding="utf-8"), source)
    if not isinstance(data, dict) or set(data) - {"deck", "links"} or "links" not in data:
        raise ContentError(source, "", "expected keys 'deck' and 'links'")
    deck_slug, links = data.get("deck"), data["links"]
    if not isinstance(links, dict):
        raise ContentError(source, "links", "expected demo-slug: [card slugs]")
    deck = Deck.objects.filter(slug=deck_slug).first() if isinstance(deck_slug, str) else None
    cards = card_names(deck) if deck is not None else {}
    if not cards:
        raise ContentError(source, "deck", f"no deck {deck_slug!r} with cards (load decks first)")
    created = 0
    for demo, card_slugs in links.items():
        if get_demo(str(demo)) is None:
            raise ContentError(source, str(demo), "no such demo")
        if not isinstance(card_slugs, list) or not card_slugs:
            raise ContentError(source, str(demo), "expected a list of card slugs")
        missing = [slug for slug in card_slugs if slug not in cards]
        if missing:
            raise ContentError(source, str(demo), f"no card {missing[0]!r} in deck {deck_slug}")
        DemoCardLink.objects.filter(demo=demo, card__deck__slug=deck_slug).delete()
        ids = list(dict.fromkeys(pk for slug in card_slugs for pk in cards[slug]))
        DemoCardLink.objects.bulk_create(
            DemoCardLink(demo=demo, card_id=pk, order=i) for i, pk in enumerate(ids)
        )
        created += len(ids)
    return f"{created} card links for {len(links)} demos"
