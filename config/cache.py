"""The shared cache (Redis), or this process's memory while Redis is out of reach.

The cache holds nothing that must survive: throttle counts and the team dashboard's figures. So
a Redis outage must not turn every request into a 500. Each cache call that meets a Redis error
is answered by a per-process memory cache instead (the same keys and timeouts), and for
OUTAGE_RETRY_S seconds after it the process does not try Redis again, so an unreachable host
costs one connect timeout, not one per call. Meanwhile each gunicorn worker counts throttles on
its own (a client can spend the rate once per worker) and computes dashboards for itself.

The first outage a process meets is logged as a warning, once; later ones only at debug level,
so a long outage does not flood the log.
"""

from __future__ import annotations

import logging
import threading
import time

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

OUTAGE_RETRY_S = 5.0
_warned = threading.Event()


def note_outage(what: str, exc: BaseException) -> None:
    """Log a Redis outage once per process (a warning), then quietly (debug)."""
    if _warned.is_set():
        log.debug("%s: Redis still out of reach (%s)", what, exc)
        return
    _warned.set()
    log.warning(
        "%s: Redis is out of reach (%s: %s); this process now counts throttles and caches "
        "dashboards in its own memory until Redis answers again (logged once per process)",
        what, type(exc).__name__, exc,
    )  # fmt: skip


class DegradingRedisCache(RedisCache):
    """Django's RedisCache whose every call falls back to process memory when Redis fails."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self.local = LocMemCache(
            f"raydeck-degraded-{id(self)}",
            {
                "TIMEOUT": params.get("TIMEOUT", 300),
                "KEY_PREFIX": params.get("KEY_PREFIX", ""),
                "OPTIONS": {"MAX_ENTRIES": 10000},
            },
        )
        self._down_until = 0.0

    @property
    def degraded(self) -> bool:
        """True while Redis failed within the last OUTAGE_RETRY_S seconds."""
        return time.monotonic() < self._down_until

    def failed(self, exc: BaseException) -> None:
        self._down_until = time.monotonic() + OUTAGE_RETRY_S
        note_outage("cache", exc)


def _degrading(name: str):
    def method(self, *args, **kwargs):
        if not self.degraded:
            try:
                return getattr(RedisCache, name)(self, *args, **kwargs)
            except RedisError as exc:
                self.failed(exc)
        return getattr(self.local, name)(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = getattr(RedisCache, name).__doc__
    return method


for _name in (
    "add", "get", "set", "touch", "delete", "get_many", "has_key", "incr", "set_many",
    "delete_many", "clear",
):  # fmt: skip
    setattr(DegradingRedisCache, _name, _degrading(_name))
