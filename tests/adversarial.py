"""Hostile text for the parsers of user input: their own delimiters, repeated to 64 KiB (the
largest text field a request or an import carries), and the CPU time a call takes.

A parser that backtracks takes minutes to hours on such text; one that reads it once takes
milliseconds. The bound is wide (seconds) so that a loaded machine never fails a linear parser,
and it is measured in the test's own process (time.process_time), not on the wall clock."""

import time
from collections.abc import Callable, Sequence

from hypothesis import strategies as st

ADVERSARIAL_CHARS = 64 * 1024
CPU_SECONDS_MAX = 2.0


def repeated_delimiters(delimiters: Sequence[str]) -> st.SearchStrategy[str]:
    """64 KiB made of one to three runs, each a short mix of `delimiters` repeated, e.g.
    "}}" x16K then "{{c1::" x5K."""
    piece = st.lists(st.sampled_from(list(delimiters)), min_size=1, max_size=3).map("".join)

    def fill(pieces: list[str]) -> str:
        share = ADVERSARIAL_CHARS // len(pieces)
        return "".join(p * (share // len(p)) for p in pieces)

    return st.lists(piece, min_size=1, max_size=3).map(fill)


def cpu_seconds(call: Callable[[], object]) -> float:
    """The CPU time `call()` takes in this process."""
    start = time.process_time()
    call()
    return time.process_time() - start
