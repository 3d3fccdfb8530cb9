"""API plumbing shared by every app: JSON errors a person can act on, and their OpenAPI
description on every operation."""

import logging

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.paginator import Paginator
from django.http import Http404
from drf_spectacular.openapi import AutoSchema
from rest_framework import exceptions, pagination, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from config.errors import ServiceError
from config.middleware import RETRY_AFTER_S, database_error_message, is_database_unavailable

log = logging.getLogger(__name__)


def _first_message(detail) -> str:
    if isinstance(detail, dict):
        field, value = next(iter(detail.items()))
        message = _first_message(value)
        return message if field in ("detail", "non_field_errors") else f"{field}: {message}"
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return str(detail)


class Refused(exceptions.APIException):
    """A service's refusal (config.errors.ServiceError) with the status it names."""

    def __init__(self, error: ServiceError):
        super().__init__(detail=error.detail)
        self.status_code = error.status


def _validation_detail(exc: DjangoValidationError):
    return exc.message_dict if hasattr(exc, "error_dict") else exc.messages


class DatabaseUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "database_unavailable"


def exception_handler(exc, context):
    """DRF's handler, plus a top-level "error" sentence so clients need not walk field dicts.
    The one place where a service's refusal becomes an API answer: a ServiceError with its
    status, a model's ValidationError as a 400 naming its fields."""
    database_down = is_database_unavailable(exc)
    if database_down:
        # A restart or failover: 503 with Retry-After, which clients retry (same client_id).
        request = context.get("request")
        log.warning("database unavailable at %s: %s", getattr(request, "path", "?"), exc)
        exc = DatabaseUnavailable(database_error_message(exc))
    elif isinstance(exc, ServiceError):
        exc = Refused(exc)
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(_validation_detail(exc))
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


class ErrorSerializer(serializers.Serializer):
    """Every API error (config.api.exception_handler): a sentence, plus DRF's own detail or the
    refused fields, each with its messages, for clients that point at a form field."""

    error = serializers.CharField(help_text='A sentence a person can act on, e.g. "grade: grade '
                                  'must be 0 to 5, got 7".')  # fmt: skip
    detail = serializers.JSONField(required=False, help_text="DRF's message, when not a field's.")


class DocumentedErrors(AutoSchema):
    """The OpenAPI description of every API view (REST_FRAMEWORK's DEFAULT_SCHEMA_CLASS):
    besides its successes, the JSON errors it can answer with (400 for a refused body, 403 for
    no or a wrong token or no permission, 404 for an id or slug that names nothing the caller
    may see, 429 once a throttle's rate is spent, 503 while the database is out of reach; a
    view lists any others itself), each with the Error body. Request bodies are
    documented as JSON, the API's format; an upload view keeps its multipart form. Any
    operation answers 400 for a NUL or invalid UTF-8 in its path or query (config.limits)."""

    def map_parsers(self):
        media_types = super().map_parsers()
        return ["application/json"] if "application/json" in media_types else media_types

    def error_codes(self) -> dict[str, str]:
        codes = {}
        if self.method in ("POST", "PUT", "PATCH"):
            codes["400"] = "The request was refused: the error names the field and why."
        else:
            # config.limits refuses these on every route, before any view.
            codes["400"] = "The path or query string holds a NUL character or invalid UTF-8."
        codes["403"] = "Not signed in, a token that is not valid, or not allowed to do this."
        if "{" in self.path:
            codes["404"] = "No such thing, or not one the caller may see."
        if self.method in ("POST", "PUT", "PATCH") and "multipart/form-data" in self.map_parsers():
            codes["415"] = "The body is not a well-formed multipart form (an upload's)."
        codes["429"] = "Too many requests (config.security throttles): retry after Retry-After."
        codes["503"] = (
            "The database is out of reach for a moment, or the request took longer than its"
            " statement bound: retry in a few seconds."
        )
        return codes

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code, description in self.error_codes().items():
            responses.setdefault(code, {"description": description})
        for code, response in responses.items():
            if int(code) >= 400 and not response.get("content"):
                body = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                response["content"] = body["content"]
        return responses


PAGE_MAX = 10**6


class PagedResults(pagination.BasePagination):
    """A list API's pages, in the card browser's shape: ``{"count", "page", "pages",
    "results"}``, ``page_size`` rows a page; ``?page=N`` from 1, past the last page the last
    page (as the browser's), anything but a whole number a 400 naming it."""

    page_size = 100

    def paginate_queryset(self, queryset, request, view=None):
        raw = request.query_params.get("page", "1")
        if not raw.isdigit() or not 1 <= int(raw) <= PAGE_MAX:
            raise exceptions.ValidationError(
                {"page": [f"page must be a whole number from 1 to {PAGE_MAX}, got {raw[:40]!r}"]}
            )
        self.page = Paginator(queryset, self.page_size).get_page(int(raw))
        return list(self.page.object_list)

    def get_paginated_response(self, data):
        paginator = self.page.paginator
        return Response(
            {"count": paginator.count, "page": self.page.number, "pages": paginator.num_pages,
             "results": data}
        )  # fmt: skip

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["count", "page", "pages", "results"],
            "properties": {
                "count": {"type": "integer", "description": "rows in all pages"},
                "page": {"type": "integer", "description": "this page, from 1"},
                "pages": {"type": "integer"},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": "page",
                "in": "query",
                "required": False,
                "description": f"{self.page_size} a page, from 1; past the last page, the last.",
                "schema": {"type": "integer", "minimum": 1, "maximum": PAGE_MAX},
            }
        ]
