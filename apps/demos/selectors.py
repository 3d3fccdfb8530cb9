"""Reads shared by the demo pages and the API."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import QuerySet

from apps.decks.models import Card
from apps.demos.models import DemoCardLink, DemoPoint, DemoRun
from apps.demos.ray_demos import DemoSpec, get_demo


def cards_by_demo() -> dict[str, list[Card]]:
    """Every demo's linked cards, in one query."""
    links = DemoCardLink.objects.select_related("card__deck", "card__section").filter(
        card__deck__is_published=True
    )
    out: dict[str, list[Card]] = defaultdict(list)
    for link in links:
        out[link.demo].append(link.card)
    return out


def demo_cards(slug: str) -> list[Card]:
    return [
        link.card
        for link in DemoCardLink.objects.select_related("card__deck", "card__section").filter(
            demo=slug, card__deck__is_published=True
        )
    ]


def live_demos_by_card(section) -> dict[int, list[DemoSpec]]:
    """card id -> the demos illustrating it, for a section's cards, in one query."""
    out: dict[int, list[DemoSpec]] = defaultdict(list)
    links = DemoCardLink.objects.filter(card__section=section).values_list("card_id", "demo")
    for card_id, slug in links:
        spec = get_demo(slug)
        if spec is not None:
            out[card_id].append(spec)
    return out


def user_runs(user, *, demo: str | None = None) -> QuerySet[DemoRun]:
    runs = DemoRun.objects.filter(user=user)
    return runs.filter(demo=demo) if demo else runs


def run_for_user(user, run_id: int) -> DemoRun:
    """The caller's own run; anyone else's id is simply not found."""
    return DemoRun.objects.get(pk=run_id, user=user)


def run_points(run: DemoRun, *, since: int = 0) -> list[dict]:
    return [
        {"seq": seq, **data}
        for seq, data in DemoPoint.objects.filter(run=run, seq__gt=since).values_list("seq", "data")
    ]
