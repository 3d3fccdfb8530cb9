"""The author API under /api/author/: decks, sections, cards, quizzes and questions, revisions,
import and export. Session or token auth; staff, or an author of the deck in question (403
otherwise). Writes go through apps.authoring.services, like the author pages; refusals reach
config.api.exception_handler (400 for a field, 409 for a state that forbids it). A learner's own
decks, under /api/my/, and the card browser's bulk actions are in apps.authoring.api.own."""

from django.urls import path

from apps.authoring.api.cards import (
    CardDetail,
    CardList,
    CardMove,
    CardRevisions,
    QuestionRevisions,
    RevisionRestore,
)
from apps.authoring.api.decks import DeckDetail, DeckList, SectionDetail, SectionList, SectionMove
from apps.authoring.api.exercises import (
    DeckExercises,
    ExerciseAuthorDetail,
    ExerciseExport,
    ExerciseImport,
    ExerciseImportBatch,
    ExerciseRevisionRestore,
)
from apps.authoring.api.imports import (
    DeckExport,
    DeckImport,
    ImportJobCreate,
    ImportJobDetail,
    MarkdownPreview,
)
from apps.authoring.api.own import (
    CardsBulk,
    OwnCardDetail,
    OwnCardList,
    OwnCardRevisions,
    OwnDeckDetail,
    OwnDeckExport,
    OwnDeckImport,
    OwnDeckList,
    OwnImportJob,
    OwnMediaUpload,
    OwnRevisionRestore,
    OwnUsage,
)
from apps.authoring.api.quizzes import QuestionDetail, QuestionList, QuizDetail, QuizList

urlpatterns = [
    # A learner's own decks (apps.authoring.api.own): any signed-in user, on their own only.
    path("my/decks/", OwnDeckList.as_view(), name="api-my-decks"),
    path("my/decks/<slug:slug>/", OwnDeckDetail.as_view(), name="api-my-deck"),
    path("my/decks/<slug:slug>/cards/", OwnCardList.as_view(), name="api-my-cards"),
    path("my/decks/<slug:slug>/media/", OwnMediaUpload.as_view(), name="api-my-media"),
    path("my/decks/<slug:slug>/import/", OwnDeckImport.as_view(), name="api-my-import"),
    path("my/decks/<slug:slug>/export/<str:fmt>/", OwnDeckExport.as_view(), name="api-my-export"),
    path("my/cards/<int:pk>/", OwnCardDetail.as_view(), name="api-my-card"),
    path("my/cards/<int:pk>/revisions/", OwnCardRevisions.as_view(), name="api-my-card-revisions"),
    path("my/revisions/<int:pk>/restore/", OwnRevisionRestore.as_view(), name="api-my-restore"),
    path("my/imports/<int:pk>/", OwnImportJob.as_view(), name="api-my-import-job"),
    path("my/usage/", OwnUsage.as_view(), name="api-my-usage"),
    path("cards/bulk/", CardsBulk.as_view(), name="api-cards-bulk"),
    path("author/decks/", DeckList.as_view(), name="api-author-decks"),
    path("author/decks/<slug:slug>/", DeckDetail.as_view(), name="api-author-deck"),
    path("author/decks/<slug:slug>/sections/", SectionList.as_view(), name="api-author-sections"),
    path("author/decks/<slug:slug>/cards/", CardList.as_view(), name="api-author-cards"),
    path("author/decks/<slug:slug>/quizzes/", QuizList.as_view(), name="api-author-quizzes"),
    path(
        "author/decks/<slug:slug>/export/<str:fmt>/",
        DeckExport.as_view(),
        name="api-author-export",
    ),
    path("author/sections/<int:pk>/", SectionDetail.as_view(), name="api-author-section"),
    path("author/sections/<int:pk>/move/", SectionMove.as_view(), name="api-author-section-move"),
    path("author/cards/<int:pk>/", CardDetail.as_view(), name="api-author-card"),
    path("author/cards/<int:pk>/move/", CardMove.as_view(), name="api-author-card-move"),
    path(
        "author/cards/<int:pk>/revisions/",
        CardRevisions.as_view(),
        name="api-author-card-revisions",
    ),
    path(
        "author/revisions/<int:pk>/restore/",
        RevisionRestore.as_view(),
        name="api-author-revision-restore",
    ),
    path("author/quizzes/<slug:slug>/", QuizDetail.as_view(), name="api-author-quiz"),
    path(
        "author/quizzes/<slug:slug>/questions/",
        QuestionList.as_view(),
        name="api-author-questions",
    ),
    path("author/questions/<int:pk>/", QuestionDetail.as_view(), name="api-author-question"),
    path(
        "author/questions/<int:pk>/revisions/",
        QuestionRevisions.as_view(),
        name="api-author-question-revisions",
    ),
    path("author/import/", DeckImport.as_view(), name="api-author-import"),
    path("author/imports/", ImportJobCreate.as_view(), name="api-author-import-jobs"),
    path("author/imports/<int:pk>/", ImportJobDetail.as_view(), name="api-author-import-job"),
    path("author/preview/", MarkdownPreview.as_view(), name="api-author-preview"),
    path(
        "author/decks/<slug:slug>/exercises/",
        DeckExercises.as_view(),
        name="api-author-exercises",
    ),
    path(
        "author/decks/<slug:slug>/exercises/import/",
        ExerciseImport.as_view(),
        name="api-author-exercise-import",
    ),
    path(
        "author/decks/<slug:slug>/exercises/export/<str:fmt>/",
        ExerciseExport.as_view(),
        name="api-author-exercise-export",
    ),
    path(
        "author/exercises/<slug:slug>/", ExerciseAuthorDetail.as_view(), name="api-author-exercise"
    ),
    path(
        "author/exercise-revisions/<int:pk>/restore/",
        ExerciseRevisionRestore.as_view(),
        name="api-author-exercise-revision-restore",
    ),
    path(
        "author/exercise-imports/<uuid:batch>/",
        ExerciseImportBatch.as_view(),
        name="api-author-exercise-import-batch",
    ),
]
