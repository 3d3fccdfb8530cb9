"""Edits keep progress; "changes the answer" requeues; every edit leaves a revision to restore."""

import pytest
from django.utils import timezone

from apps.authoring import services
from apps.authoring.models import Revision
from apps.decks.markdown import render_markdown
from apps.study.models import CardState, ReviewLog
from config.errors import Conflict, Forbidden, ServiceError

pytestmark = pytest.mark.django_db
QUERIES_FOR_AN_ANSWER_CHANGE = 11  # whatever the number of learners


def _schedule(state: CardState) -> tuple:
    state.refresh_from_db()
    return (state.repetitions, state.ease_factor, state.interval_days, state.due_at, state.lapses)


def test_a_typo_fix_keeps_the_learners_schedule(staff, ray_task, alice_studied):
    before = _schedule(alice_studied)
    revision = services.card_update(
        card=ray_task, author=staff, note="typo", back="A stateless remote function call!"
    )
    assert revision is not None and not revision.changes_answer
    assert _schedule(alice_studied) == before
    ray_task.refresh_from_db()
    assert ray_task.back == "A stateless remote function call!"
    assert CardState.objects.get(user=alice_studied.user, card=ray_task).pk == alice_studied.pk


def test_changes_the_answer_makes_the_card_due_now_and_keeps_history(
    staff, alice, bob, ray_task, alice_studied
):
    before = _schedule(alice_studied)
    assert alice_studied.due_at > timezone.now()
    start = timezone.now()
    services.card_update(
        card=ray_task, author=staff, changes_answer=True, back="A remote function, no state."
    )
    repetitions, ease, interval, due_at, lapses = _schedule(alice_studied)
    assert due_at <= timezone.now() and due_at >= start
    assert (repetitions, ease, interval, lapses) == (before[0], before[1], before[2], before[4])
    assert ReviewLog.objects.filter(user=alice, card=ray_task).count() == 1
    # bob never studied the card: nothing is created for him.
    assert not CardState.objects.filter(user=bob).exists()


@pytest.mark.parametrize("learners", [1, 20])
def test_changes_the_answer_costs_the_same_queries_for_one_learner_or_many(
    staff, ray_task, django_user_model, django_assert_num_queries, learners
):
    later = timezone.now() + timezone.timedelta(days=9)
    users = django_user_model.objects.bulk_create(
        django_user_model(username=f"learner{i}") for i in range(learners)
    )
    CardState.objects.bulk_create(
        CardState(user=u, card=ray_task, deck_id=ray_task.deck_id, due_at=later) for u in users
    )
    services.card_update(card=ray_task, author=staff, back="warm-up edit")  # keeps the original
    with django_assert_num_queries(QUERIES_FOR_AN_ANSWER_CHANGE):
        revision = services.card_update(
            card=ray_task, author=staff, changes_answer=True, back="A remote function, no state."
        )
    assert revision.requeued == learners
    assert not CardState.objects.filter(card=ray_task, due_at__gt=timezone.now()).exists()


def test_first_edit_of_seeded_card_keeps_the_original_then_restore_brings_it_back(staff, ray_task):
    original = ray_task.front
    services.card_update(card=ray_task, author=staff, front="What is a Ray taks?", note="oops")
    services.card_update(card=ray_task, author=staff, front="What's a Ray task?")
    numbers = list(Revision.objects.filter(card=ray_task).values_list("number", "source"))
    assert numbers == [(3, "editor"), (2, "editor"), (1, "original")]
    first = Revision.objects.get(card=ray_task, number=1)
    assert first.data["front"] == original and first.author is None

    restored = services.revision_restore(revision=first, author=staff)
    ray_task.refresh_from_db()
    assert ray_task.front == original
    assert (restored.number, restored.source, restored.restored_from) == (4, "restore", first)
    assert Revision.objects.filter(card=ray_task).count() == 4


def test_saving_unchanged_text_writes_no_revision(staff, ray_task):
    assert services.card_update(card=ray_task, author=staff, front=ray_task.front) is None
    assert not Revision.objects.filter(card=ray_task).exists()


def test_revision_diff_marks_words(staff, ray_task):
    services.card_update(card=ray_task, author=staff, back="A stateless remote task call.")
    original, latest = Revision.objects.filter(card=ray_task).order_by("number")
    [(field, html)] = latest.changes(original)
    assert field == "back"
    assert html == "A stateless remote <del>function</del><ins>task</ins> call."


