"""Telling a learner what became of their suggested edits, on their next page."""

from django.contrib import messages
from django.core.cache import cache

from apps.authoring.models import EditSuggestion
from apps.authoring.services import news_key, suggestions_tell


class SuggestionNewsMiddleware:
    """On a full page (a GET that is neither htmx nor the API) of a learner with news (a flag
    in the cache, set when an author decides one of their suggestions), one message per
    decided suggestion. Without news it costs a cache read and no query. A flag the cache lost
    (evicted, flushed) only delays the message: the "my cards" page lists every suggestion with
    its outcome."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if (
            request.method == "GET"
            and not request.path.startswith("/api/")
            and request.headers.get("HX-Request") != "true"
            and user is not None
            and user.is_authenticated
            and cache.get(news_key(user.pk))
        ):
            for suggestion in suggestions_tell(user=user):
                messages.info(request, _sentence(suggestion))
        return self.get_response(request)


def _sentence(suggestion: EditSuggestion) -> str:
    card = suggestion.card.front[:60] + ("…" if len(suggestion.card.front) > 60 else "")
    reply = f" Their note: “{suggestion.reply}”" if suggestion.reply else ""
    if suggestion.status == EditSuggestion.Status.ACCEPTED:
        return f"Your suggested edit of “{card}” was accepted: the card now reads so.{reply}"
    return f"Your suggested edit of “{card}” was not taken.{reply}"
