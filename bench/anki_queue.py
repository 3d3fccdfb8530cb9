"""Anki's next card and answer + next card at 100,000 review cards (2% due), for the side by
side of bench/README-queue-scale.md (issue 30). Runs in a venv of its own with Anki from PyPI,
not in the app's (no Django here):

    python3.11 -m venv /tmp/qs-anki && /tmp/qs-anki/bin/pip install anki==26.9.3
    /tmp/qs-anki/bin/python bench/anki_queue.py [-n 30]

A fresh collection in a temporary directory: 100,000 Basic notes in one deck, made review cards
by SQL (interval 10 days, ease 250%), every 50th due yesterday and the rest due in 1-300 days;
the deck's review limit set to 200, then 5,000. Timed, median and p90 of -n calls:
- cold queue + next card: `get_queued_cards(fetch_limit=1)` right after the deck's options were
  saved again (which makes Anki build its queue afresh);
- next card: `get_queued_cards(fetch_limit=1)` again (Anki keeps the queue it built);
- answer Good + next card: `answer_card` of the first queued card, then `get_queued_cards`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from anki.collection import AddNoteRequest, Collection
from anki.scheduler.v3 import CardAnswer

CARDS = 100_000


def figures(times: list[float]) -> dict:
    times = sorted(times)
    return {"p50": statistics.median(times) * 1000, "p90": times[int(len(times) * 0.9)] * 1000}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=30)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="qs-anki-"))
    col = Collection(str(folder / "collection.anki2"))
    t = time.perf_counter()
    deck = col.decks.id("bench-100k")
    basic = col.models.by_name("Basic")
    for start in range(0, CARDS, 10_000):
        requests = []
        for k in range(start, start + 10_000):
            note = col.new_note(basic)
            note["Front"] = f"Question {k}: what does an actor keep?"
            note["Back"] = f"Its state (card {k})."
            requests.append(AddNoteRequest(note=note, deck_id=deck))
        col.add_notes(requests)
    today = col.sched.today
    col.db.execute(
        "UPDATE cards SET type = 2, queue = 2, ivl = 10, factor = 2500, reps = 3,"
        " due = CASE WHEN rowid % 50 = 0 THEN ? ELSE ? + 1 + rowid % 300 END",
        today - 1,
        today,
    )
    print(f"seed: {CARDS} review cards in {time.perf_counter() - t:.1f} s", flush=True)
    out = {}
    for limit in (200, 5000):
        conf = col.decks.config_dict_for_deck_id(deck)
        conf["rev"]["perDay"] = limit
        col.decks.update_config(conf)
        col.decks.select(deck)
        cold, warm, answer = [], [], []
        for _ in range(args.n):
            col.decks.update_config(conf)  # the queue is built afresh
            t = time.perf_counter()
            col.sched.get_queued_cards(fetch_limit=1)
            cold.append(time.perf_counter() - t)
        for _ in range(args.n):
            t = time.perf_counter()
            col.sched.get_queued_cards(fetch_limit=1)
            warm.append(time.perf_counter() - t)
        queued = col.sched.get_queued_cards(fetch_limit=1)
        for _ in range(args.n):
            card = col.get_card(queued.cards[0].card.id)
            card.start_timer()
            states = queued.cards[0].states
            t = time.perf_counter()
            col.sched.answer_card(
                col.sched.build_answer(card=card, states=states, rating=CardAnswer.GOOD)
            )
            queued = col.sched.get_queued_cards(fetch_limit=1)
            answer.append(time.perf_counter() - t)
        out[f"cold queue + next card, limit {limit}"] = figures(cold)
        out[f"next card, limit {limit}"] = figures(warm)
        out[f"answer Good + next card, limit {limit}"] = figures(answer)
        out[f"due shown, limit {limit}"] = queued.review_count
    col.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
