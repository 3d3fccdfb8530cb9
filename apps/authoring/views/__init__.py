"""Author pages: decks, sections, cards and quiz questions, with live preview, history, import
and export. Every view requires a log-in (anonymous -> log-in page) and authorship of the deck
(otherwise 403); the checks live in selectors so the API applies the same ones. A form reads
each post; the services in apps.authoring.services write, as they do for the API."""

from apps.authoring.views.cards import (
    card,
    card_delete,
    card_history,
    card_move,
    card_new,
    media_upload,
    preview,
    revision_restore,
)
from apps.authoring.views.decks import (
    deck,
    deck_authors,
    deck_create,
    deck_publish,
    index,
    section,
    section_create,
    section_move,
)
from apps.authoring.views.exercises import (
    exercise,
    exercise_export,
    exercise_import,
    exercise_import_batch,
    exercise_new,
    exercise_recheck,
    exercise_restore,
    exercises,
)
from apps.authoring.views.imports import export, import_job, import_job_commit, import_page
from apps.authoring.views.quizzes import (
    question,
    question_delete,
    question_history,
    question_move,
    quiz,
    quiz_create,
)
from apps.authoring.views.suggestions import suggestion_decide, suggestions

__all__ = [
    "card", "card_delete", "card_history", "card_move", "card_new", "deck", "deck_authors",
    "deck_create", "deck_publish", "exercise", "exercise_export", "exercise_import",
    "exercise_import_batch", "exercise_new", "exercise_recheck", "exercise_restore", "exercises",
    "export", "import_job", "import_job_commit", "import_page", "index", "preview", "question",
    "question_delete", "question_history", "question_move", "quiz", "quiz_create",
    "revision_restore", "section", "section_create", "section_move", "media_upload",
    "suggestion_decide", "suggestions",
]  # fmt: skip
