"""The queue's reference copy: its lists read one by one as model rows, the plain way, for the
one-statement queue (apps.study.queue) to be tested against. Sibling burying is done here in
Python over every unseen card, not with the queue's subqueries."""

from apps.accounts.models import profile_for
from apps.decks.models import Card
from apps.study import queue_sql, scheduler, selectors
from apps.study.models import CardState, ReviewLog


def reference_queue(user, deck=None, *, now):
    zone = profile_for(user).zone
    start, end = scheduler.day_start(now, zone), scheduler.day_end(now, zone)
    lists = queue_sql.QueueLists(user, deck, start, end)
    day = selectors.today(user, now)
    redrills = lists.redrills.select_related("card", "card__section")
    reviews = lists.reviews.select_related("card", "card__section")
    items = [("redrill", s.card.slug, s.pk) for s in redrills]
    items += [("due", s.card.slug, s.pk) for s in reviews[: day.reviews_left]]
    new, buried = reference_new(user, deck, start)
    items += [("new", c.slug, None) for c in new[: day.new_left]]
    counts = {kind: sum(1 for i in items if i[0] == kind) for kind in ("redrill", "due", "new")}
    if buried:
        counts["buried"] = buried
    return items, counts, {"new": day.new_left, "due": day.reviews_left}


def reference_new(user, deck, start) -> tuple[list[Card], int]:
    """Every unseen card in use (published decks, or the deck) in id order, less the buried
    siblings: a card of a note reviewed today waits (counted), and so does every unseen card of a
    note after its first. Basic cards and cards without a note_slug have no siblings."""
    cards = Card.objects.filter(deck__is_published=True) if deck is None else deck.cards.all()
    seen = set(CardState.objects.filter(user=user).values_list("card_id", flat=True))
    logs = ReviewLog.objects.filter(user=user, reviewed_at__gte=start, undone_at=None)
    studied = {(log.card.deck_id, log.card.note_slug) for log in logs.select_related("card")}
    new, buried, introduced = [], 0, set()
    for card in cards.order_by("id"):
        if card.pk in seen:
            continue
        note = (card.deck_id, card.note_slug) if card.note_slug and card.kind != "basic" else None
        if note in studied:
            buried += 1
        elif note is None or note not in introduced:
            new.append(card)
        if note is not None:
            introduced.add(note)
    return new, buried
