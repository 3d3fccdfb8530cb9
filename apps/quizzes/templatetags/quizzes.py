"""What quizzes lend other apps' pages, so that study (below quizzes) need not import it."""

from django import template

from apps.quizzes.selectors import deck_knowledge_checks

register = template.Library()


@register.simple_tag
def next_knowledge_check(deck):
    """The check to suggest after a session: the sections' own checks in lesson order first, the
    deck-wide final check last; None without a deck or a check. One query."""
    if deck is None:
        return None
    checks = sorted(deck_knowledge_checks(deck), key=lambda quiz: quiz.section_id is None)
    return checks[0] if checks else None
