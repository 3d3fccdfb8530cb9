"""API plumbing shared by every app: JSON errors a person can act on."""

import logging

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.views import exception_handler as drf_exception_handler

from config.middleware import MESSAGE, RETRY_AFTER_S, is_database_unavailable

log = logging.getLogger(__name__)


def _first_message(detail) -> str:
    if isinstance(detail, dict):
        field, value = next(iter(detail.items()))
        message = _first_message(value)
        return message if field in ("detail", "non_field_errors") else f"{field}: {message}"
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return str(detail)


class DatabaseUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "database_unavailable"


def exception_handler(exc, context):
    """DRF's handler, plus a top-level "error" sentence so clients need not walk field dicts."""
    database_down = is_database_unavailable(exc)
    if database_down:
        # A restart or failover: 503 with Retry-After, which clients retry (same client_id).
        request = context.get("request")
        log.warning("database unavailable at %s: %s", getattr(request, "path", "?"), exc)
        exc = DatabaseUnavailable(MESSAGE)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or "Not found.")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    data = response.data if isinstance(response.data, dict) else {"detail": response.data}
    data.setdefault("error", _first_message(response.data))
    response.data = data
    if database_down:
        response["Retry-After"] = str(RETRY_AFTER_S)
    return response
