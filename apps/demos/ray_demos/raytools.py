"""Waiting on Ray without ever blocking past a deadline, and cleaning up on the way out."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import ray
from ray.util.placement_group import PlacementGroup, remove_placement_group

from .base import ClusterBusy, Deadline
from .claims import number

POLL_S = 0.2  # how often a wait wakes to check the deadline and a cancel
# How long a run waits for what the cluster must give it before it starts (free CPUs) or goes
# on (its actors started): a busy cluster ends the run inconclusive, saying so, instead of
# spending the whole budget and failing.
CLUSTER_WAIT_S = 10.0
A = TypeVar("A")
R = TypeVar("R")


def wait_all(refs: Sequence[Any], deadline: Deadline, *, what: str = "the Ray tasks") -> list[Any]:
    """ray.get(refs), in short ray.wait slices so a deadline, a cancel or a soft time limit
    (a signal, delivered between slices) stops the wait."""
    pending = list(refs)
    while pending:
        deadline.check_for(what)
        _, pending = ray.wait(
            pending, num_returns=len(pending), timeout=min(POLL_S, deadline.remaining())
        )
    return ray.get(list(refs), timeout=max(1.0, deadline.remaining()))


def get_within(
    refs: Sequence[Any], deadline: Deadline, *, what: str = "the Ray tasks"
) -> list[Any]:
    """ray.get for short calls (one round trip per step): blocks in slices of POLL_S."""
    while True:
        deadline.check_for(what)
        try:
            return ray.get(list(refs), timeout=min(POLL_S, max(deadline.remaining(), 0.01)))
        except ray.exceptions.GetTimeoutError:
            continue


def wait_any(
    refs: Sequence[Any], deadline: Deadline, *, what: str = "the Ray tasks"
) -> tuple[list[Any], list[Any]]:
    """Block until at least one of refs is ready; returns (ready, pending)."""
    pending = list(refs)
    while True:
        deadline.check_for(what)
        ready, pending = ray.wait(pending, num_returns=1, timeout=min(POLL_S, deadline.remaining()))
        if ready:
            return ready, pending


def actors_ready(actors: Sequence[Any], deadline: Deadline, *, what: str = "actors to start",
                 within_s: float | None = None) -> None:  # fmt: skip
    """Wait for the actors to start, at most within_s (CLUSTER_WAIT_S): an actor waits for a
    free CPU, and on a cluster busy with other work that can take as long as the other work."""
    within_s = CLUSTER_WAIT_S if within_s is None else within_s
    probes = [a.__ray_ready__.remote() for a in actors]
    started_at = time.monotonic()
    until = started_at + within_s
    pending = probes
    while pending:
        deadline.check_for(what)
        if time.monotonic() >= until:
            started = len(probes) - len(pending)
            raise ClusterBusy(
                f"only {started} of {len(probes)} actors had started after {within_s:g} s of "
                f"waiting for {what}, with {number(free_cpus())} of the cluster's "
                f"{number(cluster_cpus())} CPUs free: other work held the rest"
            )
        if time.monotonic() - started_at >= 1.0:  # say so once it is more than a blink
            deadline.waiting(
                f"waiting for {what} ({free_cpus():g} of {cluster_cpus():g} CPUs free)"
            )
        _, pending = ray.wait(pending, num_returns=len(pending), timeout=POLL_S)
    deadline.waiting(None)
    ray.get(probes, timeout=max(1.0, deadline.remaining()))


# A Ray call that timed out inside a demo: the cluster did not answer in time (busy), which is
# not a broken demo.
BUSY_ERRORS = (ray.exceptions.GetTimeoutError,)


def why_stopped(exc: BaseException) -> str:
    """The reason a run stopped early, as the verdict says it."""
    if isinstance(exc, ray.exceptions.GetTimeoutError):
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        return f"the Ray cluster did not answer in time, as a busy cluster does ({first})"
    return str(exc)


def share_for(n: int) -> float:
    """The largest CPU share (at most 1) that lets n actors all fit on the cluster's nodes at
    once: 3 actors fit two 1-CPU nodes at half a CPU each, not at two thirds (a third of each
    node would be left, and the third actor would wait for ever)."""
    nodes = [float(node["Resources"].get("CPU", 0)) for node in ray.nodes() if node.get("Alive")]
    nodes = [c for c in nodes if c > 0] or [cluster_cpus() or 1.0]
    candidates = sorted({min(1.0, c / k) for c in nodes for k in range(1, n + 1)}, reverse=True)
    for share in candidates:
        if sum(int(c / share + 1e-9) for c in nodes) >= n:
            return share
    return min(nodes) / n


def cluster_cpus() -> float:
    return float(ray.cluster_resources().get("CPU", 0))


_STATE: dict[str, Any] = {}  # the GCS state client, per cluster address


def _bytes_created_here() -> int:
    from ray._private.internal_api import get_memory_info_reply, get_state_from_address

    address = ray.get_runtime_context().gcs_address
    if address not in _STATE:
        _STATE.clear()
        _STATE[address] = get_state_from_address(address)
    state = _STATE[address]
    return int(
        get_memory_info_reply(state, timeout_seconds=10).store_stats.cumulative_created_bytes
    )


@ray.remote(num_cpus=0)
def _bytes_created_on_the_cluster() -> int:
    return _bytes_created_here()


def object_store_bytes_created() -> int:
    """Bytes ever created in the cluster's object stores (the raylet's own cumulative count):
    the difference over a phase is what that phase copied into shared memory. Through Ray
    Client the driver has no connection to the GCS of its own, so a task on the cluster asks."""
    if ray.util.client.ray.is_connected():
        return int(ray.get(_bytes_created_on_the_cluster.remote(), timeout=30))
    return _bytes_created_here()


def free_cpus() -> float:
    return float(ray.available_resources().get("CPU", 0))


def settle(max_s: float) -> None:
    """Wait up to max_s for every CPU of the cluster to be free again."""
    until = time.monotonic() + max_s
    while free_cpus() < cluster_cpus() and time.monotonic() < until:
        time.sleep(0.1)


def wait_for_cpus(needed: float, deadline: Deadline, *, within_s: float | None = None) -> float:
    """Wait up to within_s for `needed` CPUs of the cluster to be free (processes of a run that
    just ended take a moment to hand theirs back; other drivers may hold some), telling the
    page while it waits; returns the CPUs free. Still short after that: ClusterBusy."""
    within_s = CLUSTER_WAIT_S if within_s is None else within_s
    until = time.monotonic() + within_s
    started = time.monotonic()
    while (free := free_cpus()) < needed:
        deadline.check()
        if time.monotonic() >= until:
            raise ClusterBusy(
                f"the cluster was too busy: after {within_s:g} s of waiting for {number(needed)} "
                f"free CPUs, {number(free)} of its {number(cluster_cpus())} were free (other work "
                "held the rest)"
            )
        if time.monotonic() - started >= 0.5:
            deadline.waiting(
                f"waiting for {needed:g} free CPUs ({free:g} of {cluster_cpus():g} free)"
            )
        time.sleep(0.1)
    deadline.waiting(None)
    return free


class Owned:
    """Everything a demo started on the cluster, stopped when the demo ends however it ends."""

    def __init__(self) -> None:
        self.actors: list[Any] = []  # actor handles
        self.refs: list[Any] = []  # object refs
        self.groups: list[PlacementGroup] = []

    def actor(self, handle: A) -> A:
        self.actors.append(handle)
        return handle

    def ref(self, ref: R) -> R:
        self.refs.append(ref)
        return ref

    def group(self, pg: PlacementGroup) -> PlacementGroup:
        self.groups.append(pg)
        return pg

    def kill(self, handle: Any) -> None:
        with contextlib.suppress(Exception):
            ray.kill(handle, no_restart=True)
        if handle in self.actors:
            self.actors.remove(handle)

    def close(self) -> None:
        # Cancel only what has not finished: Ray 2.60 aborts the whole driver process (here, the
        # Celery worker) with "Tried to complete task that was not pending" when a task whose
        # result has just arrived is cancelled before Ray has finished bookkeeping its reply.
        unfinished: list[Any] = []
        if self.refs:
            with contextlib.suppress(Exception):
                _, unfinished = ray.wait(
                    self.refs, num_returns=len(self.refs), timeout=0, fetch_local=False
                )
        for ref in unfinished:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        for handle in self.actors:
            with contextlib.suppress(Exception):
                ray.kill(handle, no_restart=True)
        for pg in self.groups:
            with contextlib.suppress(Exception):
                remove_placement_group(pg)
        self.refs, self.actors, self.groups = [], [], []


@contextlib.contextmanager
def owned() -> Iterator[Owned]:
    scope = Owned()
    try:
        yield scope
    finally:
        scope.close()
