"""Security plumbing shared by every app: the client's address, API throttles, login lock-out."""

from axes.helpers import get_cool_off, get_failure_limit
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.redis import RedisCache
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.html import escape
from rest_framework import throttling
from rest_framework.permissions import SAFE_METHODS
from rest_framework.settings import api_settings


def client_ip(request) -> str:
    """The address that sent the request, trusting exactly TRUSTED_PROXY_COUNT proxies in front.

    Each trusted proxy appends the address it received the request from to X-Forwarded-For, so the
    client is the Nth entry from the right; anything further left was written by the client and
    is ignored. With no proxy configured the header is ignored entirely (it is free to forge).
    """
    count = settings.TRUSTED_PROXY_COUNT
    if count:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        hops = [h for h in hops if h]
        if len(hops) >= count:
            return hops[-count]
    return request.META.get("REMOTE_ADDR", "")


def count_request(cache, key: str, ttl: int) -> int:
    """Bump the counter `key` (kept `ttl` seconds) in `cache` and return the new count."""
    if isinstance(cache, RedisCache):
        # Redis: INCR is atomic, so every worker's request counts. The window's first request
        # creates the key with its ttl (SET NX), which INCR keeps. While Redis is out of reach a
        # DegradingRedisCache answers these calls from process memory, which keeps the ttl too.
        if cache.add(key, 1, ttl):
            return 1
        try:
            count = cache.incr(key)
        except ValueError:  # the window ended between the two calls: this request opens the next
            return count_request(cache, key, ttl)
        if count == 1:
            # The key expired between incr's check and its INCR, which then made it anew with no
            # ttl: a counter that never expires would refuse this client for good.
            cache.touch(key, ttl)
        return count
    # Files (one machine): read and write back, which two processes can interleave, so a burst
    # may count a little short. Not cache.incr: a file cache's incr resets the ttl to its default.
    count = (cache.get(key) or 0) + 1
    cache.set(key, count, ttl)
    return count


def throttle_rates() -> dict[str, str | None]:
    """DRF's DEFAULT_THROTTLE_RATES as they are now: "60/min" strings, or None for no limit."""
    # djangorestframework-stubs type the values as numbers; DRF's parse_rate reads "60/min".
    return api_settings.DEFAULT_THROTTLE_RATES  # type: ignore[return-value]


class _CountingThrottle(throttling.SimpleRateThrottle):
    """A fixed-window counter in the shared cache, in place of DRF's list of request times.

    DRF's SimpleRateThrottle reads the whole history, appends and writes it back: two workers
    doing that at once lose a count, and the pickled list grows with the rate. Here each window
    has one integer key bumped with Redis' INCR, so every worker's requests count and a check
    costs one round trip at any rate. A client can spend up to twice the rate across a window
    boundary; for abuse limits that is fine. While Redis is out of reach the count is kept in
    this process's memory (config.cache), so the API keeps answering, each worker counting alone.

    Rates are read per request (DRF binds DEFAULT_THROTTLE_RATES at import), so settings and
    tests can change them live.
    """

    # Set by SimpleRateThrottle.__init__ from parse_rate (None only while rate is None, which
    # every use below checks first); djangorestframework-stubs leave them out.
    num_requests: int
    duration: int

    @staticmethod
    def counter_cache() -> BaseCache:
        """The backend itself: DRF's `cache` attribute is a proxy, which no isinstance sees
        through, and count_request picks Redis' INCR by type."""
        return caches["default"]

    def get_rate(self) -> str | None:
        assert self.scope is not None  # every subclass names its scope
        return throttle_rates()[self.scope]

    def get_ident(self, request):
        return client_ip(request)

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_ends = (window + 1) * self.duration
        key, ttl = f"{key}_{window}", int(self.window_ends - self.now) + 1
        return count_request(self.counter_cache(), key, ttl) <= self.num_requests

    def wait(self):
        return max(1.0, self.window_ends - self.now)


class AnonThrottle(_CountingThrottle, throttling.AnonRateThrottle):
    """Anonymous API calls, per client address (THROTTLE_ANON)."""


class UserThrottle(_CountingThrottle, throttling.UserRateThrottle):
    """Every API call of a signed-in user (THROTTLE_USER)."""


