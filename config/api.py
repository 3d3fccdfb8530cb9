"""API plumbing shared by every app: JSON errors a person can act on."""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.views import exception_handler as drf_exception_handler


def _first_message(detail) -> str:
    if isinstance(detail, dict):
        field, value = next(iter(detail.items()))
        message = _first_message(value)
        return message if field in ("detail", "non_field_errors") else f"{field}: {message}"
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return str(detail)


def exception_handler(exc, context):
    """DRF's handler, plus a top-level "error" sentence so clients need not walk field dicts."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or "Not found.")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    data = response.data if isinstance(response.data, dict) else {"detail": response.data}
    data.setdefault("error", _first_message(response.data))
    response.data = data
    return response
