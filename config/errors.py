"""One way to refuse. A service raises a `ServiceError` (or a subclass) whose message is fit to
show a person and whose `status` is the HTTP status it means; nothing else turns a refusal into
HTTP. The API maps it in `config.api.exception_handler`, pages in `ServiceErrorMiddleware` below.

A view that shows a refusal in place (a form's field error, the review page's notice) catches it
itself; every other refusal reaches these two mappings.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme


class ServiceError(Exception):
    """A refused action. `field` names the input at fault when there is one (the API answers
    `{field: [message]}`, a form shows it on that field); the state is left as it was.

    A refusal of several inputs at once (a new card with neither slug nor front) gives `fields`,
    each input with its own message: the API answers each under its name and a form shows each
    on its field; `field` is then the first of them and `message` all their messages in one
    sentence, for a page that shows one."""

    status = 400
    title = "Not done"

    def __init__(
        self,
        message: str = "",
        *,
        field: str | None = None,
        fields: Mapping[str, str] | None = None,
    ):
        if not (message or fields):
            raise TypeError("a refusal says why: give a message or fields")
        self.fields: dict[str, str] = dict(fields or {})
        if field is not None and message and field not in self.fields:
            self.fields = {field: message, **self.fields}
        self.field = field or next(iter(self.fields), None)
        self.message = message or "; ".join(self.fields.values())
        super().__init__(self.message)

    @property
    def detail(self) -> str | dict[str, list[str]]:
        if self.fields:
            return {name: [message] for name, message in self.fields.items()}
        return self.message


class Forbidden(ServiceError):
    status = 403
    title = "Not allowed"


class NotFound(ServiceError):
    status = 404
    title = "Not found"


class Conflict(ServiceError):
    """Well formed, but the current state forbids it (a card not due, a section that still has
    cards); it becomes possible once the state changes."""

    status = 409


class Gone(ServiceError):
    status = 410
    title = "No longer available"


def _back(request: HttpRequest) -> str:
    """Where a refused form post returns: the page it came from when that is ours, else home."""
    referer = request.headers.get("Referer", "")
    if url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return referer
    return "/"


def page_refusal(request: HttpRequest, error: ServiceError) -> HttpResponse:
    """A refusal on a page. A form post goes back where it came from with the message on top
    (post/redirect/get; htmx follows HX-Redirect); anything else is an error page with the
    refusal's status. A 403 is that page whatever the method: it refuses the person, not what
    they sent, so the page they came from has nothing for them to put right (and the author
    pages and teams answer a post by someone not allowed with 403, as the access matrix pins)."""
    if request.method == "POST" and error.status != 403:
        messages.error(request, error.message)
        if request.headers.get("HX-Request") == "true":
            response = HttpResponse(status=204)
            response["HX-Redirect"] = _back(request)
            return response
        return HttpResponseRedirect(_back(request), status=303)
    context = {"title": error.title, "message": error.message}
    return render(request, "error.html", context, status=error.status)


class ServiceErrorMiddleware:
    """Pages' half of the mapping: a ServiceError a view did not show itself."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, ServiceError) and not request.path.startswith("/api/"):
            return page_refusal(request, exception)
        return None
