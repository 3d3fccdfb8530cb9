"""The device pack (issue 32): what the review page keeps on the device to review from its own
queue, online (the next card shows at once, the grade goes in the background) and offline.

Today's queue in queue order (re-drills, due, new: the whole queue, one statement), then the
cards that become due by the end of the learner's local tomorrow, each with its full SM-2 state
(last review, re-drill anchor: what the device's SM-2 needs) and what the page shows of it. A
fixed number of queries whatever the number of cards (pinned by tests/review/test_device.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.interview import plan
from apps.study import scheduler
from apps.study.models import CardState
from apps.study.queue_sql import learner_states

# How many cards due tomorrow the pack carries at most (a day's budget is far less).
TOMORROW_MAX = 500


def hold_days() -> int:
    return getattr(settings, "OFFLINE_HOLD_DAYS", 7)


def device_pack(user, now: datetime | None = None) -> dict:
    """The pack as GET /api/study/device-pack/ returns it (offline-contract.md, section 2)."""
    now = now or timezone.now()
    profile = profile_for(user)
    zone = profile.zone
    today = plan.study_queue(user, None, now=now)
    order = [(item.card.pk, item.kind) for item in today.items]
    end = scheduler.day_end(now, zone)
    tomorrow_end = scheduler.day_end(end + timedelta(hours=12), zone)
    listed = {pk for pk, _ in order}
    later = (
        learner_states(user, None)
        .filter(due_at__gte=end, due_at__lt=tomorrow_end)
        .order_by("due_at", "card_id")
        .values_list("card_id", flat=True)[:TOMORROW_MAX]
    )
    order += [(pk, "due") for pk in later if pk not in listed]
    ids = [pk for pk, _ in order]
    cards = Card.objects.select_related("section", "deck").in_bulk(ids)
    states = {s.card_id: s for s in CardState.objects.filter(user=user, card_id__in=ids)}
    rows = []
    for pk, kind in order:
        card = cards.get(pk)
        if card is None:
            continue
        state = states.get(pk)
        rows.append(_card_row(card, state, kind))
    return {
        "user": user.pk,
        "generated_at": now.isoformat(),
        "hold_days": hold_days(),
        "time_zone": profile.time_zone,
        "day_end": end.isoformat(),
        "scheduler": today.scheduler,
        "limits": {
            **today.limits,
            "counts": today.counts,
            "reviews_per_day": profile.reviews_per_day,
            "leech_threshold": profile.leech_threshold,
        },
        "cards": rows,
    }


def _card_row(card: Card, state: CardState | None, kind: str) -> dict:
    return {
        "card": card.pk,
        # The sibling key, as the queue's `avoid` reads it: a basic card has no siblings.
        "note": None
        if card.kind == Card.Kind.BASIC or not card.note_slug
        else f"{card.deck_id}:{card.note_slug}",
        "deck": card.deck.slug,
        "section": card.section.title,
        "cloze": card.kind == Card.Kind.CLOZE,
        "front_html": card.front_html,
        "back_html": card.back_html,
        "why_html": card.why_html,
        "type_answer": card.type_answer,
        "state": state.schedule.as_json() if state is not None else None,
        "kind": kind,
    }
