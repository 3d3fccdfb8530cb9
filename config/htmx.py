"""The request type of a view that reads `request.htmx` (set by django-htmx's HtmxMiddleware).

django-htmx ships no such type; its docs define this subclass in the project, so it is defined
here once for every app's views.
"""

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
