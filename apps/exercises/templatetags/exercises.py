"""What exercises lend other apps' pages (study's review page), so that study, below exercises,
need not import it: the learner's exercises due, as their own kind beside the card queue."""

from django import template

from apps.exercises.selectors import due_exercises

register = template.Library()


@register.simple_tag(takes_context=True)
def exercises_due(context, deck=None):
    """The learner's exercises to do today (due, then new), in three queries."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return []
    return due_exercises(user, deck=deck)