class WriteThrottle(_CountingThrottle, throttling.SimpleRateThrottle):
    """Writes that cost real work (a review, a quiz submit, a demo run, an import) (THROTTLE_WRITE).

    A view opts in with `throttle_scope = "write"` or by being listed in THROTTLED_WRITE_VIEWS
    (dotted class paths), so the list lives in one place beside the rates.
    """

    scope = "write"

    def allow_request(self, request, view):
        if request.method in SAFE_METHODS:
            return True
        cls = type(view)
        listed = f"{cls.__module__}.{cls.__qualname__}" in settings.THROTTLED_WRITE_VIEWS
        if not listed and getattr(view, "throttle_scope", None) != self.scope:
            return True
        return super().allow_request(request, view)

    def get_cache_key(self, request, view):
        if request.user and request.user.is_authenticated:
            ident = request.user.pk
        else:
            ident = self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class ScopeThrottle(_CountingThrottle, throttling.SimpleRateThrottle):
    """A count of one kind of request (`scope`, a rate in DEFAULT_THROTTLE_RATES) per `ident`,
    for writes outside DRF's views (a password-reset e-mail per address, per client)."""

    def __init__(self, scope: str, ident: str):
        self.scope, self.ident = scope, ident
        super().__init__()

    def get_rate(self):
        assert self.scope is not None
        return throttle_rates().get(self.scope)  # absent: not throttled

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.ident}


def rate_spent(request, scope: str, ident: str) -> int | None:
    """Count this request against `scope`'s rate for `ident`: None while within it, else the
    seconds until the rate's window ends."""
    throttle = ScopeThrottle(scope, ident)
    if throttle.allow_request(request, None):
        return None
    return int(throttle.wait() + 0.999)


def lockout_message(request) -> str:
    minutes = max(1, round(get_cool_off(request).total_seconds() / 60))
    return (
        f"Log-in is locked for {minutes} minute{'s' if minutes != 1 else ''} after "
        f"{get_failure_limit(request, None)} failed attempts for this username from this "
        "address. Wait, then try again with the right password."
    )


def lockout_response(request, original_response=None, credentials=None):
    """django-axes' refusal: the lock-out page (429), or a JSON sentence for API clients."""
    message = lockout_message(request)
    response: HttpResponse
    if request.path.startswith("/api/") or "json" in request.headers.get("Accept", ""):
        response = JsonResponse({"error": message}, status=429)
    else:
        response = render(request, "accounts/locked_out.html", {"message": message}, status=429)
    response["Retry-After"] = str(int(get_cool_off(request).total_seconds()))
    return response


class PageWriteThrottleMiddleware:
    """Every page write (a POST, PUT, PATCH or DELETE outside /api/: a grade from the review
    page, an import, a team form) counted against the same "write" rate and counter as the API's
    WriteThrottle, per user (or address when signed out): 429 with Retry-After and a sentence,
    as a page, or for htmx a notice just above the form that sent it (which stays in place for
    the retry). The API is left to DRF's throttles, the admin to staff."""

    EXEMPT = ("/api/", "/admin/")

    def __init__(self, get_response):
        self.get_response = get_response
        self.throttle = WriteThrottle

    def __call__(self, request):
        if request.method not in SAFE_METHODS and not request.path_info.startswith(self.EXEMPT):
            throttle = self.throttle()
            if throttle.rate is not None:
                key = throttle.get_cache_key(request, None)
                throttle.now = throttle.timer()
                window = int(throttle.now // throttle.duration)
                throttle.window_ends = (window + 1) * throttle.duration
                ttl = int(throttle.window_ends - throttle.now) + 1
                if (
                    count_request(throttle.counter_cache(), f"{key}_{window}", ttl)
                    > throttle.num_requests
                ):
                    return self.refusal(request, throttle)
        return self.get_response(request)

    @staticmethod
    def refusal(request, throttle):
        seconds = int(throttle.wait() + 0.999)
        message = (
            f"That is more than {throttle.num_requests} changes in "
            f"{int(throttle.duration)} seconds, so this one was not saved. "
            f"Wait {seconds} second{'s' if seconds != 1 else ''} and send it again."
        )
        if request.headers.get("HX-Request") == "true":
            response = HttpResponse(
                f'<p class="review-notice" role="alert">{escape(message)}</p>', status=429
            )
            response["HX-Retarget"] = "this"
            response["HX-Reswap"] = "beforebegin"
        else:
            context = {"title": "Too many requests", "message": message}
            response = render(request, "error.html", context, status=429)
        response["Retry-After"] = str(seconds)
        return response
