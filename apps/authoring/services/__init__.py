"""Writes made by authors, one module per resource: decks, sections, cards, links (a card's quiz
questions and demos), quizzes, questions, revisions and restore, imports. The author pages and
the author API call the same function for each edit; it is atomic and validates what it is given.

Refusals: config.errors.ServiceError, with a message a person can act on and the field (or
`fields`) at fault; pages show it next to the field, the API answers 400 through
config.api.exception_handler. A subclass says another status: Forbidden (403) for who may not,
Conflict (409) for what the state forbids (a delete while learners have progress).
"""

from apps.authoring.services.cards import (
    CARD_FIELDS,
    card_create,
    card_delete,
    card_edit,
    card_move,
    card_update,
    note_siblings,
)
from apps.authoring.services.decks import (
    DeckHasProgress,
    deck_author_grant,
    deck_author_revoke,
    deck_create,
    deck_delete,
    deck_update,
)
from apps.authoring.services.imports import (
    INLINE_IMPORT_MAX_BYTES,
    ImportBusy,
    deck_import,
    file_import,
    import_job_create,
    import_job_progress,
    import_job_run,
    import_job_time_out,
    import_jobs_reap,
    import_precheck,
    import_result_data,
)
from apps.authoring.services.links import card_demos_link, card_questions_link
from apps.authoring.services.media import MediaRefused, cards_rerender, media_upload
from apps.authoring.services.own import (
    QuotaExceeded,
    card_retire,
    client_write_once,
    own_card_slug,
    own_cards_move,
    own_cards_tag,
    own_deck_create,
    quota_check,
    quota_enforce,
)
from apps.authoring.services.questions import question_delete, question_move, question_save
from apps.authoring.services.quizzes import QUIZ_FIELDS, quiz_delete, quiz_save
from apps.authoring.services.restore import revision_restore
from apps.authoring.services.revisions import Source, card_data, question_data
from apps.authoring.services.sections import (
    section_create,
    section_delete,
    section_move,
    section_update,
)
from apps.authoring.services.suggestions import (
    SuggestionClosed,
    news_key,
    suggestion_accept,
    suggestion_file,
    suggestion_reject,
    suggestions_tell,
)

__all__ = [
    "DeckHasProgress", "deck_delete",
    "CARD_FIELDS", "INLINE_IMPORT_MAX_BYTES", "ImportBusy", "QUIZ_FIELDS", "Source", "card_create",
    "card_data", "card_delete", "card_demos_link", "card_edit", "card_move", "card_questions_link",
    "card_update", "deck_author_grant", "deck_author_revoke", "deck_create", "deck_import",
    "deck_update", "file_import", "import_job_create", "import_job_progress", "import_job_run",
    "import_job_time_out", "import_jobs_reap", "import_precheck", "import_result_data",
    "note_siblings", "question_data", "question_delete", "question_move", "question_save",
    "quiz_delete", "quiz_save", "revision_restore", "section_create", "section_delete",
    "section_move", "section_update",
    "MediaRefused", "QuotaExceeded", "SuggestionClosed", "card_retire", "client_write_once",
    "cards_rerender",
    "media_upload", "news_key", "own_card_slug", "own_cards_move", "own_cards_tag",
    "own_deck_create", "quota_check", "quota_enforce", "suggestion_accept", "suggestion_file",
    "suggestion_reject", "suggestions_tell",
]  # fmt: skip
