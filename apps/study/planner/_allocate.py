"""The allocation: which items get a review on which day, to maximise the expected recall on the
interview day within each day's budget.

The objective is separable (an item's recall on the day depends only on its own reviews), so
each possible review has an expected gain: the item's expected recall on the day with that
review added to the ones it already has, minus without. The budget is given out one review a
day at a time ("layers"): layer b adds one more slot to every day (today's only once the
reviews already done today are paid for), and the slots of a layer go to the largest gains,
one review per item per layer, each only if it gains at least `min_gain`. So the plan for a
budget of b + 1 a day is the plan for b plus one layer: more budget never lowers the predicted
recall, no day gets more than its budget, and the same inputs always give the same plan.

After each layer only the rows of the items that got a review are computed again (numpy, one
lane per item and candidate day). All the unseen items are alike to the model, so they are one
row until the next one in lesson order is taken; it is introduced on the earliest day with room
left in the layer and ranked by what a first sight there gives. The model alone would leave
first sights to the last days (a single sight the day before is remembered best on the day),
but a first sight is nearly always a miss and the reviews after it are what it is for, and a
plan with room to spare must not leave today empty and the new cards to the end. An item whose
best gain falls below `min_gain` can never rise again without a review of its own, so it leaves
the candidates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from apps.study.planner._forecast import expected_recall

MAX_REVIEWS = 4  # planned reviews of one item before the date, at most
# Far dates: the first week and the last two day by day, the days between in blocks (a review
# planned in a block falls on its middle day), at most MAX_COLUMNS columns in all.
DAY_BY_DAY = 45
HEAD_DAYS, TAIL_DAYS, MAX_COLUMNS = 7, 14, 36


@dataclass(frozen=True)
class Column:
    start: int  # first day (0 = today)
    width: int  # days

    @property
    def day(self) -> int:
        """The day a review planned in this column is assumed to happen."""
        return self.start + self.width // 2


def columns(days_until: int) -> list[Column]:
    horizon = max(1, days_until)
    if horizon <= DAY_BY_DAY:
        return [Column(d, 1) for d in range(horizon)]
    tail = horizon - TAIL_DAYS
    out = [Column(d, 1) for d in range(HEAD_DAYS)]
    blocks = MAX_COLUMNS - HEAD_DAYS - TAIL_DAYS
    width = -(-(tail - HEAD_DAYS) // blocks)  # ceiling
    for day in range(HEAD_DAYS, tail, width):
        out.append(Column(day, min(width, tail - day)))
    return out + [Column(d, 1) for d in range(tail, horizon)]


@dataclass
class Allocation:
    keys: list[int]  # row -> item key (the seen items first, then the new ones taken)
    planned: list[list[int]]  # row -> the columns it is reviewed in, in the order given
    value: np.ndarray  # row -> expected recall on the day with those reviews
    order: list[tuple[int, int]]  # (row, column) in the order the reviews were given out
    new_rows: int  # how many rows are new items taken from the pool


def allocate(
    *,
    w,
    cols: list[Column],
    interview: int,
    s0: np.ndarray,
    d0: np.ndarray,
    last0: np.ndarray,
    keys: list[int],
    new_keys: list[int],
    per_day: int,
    done_today: int,
    min_gain: float,
) -> Allocation:
    """Give out the budget. s0, d0, last0: the seen items' memories (last0 in days from today,
    0 or less); keys: their keys; new_keys: the unseen items in the order to introduce them."""
    n_cols = len(cols)
    col_day = np.array([c.day for c in cols], dtype=np.float64)
    seen = len(keys)
    rows = seen + len(new_keys)
    s = np.concatenate([s0, np.ones(len(new_keys))]).astype(np.float64)
    d = np.concatenate([d0, np.ones(len(new_keys))]).astype(np.float64)
    last = np.concatenate([last0, np.zeros(len(new_keys))]).astype(np.float64)
    is_seen = np.arange(rows) < seen
    plan_days = np.full((rows, MAX_REVIEWS), np.inf)
    count = np.zeros(rows, dtype=np.int64)
    used = np.zeros((rows, n_cols), dtype=bool)
    # A seen item reviewed today already is not planned again today (today's queue leaves it
    # out; a failed one comes back as SM-2's re-drill).
    used[:seen, 0] |= last0 >= 0
    value = np.zeros(rows)
    if seen:
        value[:seen] = expected_recall(
            w, s[:seen], d[:seen], last[:seen], is_seen[:seen], plan_days[:seen, :0], interview
        )
    gains = np.full((rows, n_cols), -np.inf)
    key_of = np.array(keys + new_keys, dtype=np.int64)

    def compute(idx: np.ndarray) -> None:
        if not len(idx):
            return
        k = int(count[idx].max())
        base = plan_days[idx, :k]
        lanes = np.concatenate(
            [np.repeat(base, n_cols, axis=0), np.tile(col_day, len(idx))[:, None]], axis=1
        )
        lanes.sort(axis=1)
        rep = np.repeat(idx, n_cols)
        ev = expected_recall(w, s[rep], d[rep], last[rep], is_seen[rep], lanes, interview)
        g = ev.reshape(len(idx), n_cols) - value[idx][:, None]
        g[used[idx]] = -np.inf
        g[count[idx] >= MAX_REVIEWS] = -np.inf
        gains[idx] = g

    alive = np.arange(seen)
    compute(alive)
    pool = seen  # the next unseen item's row
    pool_gain = np.full(n_cols, -np.inf)
    if new_keys:
        compute(np.array([pool]))
        pool_gain = gains[pool].copy()
    alive = alive[gains[alive].max(axis=1, initial=-np.inf) >= min_gain] if seen else alive

    free = np.zeros(n_cols)
    order: list[tuple[int, int]] = []
    planned: list[list[int]] = [[] for _ in range(rows)]
    for layer in range(1, per_day + 1):
        units = np.array([c.width for c in cols], dtype=np.float64)
        units[0] = 1.0 if layer > done_today else 0.0
        if cols[0].width > 1:  # today is always a column of its own
            raise AssertionError("today must be a column of its own")
        free += units
        open_cols = np.flatnonzero(free >= 1)
        if not len(open_cols):
            continue
        # the candidates: per open column the best rows still alive, and the unseen pool
        cand_gain, cand_row, cand_col = [], [], []
        if len(alive):
            sub = gains[np.ix_(alive, open_cols)]
            take = min(len(alive), len(open_cols) + int(free[open_cols].max()))
            if take < len(alive):
                top = np.argpartition(-sub, take - 1, axis=0)[:take]
            else:
                top = np.broadcast_to(np.arange(len(alive))[:, None], sub.shape)
            g = np.take_along_axis(sub, top, axis=0)
            cand_gain.append(g.ravel())
            cand_row.append(alive[top].ravel())
            cand_col.append(np.broadcast_to(open_cols, g.shape).ravel())
        if pool < rows:
            # every free slot could take the next unseen item, introduced on the earliest day
            # with room (see the module's docstring), and ranked by what it gives there
            earliest = int(open_cols[0])
            slots = int(free[open_cols].sum())
            cand_gain.append(np.full(slots, pool_gain[earliest]))
            cand_row.append(np.full(slots, -1))
            cand_col.append(np.full(slots, earliest))
        if cand_gain:
            gain_all = np.concatenate(cand_gain)
            row_all = np.concatenate(cand_row)
            col_all = np.concatenate(cand_col)
            worth = gain_all >= min_gain
            gain_all, row_all, col_all = gain_all[worth], row_all[worth], col_all[worth]
        else:
            gain_all = np.zeros(0)
        if not len(gain_all):
            break  # nothing left worth a review, whatever the budget
        key_all = np.where(row_all >= 0, key_of[np.maximum(row_all, 0)], -1)
        ranked = np.lexsort((row_all, col_all, key_all, -gain_all))
        taken_rows: set[int] = set()
        changed: list[int] = []
        for c in ranked:
            j, row, gain = int(col_all[c]), int(row_all[c]), float(gain_all[c])
            if row < 0:  # an unseen item: the next one in order, on the earliest day with room
                if pool >= rows:
                    continue
                j = int(np.flatnonzero(free >= 1)[0])
                gain = float(pool_gain[j])
                if gain < min_gain:
                    continue
                row = pool
                pool += 1
            elif row in taken_rows or free[j] < 1:
                continue
            taken_rows.add(row)
            free[j] -= 1
            plan_days[row, count[row]] = col_day[j]
            count[row] += 1
            used[row, j] = True
            planned[row].append(j)
            order.append((row, j))
            value[row] += gain  # exact: the gain was worked out with this very review added
            changed.append(row)
            if free[open_cols].max() < 1:
                break
        if not changed:
            break
        idx = np.array(sorted(set(changed)))
        plan_days[idx] = np.sort(plan_days[idx], axis=1)
        compute(idx)
        still = idx[gains[idx].max(axis=1) >= min_gain]
        alive = np.union1d(np.setdiff1d(alive, idx), still)
    return Allocation(
        keys=keys + new_keys[: pool - seen],
        planned=planned[:pool],
        value=value[:pool],
        order=order,
        new_rows=pool - seen,
    )
