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

from apps.interview.planner._forecast import Weights, expected_recall

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


# Per layer, the candidates are the rows with the best gains (twice as many as the layer has
# slots, and one a column more), and per open column its best rows among them.
ROWS_PER_SLOT = 2


def allocate(
    *,
    w: Weights,
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
    goal: float | None = None,
    levels: tuple[int, ...] = (),
) -> tuple[Allocation, dict[int, float]]:
    """Give out the budget. s0, d0, last0: the seen items' memories (last0 in days from today,
    0 or less); keys: their keys; new_keys: the unseen items in the order to introduce them;
    goal: stop once the expected number of items recalled on the day reaches it. The allocation
    is the one for `per_day`; `levels` (budgets above it) go on giving out layers, and their
    expected numbers of items recalled come back too (the plan for a larger budget is this one
    and more layers)."""
    n_cols = len(cols)
    if cols[0].width > 1:
        raise AssertionError("today must be a column of its own")
    col_day = np.array([c.day for c in cols], dtype=np.float64)
    width = np.array([c.width for c in cols], dtype=np.float64)
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
    # out).
    used[:seen, 0] |= last0 >= 0
    value = np.zeros(rows)
    if seen:
        value[:seen] = expected_recall(
            w, s[:seen], d[:seen], last[:seen], is_seen[:seen], plan_days[:seen, :0], interview
        )
    gains = np.full((rows, n_cols), -np.inf)
    best = np.full(rows, -np.inf)  # a row's best gain; below min_gain it is out for good
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
        best[idx] = g.max(axis=1)

    compute(np.arange(seen))
    pool = seen  # the next unseen item's row
    pool_gain = np.full(n_cols, -np.inf)
    if new_keys:
        compute(np.array([pool]))
        pool_gain = gains[pool].copy()
        best[pool:] = -np.inf  # not candidates until taken

    free = np.zeros(n_cols)
    order: list[tuple[int, int]] = []
    total = float(value.sum())
    last_level = max((per_day, *levels))
    snapshot: tuple[int, np.ndarray, int] | None = None
    reached: dict[int, float] = {}
    for layer in range(1, last_level + 1):
        if layer == per_day + 1:
            snapshot = (len(order), value.copy(), pool)
        if goal is not None and total >= goal:
            break
        units = width.copy()
        units[0] = 1.0 if layer > done_today else 0.0
        free += units
        open_cols = np.flatnonzero(free >= 1)
        if len(open_cols):
            slots = int(free[open_cols].sum())
            cand_gain, cand_row, cand_col = [], [], []
            alive = np.flatnonzero(best >= min_gain)
            if len(alive):
                # the rows with the best gains, then per open column its best rows among them
                take = min(len(alive), ROWS_PER_SLOT * slots + len(open_cols))
                if take < len(alive):
                    alive = alive[np.argpartition(-best[alive], take - 1)[:take]]
                sub = gains[np.ix_(alive, open_cols)]
                per_col = min(len(alive), int(free[open_cols].max()) + len(open_cols))
                if per_col < len(alive):
                    top = np.argpartition(-sub, per_col - 1, axis=0)[:per_col]
                else:
                    top = np.broadcast_to(np.arange(len(alive))[:, None], sub.shape)
                cand_gain.append(np.take_along_axis(sub, top, axis=0).ravel())
                cand_row.append(alive[top].ravel())
                cand_col.append(np.broadcast_to(open_cols, top.shape).ravel())
            if pool < rows:
                # each free slot could take the next unseen item, introduced on the earliest day
                # with room (see the module's docstring) and ranked by what it gives there
                earliest = int(open_cols[0])
                cand_gain.append(np.full(slots, pool_gain[earliest]))
                cand_row.append(np.full(slots, -1))
                cand_col.append(np.full(slots, earliest))
            gain_all = np.concatenate(cand_gain) if cand_gain else np.zeros(0)
            if not len(gain_all) or gain_all.max() < min_gain:
                break  # nothing left worth a review, whatever the budget
            row_all = np.concatenate(cand_row)
            col_all = np.concatenate(cand_col)
            worth = gain_all >= min_gain
            gain_all, row_all, col_all = gain_all[worth], row_all[worth], col_all[worth]
            key_all = np.where(row_all >= 0, key_of[np.maximum(row_all, 0)], -1)
            ranked = np.lexsort((row_all, col_all, key_all, -gain_all))
            taken = np.zeros(rows, dtype=bool)
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
                elif taken[row] or free[j] < 1:
                    continue
                taken[row] = True
                free[j] -= 1
                plan_days[row, count[row]] = col_day[j]
                count[row] += 1
                used[row, j] = True
                order.append((row, j))
                value[row] += gain  # exact: the gain was worked out with this very review added
                total += gain
                changed.append(row)
                if free[open_cols].max() < 1 or (goal is not None and total >= goal):
                    break
            if not changed:  # the best rows' best days are full: the next layer has room
                continue
            idx = np.array(sorted(set(changed)))
            plan_days[idx] = np.sort(plan_days[idx], axis=1)
            compute(idx)
        if layer in levels:
            reached[layer] = total
    for level in levels:  # a level the loop never reached: nothing more was worth a review
        reached.setdefault(level, total)
    n_order, values, n_pool = snapshot if snapshot is not None else (len(order), value, pool)
    planned: list[list[int]] = [[] for _ in range(n_pool)]
    for row, j in order[:n_order]:
        planned[row].append(j)
    allocation = Allocation(
        keys=keys + new_keys[: n_pool - seen],
        planned=planned,
        value=values[:n_pool],
        order=order[:n_order],
        new_rows=n_pool - seen,
    )
    return allocation, reached
