"""What every author page shares: the log-in and authorship check, and a form's write."""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError

from apps.authoring import selectors


def author_required(view):
    @wraps(view)
    @login_required
    def wrapped(request, *args, **kwargs):
        if not selectors.is_author(request.user):
            raise PermissionDenied("Only staff and deck authors may open the author pages.")
        return view(request, *args, **kwargs)

    return wrapped


def form_write(form, write: Callable[[], Any]) -> tuple[bool, Any]:
    """(True, write()) for a valid form; (False, None) when the form or the service refused,
    the service's ValidationError then shown on the form's fields."""
    if not form.is_valid():
        return False, None
    try:
        return True, write()
    except ValidationError as exc:
        form.refused(exc)
        return False, None
