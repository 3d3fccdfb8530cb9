"""What a card links to: the quiz questions it teaches and the live demos that illustrate it."""

from django.db import transaction
from django.db.models import Max

from apps.authoring.services.questions import question_reload, question_save
from apps.authoring.services.revisions import question_data
from apps.decks.models import Card
from apps.demos.models import DemoCardLink
from apps.demos.ray_demos.catalogue import get_demo
from config.errors import ServiceError


@transaction.atomic
def card_questions_link(*, card: Card, questions, author) -> int:
    """Make `questions` (of the card's deck) exactly the ones linked to the card; each
    question whose links change gets a revision. Returns how many changed."""
    wanted = {q.pk for q in questions}
    current = set(card.quiz_questions.values_list("pk", flat=True))
    changed = 0
    for pk in wanted ^ current:
        question = question_reload(pk)
        if question.quiz.deck_id != card.deck_id:
            raise ServiceError(f"question {question} is not in this deck", field="questions")
        data = question_data(question)
        slugs = set(data["cards"])
        slugs = slugs | {card.slug} if pk in wanted else slugs - {card.slug}
        if not slugs:
            raise ServiceError(
                f"question {question} must keep at least one card that teaches it",
                field="questions",
            )
        data["cards"] = sorted(slugs)
        verb = "linked to" if pk in wanted else "unlinked from"
        question_save(
            quiz=question.quiz, question=question, data=data, author=author,
            note=f"{verb} card {card.slug}",
        )  # fmt: skip
        changed += 1
    return changed


@transaction.atomic
def card_demos_link(*, card: Card, demos) -> int:
    """Make `demos` (catalogue slugs) exactly the live demos that illustrate the card; returns
    how many links changed. (`manage.py seed` re-applies the links fixtures/demos names.)"""
    wanted = list(dict.fromkeys(demos))
    unknown = [slug for slug in wanted if get_demo(slug) is None]
    if unknown:
        raise ServiceError(f"no demo {unknown[0]!r} in the catalogue", field="demos")
    current = set(DemoCardLink.objects.filter(card=card).values_list("demo", flat=True))
    removed = current - set(wanted)
    DemoCardLink.objects.filter(card=card, demo__in=removed).delete()
    added = [slug for slug in wanted if slug not in current]
    for slug in added:
        top = DemoCardLink.objects.filter(demo=slug).aggregate(n=Max("order"))["n"]
        DemoCardLink.objects.create(demo=slug, card=card, order=0 if top is None else top + 1)
    return len(removed) + len(added)
