from django.urls import path

from apps.authoring import views

app_name = "authoring"
urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.deck_create, name="deck-create"),
    path("preview/", views.preview, name="preview"),
    path("import/", views.import_page, name="import"),
    path("imports/<int:pk>/", views.import_job, name="import-job"),
    path("imports/<int:pk>/commit/", views.import_job_commit, name="import-job-commit"),
    path("decks/<slug:slug>/", views.deck, name="deck"),
    path("decks/<slug:slug>/publish/", views.deck_publish, name="deck-publish"),
    path("decks/<slug:slug>/authors/", views.deck_authors, name="deck-authors"),
    path("decks/<slug:slug>/sections/new/", views.section_create, name="section-create"),
    path("decks/<slug:slug>/cards/new/", views.card_new, name="card-new"),
    path(
        "decks/<slug:slug>/export/<str:fmt>/",
        views.export,
        name="export",
    ),
    path("sections/<int:pk>/", views.section, name="section"),
    path("sections/<int:pk>/move/", views.section_move, name="section-move"),
    path("cards/<int:pk>/", views.card, name="card"),
    path("cards/<int:pk>/move/", views.card_move, name="card-move"),
    path("cards/<int:pk>/delete/", views.card_delete, name="card-delete"),
    path("cards/<int:pk>/history/", views.card_history, name="card-history"),
    path("revisions/<int:pk>/restore/", views.revision_restore, name="revision-restore"),
    path("decks/<slug:slug>/quizzes/new/", views.quiz_create, name="quiz-create"),
    path("quizzes/<slug:slug>/", views.quiz, name="quiz"),
    path("quizzes/<slug:slug>/questions/new/", views.question, name="question-new"),
    path("questions/<int:pk>/", views.question, name="question"),
    path("questions/<int:pk>/move/", views.question_move, name="question-move"),
    path("questions/<int:pk>/history/", views.question_history, name="question-history"),
    path("questions/<int:pk>/delete/", views.question_delete, name="question-delete"),
    path("decks/<slug:slug>/exercises/", views.exercises, name="exercises"),
    path("decks/<slug:slug>/exercises/new/", views.exercise_new, name="exercise-new"),
    path("decks/<slug:slug>/exercises/import/", views.exercise_import, name="exercise-import"),
    path(
        "decks/<slug:slug>/exercises/export/<str:fmt>/",
        views.exercise_export,
        name="exercise-export",
    ),
    path("exercises/<slug:slug>/", views.exercise, name="exercise"),
    path("exercise-revisions/<int:pk>/recheck/", views.exercise_recheck, name="exercise-recheck"),
    path("exercise-revisions/<int:pk>/restore/", views.exercise_restore, name="exercise-restore"),
    path(
        "exercise-imports/<uuid:batch>/",
        views.exercise_import_batch,
        name="exercise-import-batch",
    ),
]
