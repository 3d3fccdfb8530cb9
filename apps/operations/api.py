"""The caller's own data, for scripts: GET /api/me/export.json and GET /api/me/export.zip."""

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.request import Request
from rest_framework.views import APIView

from apps.operations.export import KINDS, export_response


class FirstRenderer(BaseContentNegotiation):
    """The download is a file whatever the Accept header says; an error (401) is JSON."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


_KINDS = ", ".join(kind.name for kind in KINDS)


class ExportJSON(APIView):
    content_negotiation_class = FirstRenderer

    @extend_schema(
        operation_id="me_export_json",
        summary="Download all your data as one JSON document",
        description=(
            'A document {"format": "raydeck-export", "version": 1, "exported_at": ..., '
            f"{_KINDS}}}: the profile is an object, every other kind a list of records with "
            "the columns of the CSV file of the same name. Streamed; only the caller's data."
        ),
        responses={(200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT)},
    )
    def get(self, request: Request):
        return export_response(request.user, "json")


class ExportZip(APIView):
    content_negotiation_class = FirstRenderer

    @extend_schema(
        operation_id="me_export_zip",
        summary="Download all your data as a zip of CSV files",
        description=(
            f"One CSV file per kind ({_KINDS}), each with a header row; lists and objects are "
            "JSON in their cell, times ISO 8601, and text a spreadsheet would run as a formula "
            "starts with '. Streamed; only the caller's data."
        ),
        responses={(200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY)},
    )
    def get(self, request: Request):
        return export_response(request.user, "csv")


urlpatterns = [
    path("me/export.json", ExportJSON.as_view(), name="api-export-json"),
    path("me/export.zip", ExportZip.as_view(), name="api-export-zip"),
]
