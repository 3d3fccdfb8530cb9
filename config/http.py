"""The request types views annotate, so mypy knows what middleware has set on the request.

A view behind `login_required` (or a DRF view behind IsAuthenticated) sees a signed-in `User`,
never `AnonymousUser`; Django's HttpRequest types `user` as either, so such views annotate
`request: AuthenticatedHttpRequest` (or `AuthenticatedHtmxHttpRequest` when they read
`request.htmx` too). For DRF's Request, whose `user` is a property, `signed_in_user(request)`
narrows it instead.
"""

from django.contrib.auth.models import User
from django.http import HttpRequest
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from config.htmx import HtmxHttpRequest


class AuthenticatedHttpRequest(HttpRequest):
    user: User


class AuthenticatedHtmxHttpRequest(HtmxHttpRequest):
    user: User


def signed_in_user(request: Request) -> User:
    """An API request's signed-in user; an anonymous one is refused (DRF's 401 or 403)."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated("sign in first")
    return user
