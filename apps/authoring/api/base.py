"""What every author API view shares: who may call it, and the 409 a refused delete answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import permissions

if TYPE_CHECKING:
    from rest_framework.permissions import _PermissionClass

from apps.authoring import selectors


class IsAuthor(permissions.BasePermission):
    message = "Only staff and deck authors may use the author API."

    def has_permission(self, request, view) -> bool:
        return selectors.is_author(request.user)


class AuthorView:
    permission_classes: Sequence[_PermissionClass] = [permissions.IsAuthenticated, IsAuthor]


# A delete the row's state forbids (a section with cards, a quiz with attempts): the service
# raises config.errors.Conflict, which config.api.exception_handler answers with 409.
DELETE_REFUSED = extend_schema_view(
    delete=extend_schema(
        responses={
            204: None,
            409: OpenApiResponse(description="Refused while it still has cards or attempts."),
        }
    )
)