def test_card_errors_name_the_field(staff, small_deck, ray_task):
    with pytest.raises(ServiceError) as exc:
        services.card_update(card=ray_task, author=staff, slug="ray-actor")
    assert exc.value.field == "slug"
    assert "already has a card 'ray-actor'" in exc.value.message
    with pytest.raises(ServiceError) as exc:
        services.card_update(card=ray_task, author=staff, front="  ")
    assert (exc.value.status, exc.value.fields) == (400, {"front": "front must not be empty"})
    with pytest.raises(ServiceError) as exc:
        services.card_create(deck=small_deck, author=staff, section="nope", slug="x", front="f",
                             back="b")  # fmt: skip
    assert exc.value.field == "section"


def test_a_refusal_of_several_fields_names_each(staff, small_deck):
    """A card with neither slug nor front: each field is named with its own message, the
    message names them all (the API answers each under its name, the form shows each)."""
    with pytest.raises(ServiceError) as exc:
        services.card_create(deck=small_deck, author=staff, section="ray-core", slug="",
                             front="", back="b")  # fmt: skip
    assert exc.value.fields == {"slug": "slug is required", "front": "front is required"}
    assert exc.value.field == "slug"
    assert exc.value.message == "slug is required; front is required"
    assert exc.value.detail == {"slug": ["slug is required"], "front": ["front is required"]}


def test_markdown_with_script_is_stored_but_rendered_safe(staff, ray_task):
    services.card_update(
        card=ray_task, author=staff,
        back='<script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>',
    )  # fmt: skip
    ray_task.refresh_from_db()
    # Raw HTML shows as text: no tag, attribute or javascript: link survives.
    for bad in ("<script", "<img", 'href="javascript'):
        assert bad not in ray_task.back_html
    assert "&lt;script&gt;" in ray_task.back_html
    assert ray_task.back_html == render_markdown(ray_task.back)


def test_moving_cards_and_sections(staff, small_deck, ray_task):
    core = small_deck.sections.get(slug="ray-core")
    assert services.card_move(card=ray_task, direction="up") is False
    assert services.card_move(card=ray_task, direction="down") is True
    assert list(core.cards.order_by("order").values_list("slug", flat=True)) == [
        "ray-actor", "ray-task", "object-store",
    ]  # fmt: skip
    rllib = small_deck.sections.get(slug="rllib")
    assert services.section_move(section=rllib, direction="up") is True
    assert list(small_deck.sections.order_by("order").values_list("slug", flat=True)) == [
        "rllib", "ray-core",
    ]  # fmt: skip


def test_moving_a_card_to_another_section_puts_it_last(staff, small_deck, ray_task):
    services.card_update(card=ray_task, author=staff, section="rllib")
    ray_task.refresh_from_db()
    assert ray_task.section.slug == "rllib"
    assert list(ray_task.section.cards.order_by("order").values_list("slug", flat=True))[-1] == (
        "ray-task"
    )


def test_a_section_with_cards_is_not_deleted(small_deck):
    with pytest.raises(Conflict, match="still has 3 cards"):
        services.section_delete(section=small_deck.sections.get(slug="ray-core"))


def test_only_staff_create_decks(dave, staff):
    with pytest.raises(Forbidden) as exc:
        services.deck_create(user=dave, slug="new-deck", title="New")
    assert (exc.value.status, exc.value.message) == (403, "Only staff may create decks.")
    deck = services.deck_create(user=staff, slug="new-deck", title="New")
    assert deck.is_published is False


def test_reimporting_the_export_after_a_delete_or_a_move_reports_nothing_changed(
    staff, small_deck, ray_task
):
    """Card order in a section stays 0, 1, 2...; a gap made every later card 'changed' in an
    import preview of the deck's own export."""
    from apps.authoring.formats import export_deck, import_document

    services.card_delete(card=ray_task)
    services.card_update(card=small_deck.cards.get(slug="ray-actor"), author=staff, section="rllib")
    doc = import_document(export_deck(small_deck, "yaml"), filename="d.yaml")
    result = services.deck_import(doc=doc, user=staff, dry_run=True)
    assert (result.created, result.changed, result.unchanged) == (0, 0, 4)


def test_a_tag_with_a_comma_is_refused(staff, ray_task):
    """The card page and CSV both separate tags with commas: a tag "a,b" set through the API
    became two tags the next time anyone saved the card page untouched."""
    with pytest.raises(ServiceError) as exc:
        services.card_update(card=ray_task, author=staff, tags=["ray, core"])
    assert exc.value.fields == {"tags": "a tag cannot contain a comma: 'ray, core'"}
