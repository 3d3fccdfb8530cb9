"""What every author page shares: the log-in and authorship check, and a form's write."""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required

from apps.authoring import selectors
from apps.authoring.forms.base import AuthorForm
from config.errors import Forbidden, ServiceError


def author_required(view):
    @wraps(view)
    @login_required
    def wrapped(request, *args, **kwargs):
        if not selectors.is_author(request.user):
            raise Forbidden("Only staff and deck authors may open the author pages.")
        return view(request, *args, **kwargs)

    return wrapped


def form_write(form: AuthorForm, write: Callable[[], Any]) -> tuple[bool, Any]:
    """(True, write()) for a valid form; (False, None) when the form or the service refused
    what was typed (a 400: shown on the form's fields). A refusal of the person or of the
    state (403, 409...) is not the form's to show: config.errors.ServiceErrorMiddleware
    answers it."""
    if not form.is_valid():
        return False, None
    try:
        return True, write()
    except ServiceError as exc:
        if exc.status != ServiceError.status:
            raise
        form.refused(exc)
        return False, None
