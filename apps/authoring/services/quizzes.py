"""A quiz's own fields (its questions are edited one by one, in questions.py)."""

from django.db import transaction
from django.db.models import Max

from apps.authoring.services.fields import slug_check
from apps.decks.models import Deck
from apps.quizzes.models import Quiz
from config.errors import Conflict, ServiceError

QUIZ_FIELDS = ("slug", "title", "kind", "section", "pass_mark", "time_limit_seconds", "shuffle")


@transaction.atomic
def quiz_save(*, deck: Deck, quiz: Quiz | None = None, **fields) -> Quiz:
    """Create or edit a quiz's own fields (its questions are edited one by one)."""
    unknown = set(fields) - set(QUIZ_FIELDS)
    if unknown:
        raise ServiceError("not a quiz field", field=sorted(unknown)[0])
    quiz = quiz or Quiz(deck=deck, kind=Quiz.Kind.KNOWLEDGE_CHECK)
    if "slug" in fields:
        slug = slug_check("slug", fields["slug"])
        taken = Quiz.objects.filter(slug=slug).exclude(pk=quiz.pk).first()
        if taken is not None:
            raise ServiceError(
                f"quiz slug {slug!r} is taken (deck {taken.deck.slug})", field="slug"
            )
        quiz.slug = slug
    if "title" in fields:
        quiz.title = (fields["title"] or "").strip()
    if not quiz.title:
        raise ServiceError("title must not be empty", field="title")
    if "kind" in fields:
        if fields["kind"] not in Quiz.Kind.values:
            raise ServiceError("kind must be checkpoint or knowledge_check", field="kind")
        quiz.kind = fields["kind"]
    if "section" in fields:
        slug = fields["section"]
        quiz.section = deck.sections.filter(slug=slug).first() if slug else None
        if slug and quiz.section is None:
            raise ServiceError(f"section {slug!r} is not in deck {deck.slug!r}", field="section")
    if quiz.kind == Quiz.Kind.CHECKPOINT and quiz.section is None:
        raise ServiceError("a checkpoint needs the section whose page shows it", field="section")
    if "pass_mark" in fields:
        mark = fields["pass_mark"]
        if mark is None or not 0 <= float(mark) <= 1:
            raise ServiceError(f"pass_mark must be from 0 to 1, got {mark!r}", field="pass_mark")
        quiz.pass_mark = round(float(mark), 2)
    if "time_limit_seconds" in fields:
        limit = fields["time_limit_seconds"]
        if limit is not None and not 10 <= int(limit) <= 86400:
            raise ServiceError("time limit must be 10 to 86400 seconds", field="time_limit_seconds")
        quiz.time_limit_seconds = limit
    if "shuffle" in fields:
        quiz.shuffle = bool(fields["shuffle"])
    if quiz.pk is None:
        top = deck.quizzes.aggregate(n=Max("order"))["n"]
        quiz.order = 0 if top is None else top + 1
    quiz.save()
    return quiz


@transaction.atomic
def quiz_delete(*, quiz: Quiz) -> None:
    """Delete a quiz, refusing when learners have attempts (their history would go)."""
    attempts = quiz.attempts.count()
    if attempts:
        raise Conflict(f"quiz {quiz.slug!r} has {attempts} attempts; keep it")
    quiz.delete()
