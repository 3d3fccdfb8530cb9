"""While the database is unreachable (a restart, a failover, a full connection table) every page
and API call answers 503 with a sentence and Retry-After, instead of a bare 500.

A request that fails this way changed nothing it can be blamed for: a review is one transaction,
and a retry with the same client_id lands once even when the first COMMIT reached the server and
only its answer was lost. The broken connection is dropped when the request ends (Django closes a
connection that raised and no longer answers), and CONN_HEALTH_CHECKS makes the next request
check a reused connection before its first query, so the first request after the database is
back succeeds.
"""

from __future__ import annotations

import logging
import sys

from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError
from django.dispatch import receiver
from django.http import HttpResponse, JsonResponse
from django.utils.html import escape

from config.database import is_statement_cancelled

log = logging.getLogger(__name__)

DATABASE_ERRORS = (OperationalError, InterfaceError)
RETRY_AFTER_S = 5
MESSAGE = (
    "The database is restarting or out of reach, so this was not saved. "
    f"Try again in {RETRY_AFTER_S} seconds: nothing is lost, and a retried review counts once."
)

_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>Back in a moment · RayDeck</title>
<link rel="stylesheet" href="/static/css/raydeck.css"></head>
<body><main id="main" class="narrow">
  <h1>Back in a moment</h1>
  <p role="alert">{message}</p>
  <p><a class="btn btn-primary" href="{path}">Try again</a></p>
</main></body>
</html>
"""


def too_slow_message() -> str:
    from django.conf import settings

    return (
        f"This took longer than the {settings.DB_STATEMENT_TIMEOUT_S} s a request may spend in "
        "the database, so it was stopped and nothing was saved. Try again in a moment; if it "
        "keeps happening, ask for less at once (a smaller page or file)."
    )


def is_database_unavailable(exc: BaseException | None) -> bool:
    return isinstance(exc, DATABASE_ERRORS)


def database_error_message(exc: BaseException | None) -> str:
    """What to tell the person: the database is away, or this statement hit its bound."""
    return too_slow_message() if is_statement_cancelled(exc) else MESSAGE


def database_unavailable_response(request, exc: BaseException | None = None) -> HttpResponse:
    """503 in the shape the caller reads: JSON for the API, a fragment for htmx, else a page.
    Rendered without templates or context processors: they may need the database."""
    message = database_error_message(exc)
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": message, "error": message}, status=503)
    elif request.headers.get("HX-Request") == "true":
        # Said just above the element that sent it, leaving that element (a grade form and its
        # client_id) in place for the retry. htmx swaps a 503 only when its responseHandling
        # config says so (the htmx-config meta tag in base.html).
        response = HttpResponse(
            f'<p class="review-notice" role="alert">{escape(message)}</p>', status=503
        )
        response["HX-Retarget"] = "this"
        response["HX-Reswap"] = "beforebegin"
    else:
        path = request.get_full_path() if request.method == "GET" else request.path
        page = _PAGE.format(message=escape(message), path=escape(path))
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_S)
    response["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    """Turns a database outage into a 503, wherever the request met it: in the view
    (process_exception), or in a middleware or template (marked by the signal below; Django has
    by then turned the exception into a 500 response, which is replaced here)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        failed = getattr(request, "_database_unavailable", None)
        if failed is not None and response.status_code >= 500:
            return database_unavailable_response(request, failed)
        return response

    def process_exception(self, request, exception):
        if is_database_unavailable(exception):
            log.warning("database unavailable at %s: %s", request.path, exception)
            return database_unavailable_response(request, exception)
        return None


@receiver(got_request_exception, dispatch_uid="raydeck-database-unavailable")
def _mark_database_unavailable(sender, request=None, **kwargs):
    if request is not None and is_database_unavailable(sys.exc_info()[1]):
        request._database_unavailable = sys.exc_info()[1]
