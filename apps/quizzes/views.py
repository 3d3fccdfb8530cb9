from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from apps.decks.selectors import visible_decks
from apps.quizzes import scoring, selectors, services
from apps.quizzes.forms import answers_from_form, question_fields, question_review
from apps.quizzes.models import Attempt, Question, Quiz
from apps.study import selectors as study_selectors
from apps.study.services import checkpoint_answer_record
from config.htmx import HtmxHttpRequest


def index(request: HttpRequest) -> HttpResponse:
    quizzes = list(selectors.quiz_list(request.user))
    context = {
        "knowledge_checks": [q for q in quizzes if not q.is_checkpoint],
        "checkpoints": [q for q in quizzes if q.is_checkpoint],
    }
    return render(request, "quizzes/index.html", context)


def quiz(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = selectors.quiz_detail(request.user, slug)
    if quiz.is_checkpoint:
        return redirect(quiz.get_absolute_url())
    context = {"quiz": quiz, "question_count": len(quiz.questions.all())}
    if request.user.is_authenticated:
        context["history"] = selectors.attempt_history(request.user, quiz)
        context["best"] = selectors.best_attempt(request.user, quiz)
        context["open_attempt"] = selectors.open_attempt(request.user, quiz)
        context["drills"] = selectors.drill_schedule(request.user, quiz)
    return render(request, "quizzes/quiz.html", context)


@login_required
@require_POST
def start(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = selectors.quiz_detail(request.user, slug)
    if quiz.is_checkpoint:
        return redirect(quiz.get_absolute_url())
    return redirect(services.attempt_start(user=request.user, quiz=quiz))


def _taking_context(attempt: Attempt, quiz: Quiz, answers: dict) -> dict:
    questions = quiz.ordered_questions(attempt.seed)
    seed = quiz.option_seed(attempt.seed)
    return {
        "attempt": attempt,
        "quiz": quiz,
        "questions": [
            question_fields(
                q, seed=seed, answer=answers.get(q.key), number=i, draw_seed=attempt.seed
            )
            for i, q in enumerate(questions, 1)
        ],
    }


@login_required
def attempt(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """An open attempt is the quiz form; a submitted one is its result. POST submits."""
    attempt = selectors.user_attempt(request.user, pk)
    if not attempt.is_open:
        # A second submit (another tab, the timer firing late) just shows the result.
        return redirect(attempt) if request.method == "POST" else _result(request, attempt)
    quiz = attempt.quiz = selectors.quiz_detail(request.user, attempt.quiz.slug)  # prefetched
    if request.method == "POST":
        answers = answers_from_form(list(quiz.questions.all()), request.POST)
        try:
            attempt = services.attempt_submit(attempt=attempt, answers=answers)
        except services.AttemptRejected as exc:
            messages.error(request, f"Not submitted: {exc.message}")
            context = _taking_context(attempt, quiz, answers)
            return render(request, "quizzes/attempt.html", context, status=400)
        if attempt.timed_out:
            messages.warning(
                request, "Time ran out: scored on the answers saved before the deadline."
            )
        return redirect(attempt)
    if not attempt.accepts_answers():
        services.attempt_expire(attempt=attempt)
        messages.warning(request, "Time ran out: scored on the answers saved before the deadline.")
        return redirect(attempt)
    return render(request, "quizzes/attempt.html", _taking_context(attempt, quiz, attempt.answers))


@login_required
@require_POST
def attempt_save(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Autosave (htmx, on every change), so a time-out scores what was answered in time."""
    attempt = selectors.user_attempt(request.user, pk)
    if not attempt.is_open:
        return HttpResponseClientRedirect(attempt.get_absolute_url())
    quiz = attempt.quiz = selectors.quiz_detail(request.user, attempt.quiz.slug)  # prefetched
    answers = answers_from_form(list(quiz.questions.all()), request.POST)
    context: dict[str, object] = {"attempt": attempt}
    try:
        context["saved"] = services.attempt_save(attempt=attempt, answers=answers)
    except services.AttemptRejected as exc:
        context["error"] = exc.message
    if not context.get("saved") and not attempt.accepts_answers():
        return HttpResponseClientRedirect(attempt.get_absolute_url())
    return render(request, "quizzes/attempt.html#save-status", context)


def _result(request: HttpRequest, attempt: Attempt) -> HttpResponse:
    quiz = selectors.quiz_with_cards(attempt.quiz_id)
    results = {r["id"]: r for r in attempt.results}
    # In the order the attempt showed the questions, so "question 3" means the same thing.
    reviews = [
        question_review(
            question,
            seed=quiz.option_seed(attempt.seed),
            result=results[question.key],
            number=number,
        )
        for number, question in enumerate(quiz.ordered_questions(attempt.seed), 1)
        if question.key in results
    ]
    missed_cards = {
        card.pk: card
        for review in reviews
        if not review["full"]
        for card in review["question"].cards.all()
    }
    # "Review these" leaves out the cards the learner suspended; the button counts the same.
    suspended = study_selectors.suspended_ids(request.user, missed_cards)
    missed_cards = {pk: card for pk, card in missed_cards.items() if pk not in suspended}
    context = {
        "attempt": attempt,
        "quiz": quiz,
        "reviews": reviews,
        "missed_cards": list(missed_cards.values()),
        "missed_suspended": len(suspended),
        "best": selectors.best_attempt(request.user, quiz),
    }
    return render(request, "quizzes/result.html", context)


@login_required
@require_POST
def review(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Review these": the missed questions' cards become due now in the review queue."""
    attempt = selectors.user_attempt(request.user, pk)
    if attempt.is_open:  # nothing is scored yet, so nothing is known to be missed
        messages.info(
            request, "Submit the quiz first: then its missed questions' cards can be queued."
        )
        return redirect(attempt)
    card_ids = services.attempt_cards_requeue(user=request.user, attempt=attempt)
    if card_ids:
        count = len(card_ids)
        messages.success(
            request,
            f"{count} card{'s' if count != 1 else ''} queued: re-learn them here now; they are "
            "also due in your review queue.",
        )
        # A review of exactly these cards, not of the whole queue they joined.
        return redirect(reverse("study:review") + "?cards=" + ",".join(map(str, card_ids)))
    else:
        messages.info(request, "Nothing to review: every question got full marks.")
    return redirect(attempt)


@require_POST
def checkpoint_check(request: HtmxHttpRequest, slug: str, key: str) -> HttpResponse:
    """Immediate feedback on one checkpoint question; nothing is recorded."""
    question = get_object_or_404(
        Question.objects.select_related("quiz", "quiz__section", "quiz__deck").prefetch_related(
            "choices", "statements", "pairs", "cards__section", "cards__deck"
        ),
        key=key,
        quiz__slug=slug,
        quiz__kind=Quiz.Kind.CHECKPOINT,
        quiz__deck__in=visible_decks(request.user),
    )
    answers = answers_from_form([question], request.POST)
    spec = question.scoring_question()
    problems = scoring.answer_problems([spec], answers)
    context: dict[str, object] = {"quiz": question.quiz, "question": question}
    if problems:
        context["error"] = problems[0][1]
        context["shown"] = question_fields(question, seed=None, answer=answers.get(question.key))
    else:
        scored = scoring.score_question(spec, answers.get(question.key))
        result = {
            "points": float(services.rounded(scored.points)),
            "max_points": scored.max_points,
            "correct_answer": scored.correct_answer,
            "answer": answers.get(question.key),
        }
        context["review"] = question_review(question, seed=None, result=result)
        if request.user.is_authenticated and question.quiz.section_id:
            # Still practice (nothing scored); the home page shows the checkpoint as done.
            checkpoint_answer_record(
                user=request.user,
                section=question.quiz.section,
                key=question.key,
                right=scored.points >= scored.max_points,
            )
    template = "quizzes/checkpoint.html"
    if request.htmx:
        template += "#feedback"
    # htmx swaps only 2xx responses, so the fragment carries its error with a 200.
    status = 400 if problems and not request.htmx else 200
    return render(request, template, context, status=status)
