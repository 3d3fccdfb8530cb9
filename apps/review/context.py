"""What the review page shows: the session's start, the card's buttons (SM-2's preview), why
the card is here, and the fragment's context (moved out of views.py, which serves it)."""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timedelta

from django.urls import reverse
from django.utils import timezone

from apps.decks.models import Deck
from apps.interview import plan
from apps.study import queue, scheduler, selectors
from apps.study.queue import QueueItem

# The four buttons (as Anki shows them) and the SM-2 grade each one sends.
BUTTONS = [("Again", 1, "1"), ("Hard", 3, "2"), ("Good", 4, "3"), ("Easy", 5, "4")]
SESSION_KEY = "study_session"
SESSION_IDLE = timedelta(hours=1)


def session_scope(request) -> str:
    """What is being reviewed: the deck (all decks: "") and the card set of a "review these"."""
    deck = request.resolver_match.kwargs.get("deck_slug") if request.resolver_match else None
    return f"{deck or request.POST.get('deck') or ''}|{request.GET.get('cards', '')}"


def session_start(request, *, fresh: bool) -> datetime:
    """When this study session began: a full page load after an hour's pause, or of another
    deck or card set (a quiz's "review these" after the day's queue), starts a new one, so the
    summary counts this session's reviews, not the day's."""
    now = timezone.now()
    saved = request.session.get(SESSION_KEY) or {}
    scope = session_scope(request)
    since = datetime.fromisoformat(saved["since"]) if saved.get("since") else None
    last = datetime.fromisoformat(saved["last"]) if saved.get("last") else None
    stale = last is None or now - last > SESSION_IDLE or saved.get("scope") != scope
    if since is None or (fresh and stale):
        since = last = None
    # Saved at most once a minute: a session row UPDATE per card would be most of a review.
    if last is None or now - last > timedelta(minutes=1):
        since = since or now
        request.session[SESSION_KEY] = {
            "since": since.isoformat(), "last": now.isoformat(), "scope": scope,
        }  # fmt: skip
    return since or now  # (never None here: a missing one was started above)


def _why(item: QueueItem, schedule: scheduler.CardSchedule, zone) -> str:
    """One sentence on why the card is in front of the learner now."""
    if item.for_interview:
        return (
            "For your interview: the interview scheduler asks for it today although SM-2 has"
            " not made it due; grading it updates its memory and leaves its SM-2 schedule as it"
            " is."
        )
    if item.kind == "new":
        return "New card: you have not studied it yet; it counts towards today's new cards."
    if schedule.needs_redrill:
        return (
            "Re-drill: you graded it 3 today. Good or Easy clears it and schedules it "
            f"{schedule.interval_days} days after that review; a lower grade keeps it here today."
        )
    if item.kind == "redrill":
        return "Again today: you graded it below 3 earlier today, so it starts over (n = 0)."
    assert schedule.due_at is not None  # a reviewed card's schedule has its due time
    due_day = scheduler.local_date(schedule.due_at, zone)
    days = schedule.interval_days
    plural = "s" if days != 1 else ""
    return f"Due: an interval of {days} day{plural} made it due on {due_day:%-d %b %Y}."


def _card_ids(request) -> list[int]:
    """The card set of a "review these" link (?cards=3,5,8), if any."""
    raw = request.GET.get("cards", "")
    return [int(pk) for pk in raw.split(",") if pk.isdigit() and len(pk) < 10][: queue.CARD_SET_MAX]


def review_context(
    request,
    deck: Deck | None,
    *,
    since: datetime,
    item=None,
    notice="",
    avoid=None,
    done=None,
    leech=None,
):
    """What the review fragment shows. `done` (reviews so far this session) travels in the form,
    so a grade costs no summary query; it is counted from the log on a page load and at the end.
    With ?cards=... the queue is exactly those cards (the ones still to re-learn)."""
    card_ids = _card_ids(request)
    if card_ids:
        avoid = avoid.pk if avoid is not None else None
        to_study = queue.card_set_queue(request.user, card_ids, avoid=avoid)
    else:
        to_study = plan.study_queue(request.user, deck, size=1, avoid=avoid)
    item = item or to_study.next
    summary = today = None
    if done is None or item is None:
        summary = selectors.session_summary(request.user, since)
        done = summary.reviews
    if item is None and summary is not None and summary.reviews:  # (set when item is None)
        # The day's figures beside the session's, each labelled (one query, at the end only).
        today = selectors.session_summary(
            request.user, scheduler.day_start(to_study.now, to_study.zone)
        )
    remaining = to_study.total
    grade_url = reverse("study:review-deck", args=[deck.slug]) if deck else reverse("study:review")
    undo_url = reverse("study:undo")
    if card_ids:
        card_set = "?cards=" + ",".join(map(str, card_ids))
        grade_url, undo_url = grade_url + card_set, undo_url + card_set
    context = {
        "deck": deck,
        "queue": to_study,
        "item": item,
        "notice": notice,
        "summary": summary,
        "since": since,
        "today": today,
        "done": done,
        "remaining": remaining,
        "progress_max": done + remaining,
        "grade_url": grade_url,
        "undo_url": undo_url,
        "card_ids": card_ids,
        "leech": leech,  # (card, lapses) when the grade just given made that card a leech
    }
    if item is None:
        context["next_steps"] = selectors.next_steps(request.user, deck, to_study.now)
    if item is not None:
        now, zone = to_study.now, to_study.zone
        schedule = item.schedule or scheduler.new_state(now)
        intervals = scheduler.preview(schedule, now, zone)
        eases = scheduler.preview_ease(schedule, now)
        context |= {
            "schedule": schedule,
            "is_new": item.state is None,
            "why": _why(item, schedule, zone),
            "buttons": [
                {
                    "name": name,
                    "grade": g,
                    "key": key,
                    "label": scheduler.format_days(intervals[g]),
                    "ease": scheduler.format_ease_change(eases[g]),
                }
                for name, g, key in BUTTONS
            ],
            "exact_grades": [
                {
                    "grade": g,
                    "name": scheduler.GRADE_NAMES[g],
                    "label": scheduler.format_days(intervals[g]),
                }
                for g in scheduler.GRADES
            ],
            "client_id": uuid.uuid4(),
            "shown_at": int(time.time() * 1000),
        }
    return context
