"""The queue's reference copy: its lists read one by one as model rows, the plain way, for the
one-statement queue (apps.study.queue) to be tested against."""

from apps.accounts.models import profile_for
from apps.study import queue_sql, scheduler, selectors


def reference_queue(user, deck=None, *, now):
    zone = profile_for(user).zone
    start, end = scheduler.day_start(now, zone), scheduler.day_end(now, zone)
    lists = queue_sql.QueueLists(user, deck, start, end, None)
    day = selectors.today(user, now)
    redrills = lists.redrills.select_related("card", "card__section")
    reviews = lists.reviews.select_related("card", "card__section")
    items = [("redrill", s.card.slug, s.pk) for s in redrills]
    items += [("due", s.card.slug, s.pk) for s in reviews[: day.reviews_left]]
    items += [("new", c.slug, None) for c in lists.new[: day.new_left]]
    counts = {kind: sum(1 for i in items if i[0] == kind) for kind in ("redrill", "due", "new")}
    return items, counts, {"new": day.new_left, "due": day.reviews_left}
