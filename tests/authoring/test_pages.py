"""Author pages as dave (a deck author, not staff) uses them."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from apps.authoring.models import Revision
from apps.study.models import CardState

pytestmark = pytest.mark.django_db


@pytest.fixture
def dave_client(client, dave):
    client.force_login(dave)
    return client


def _card_post(card, **changes):
    data = {"section": card.section.slug, "slug": card.slug, "front": card.front,
            "back": card.back, "why": card.why, "tags": ", ".join(card.tags)}  # fmt: skip
    return {**data, **changes}


def test_fixing_a_typo_on_the_card_page_keeps_the_schedule(dave_client, ray_task, alice_studied):
    due, reps = alice_studied.due_at, alice_studied.repetitions
    url = reverse("authoring:card", args=[ray_task.pk])
    response = dave_client.post(url, _card_post(ray_task, back="A stateless remote call."),
                                follow=True)  # fmt: skip
    assert "learners&#x27; schedules are unchanged" in response.content.decode()
    alice_studied.refresh_from_db()
    assert (alice_studied.due_at, alice_studied.repetitions) == (due, reps)
    revision = Revision.objects.filter(card=ray_task).first()
    assert (revision.number, revision.author.username, revision.changes_answer) == (
        2,
        "dave",
        False,
    )


def test_changes_the_answer_on_the_card_page_requeues(dave_client, ray_task, alice_studied):
    url = reverse("authoring:card", args=[ray_task.pk])
    post = _card_post(ray_task, back="Something else entirely.", changes_answer="on")
    response = dave_client.post(url, post, follow=True)
    assert "1 learner who studied this card review it again now" in response.content.decode()
    state = CardState.objects.get(pk=alice_studied.pk)
    assert state.due_at < alice_studied.due_at
    assert state.repetitions == alice_studied.repetitions


def test_a_bad_card_edit_shows_the_problem_and_saves_nothing(dave_client, ray_task):
    url = reverse("authoring:card", args=[ray_task.pk])
    response = dave_client.post(url, _card_post(ray_task, slug="ray-actor", front="Changed"))
    assert response.status_code == 400
    assert "already has a card &#x27;ray-actor&#x27;" in response.content.decode()
    ray_task.refresh_from_db()
    assert ray_task.front == "What is a Ray task?"


def test_live_preview_renders_with_the_sanitising_renderer(dave_client):
    response = dave_client.post(
        reverse("authoring:preview"),
        {"back": "**bold** <script>alert(1)</script>"},
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert "<strong>bold</strong>" in html and "<script" not in html


def test_card_page_has_preview_beside_each_textarea(dave_client, ray_task):
    html = dave_client.get(reverse("authoring:card", args=[ray_task.pk])).content.decode()
    assert 'hx-trigger="keyup changed delay:300ms, change"' in html
    assert 'hx-target="#preview-back"' in html
    assert "<p>A stateless remote function call.</p>" in html


def test_linking_a_card_to_a_question_from_the_card_page(dave_client, ray_task, question):
    url = reverse("authoring:card", args=[ray_task.pk])
    dave_client.post(url, {**_card_post(ray_task), "questions_shown": "1",
                           "questions": [question.pk]})  # fmt: skip
    assert sorted(question.cards.values_list("slug", flat=True)) == ["ray-actor", "ray-task"]
    assert Revision.objects.filter(question=question).first().note == "linked to card ray-task"


def test_history_shows_a_diff_and_restores(dave_client, ray_task):
    dave_client.post(reverse("authoring:card", args=[ray_task.pk]),
                     _card_post(ray_task, front="What is a Ray tsak?"))  # fmt: skip
    html = dave_client.get(reverse("authoring:card-history", args=[ray_task.pk])).content.decode()
    assert "<del>task?</del><ins>tsak?</ins>" in html
    original = Revision.objects.get(card=ray_task, number=1)
    dave_client.post(reverse("authoring:revision-restore", args=[original.pk]))
    ray_task.refresh_from_db()
    assert ray_task.front == "What is a Ray task?"


def test_publish_toggle_hides_the_deck_from_learners(dave_client, small_deck, alice, client):
    response = dave_client.post(
        reverse("authoring:deck-publish", args=["ray-basics"]), {"publish": "0"},
        HTTP_HX_REQUEST="true",
    )  # fmt: skip
    assert response.status_code == 200 and "Publish</button>" in response.content.decode()
    small_deck.refresh_from_db()
    assert small_deck.is_published is False
    client.force_login(alice)
    assert client.get(reverse("decks:deck", args=["ray-basics"])).status_code == 404


def test_up_and_down_buttons_reorder_and_return_the_structure(dave_client, ray_task):
    response = dave_client.post(
        reverse("authoring:card-move", args=[ray_task.pk]), {"direction": "down"},
        HTTP_HX_REQUEST="true",
    )  # fmt: skip
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="structure">')
    assert html.index("ray-actor") < html.index("ray-task")
    assert f'id="card-{ray_task.pk}-up"' in html


def test_import_preview_then_commit(dave_client, small_deck):
    data = b"front,back,section,tags\nWhat is Ray?,A framework,ray-core,intro\n"
    upload = SimpleUploadedFile("new.csv", data, "text/csv")
    response = dave_client.post(reverse("authoring:import"), {"file": upload, "deck": "ray-basics"})
    html = response.content.decode()
    assert "<strong>1</strong> new" in html and "<strong>5</strong> unchanged" in html
    assert small_deck.cards.count() == 5
    response = dave_client.post(reverse("authoring:import"), {"commit": "1"}, follow=True)
    assert small_deck.cards.filter(slug="what-is-ray", tags=["intro"]).exists()
    assert "1 new, 0 changed, 5 unchanged" in response.content.decode()


def test_import_error_names_the_line_and_imports_nothing(dave_client, small_deck):
    upload = SimpleUploadedFile("bad.csv", b"front,back,section,tags\nQ,,ray-core,\n")
    response = dave_client.post(reverse("authoring:import"), {"file": upload, "deck": "ray-basics"})
    assert response.status_code == 400
    assert "Nothing was imported. bad.csv: line 2: back is empty" in response.content.decode()
    assert small_deck.cards.count() == 5


def test_question_editor_keeps_unchanged_choice_keys(dave_client, question):
    keys = dict(question.choices.values_list("text", "key"))
    response = dave_client.post(
        reverse("authoring:question", args=[question.pk]),
        {"slug": "task-or-actor", "kind": "single", "prompt": "Which of these keeps state?",
         "explanation": "An actor is a process.", "points": "1",
         "options": "[x] An actor\n[ ] A task\n[ ] An object ref", "cards": ["ray-actor"]},
    )  # fmt: skip
    assert response.status_code == 302
    question.refresh_from_db()
    assert question.prompt == "Which of these keeps state?"
    new_keys = dict(question.choices.values_list("text", "key"))
    assert new_keys["An actor"] == keys["An actor"] and new_keys["A task"] == keys["A task"]
    assert list(Revision.objects.filter(question=question).values_list("number", "source")) == [
        (2, "editor"), (1, "original"),
    ]  # fmt: skip


def test_question_editor_names_the_problem(dave_client, question):
    response = dave_client.post(
        reverse("authoring:question", args=[question.pk]),
        {"slug": "task-or-actor", "kind": "single", "prompt": "P", "explanation": "E",
         "points": "1", "options": "[x] A\n[x] B", "cards": ["ray-actor"]},
    )  # fmt: skip
    assert response.status_code == 400
    assert "needs exactly 1 correct choice, has 2" in response.content.decode()


def test_staff_grant_and_revoke_authorship(client, staff, small_deck, alice):
    client.force_login(staff)
    url = reverse("authoring:deck-authors", args=["ray-basics"])
    client.post(url, {"username": "alice"})
    assert small_deck.authors.filter(user=alice).exists()
    response = client.post(url, {"username": "nobody"}, follow=True)
    assert "no user is called &#x27;nobody&#x27;" in response.content.decode()
    client.post(url, {"revoke": str(alice.pk)})
    assert not small_deck.authors.exists()


def test_deck_editor_query_count_does_not_grow_with_cards(
    dave_client, small_deck, quiz, django_assert_num_queries
):
    url = reverse("authoring:deck", args=["ray-basics"])
    dave_client.get(url)
    # the structure is a page of cards (issue 28): their count, the page, its sections and
    # their card counts, where the whole deck was two queries
    with django_assert_num_queries(13):
        assert dave_client.get(url).status_code == 200
    core = small_deck.sections.get(slug="ray-core")
    for i in range(10):
        small_deck.cards.create(section=core, slug=f"extra-{i}", order=10 + i, front="F", back="B")
    with django_assert_num_queries(13):
        dave_client.get(url)


def test_questions_reorder_on_the_quiz_page(dave_client, quiz, question):
    second = quiz.questions.create(slug="second", kind="single", prompt="Second?",
                                   explanation="E", order=1)  # fmt: skip
    response = dave_client.post(
        reverse("authoring:question-move", args=[second.pk]), {"direction": "up"},
        HTTP_HX_REQUEST="true",
    )  # fmt: skip
    html = response.content.decode()
    assert html.lstrip().startswith('<table class="author-table" id="questions">')
    assert html.index("Second?") < html.index("Which one keeps state?")
    assert list(quiz.questions.order_by("order").values_list("slug", flat=True)) == [
        "second", "task-or-actor",
    ]  # fmt: skip


def test_quiz_settings_on_the_quiz_page(dave_client, quiz):
    url = reverse("authoring:quiz", args=[quiz.slug])
    assert 'value="70"' in dave_client.get(url).content.decode()
    form = {"slug": quiz.slug, "title": "Core check", "kind": "checkpoint", "section": "",
            "pass_percent": "80", "time_limit_minutes": "5"}  # fmt: skip
    response = dave_client.post(url, form)
    assert response.status_code == 400
    assert "a checkpoint needs the section whose page shows it" in response.content.decode()
    dave_client.post(url, {**form, "section": "ray-core"})
    quiz.refresh_from_db()
    assert (quiz.title, quiz.kind, quiz.section.slug) == ("Core check", "checkpoint", "ray-core")
    assert (float(quiz.pass_mark), quiz.time_limit_seconds, quiz.shuffle) == (0.8, 300, False)


def test_linking_a_card_to_live_demos_from_the_card_page(dave_client, ray_task):
    url = reverse("authoring:card", args=[ray_task.pk])
    html = dave_client.get(url).content.decode()
    assert 'value="tasks-vs-actors"' in html
    dave_client.post(url, {**_card_post(ray_task), "demos_shown": "1",
                           "demos": ["tasks-vs-actors", "object-store"]})  # fmt: skip
    assert sorted(ray_task.demo_links.values_list("demo", flat=True)) == [
        "object-store", "tasks-vs-actors",
    ]  # fmt: skip
    dave_client.post(url, {**_card_post(ray_task), "demos_shown": "1", "demos": ["object-store"]})
    assert list(ray_task.demo_links.values_list("demo", flat=True)) == ["object-store"]


def test_saving_a_multi_line_card_unchanged_from_a_browser_records_nothing(
    dave_client, ray_task, question, staff
):
    """Browsers send textarea line breaks as CRLF: saving a card or question without touching
    it must say "Nothing changed", and the text keeps its plain newlines."""
    from apps.authoring import services

    services.card_update(card=ray_task, author=staff, back="Line one.\n\nLine two.", why="A\nB")
    revisions = Revision.objects.count()
    post = _card_post(ray_task, back="Line one.\r\n\r\nLine two.", why="A\r\nB")
    response = dave_client.post(reverse("authoring:card", args=[ray_task.pk]), post, follow=True)
    assert "Nothing changed." in response.content.decode()
    ray_task.refresh_from_db()
    assert (ray_task.back, ray_task.why) == ("Line one.\n\nLine two.", "A\nB")

    dave_client.post(
        reverse("authoring:question", args=[question.pk]),
        {"slug": "task-or-actor", "kind": "single", "prompt": "Which one\r\nkeeps state?",
         "explanation": "An actor\r\nis a process.", "points": "1",
         "options": "[x] An actor\r\n[ ] A task", "cards": ["ray-actor"]},
    )  # fmt: skip
    question.refresh_from_db()
    assert (question.prompt, question.explanation) == (
        "Which one\nkeeps state?", "An actor\nis a process."
    )  # fmt: skip
    assert Revision.objects.count() == revisions + 2  # the question's original and its edit


def test_an_upload_over_the_limit_is_refused_on_the_import_page(dave_client, small_deck):
    data = b"front,back,section,tags\n" + b"Q,A,ray-core,\n" * (600 * 1024)  # ~8 MiB
    upload = SimpleUploadedFile("big.csv", data, "text/csv")
    response = dave_client.post(reverse("authoring:import"), {"file": upload, "deck": "ray-basics"})
    assert response.status_code == 400
    assert "big.csv: the file is larger than 2 MiB, the import limit" in response.content.decode()
    assert small_deck.cards.count() == 5


def test_publish_goes_back_only_to_a_page_of_this_site(dave_client, small_deck):
    url = reverse("authoring:deck-publish", args=["ray-basics"])
    response = dave_client.post(url, {"publish": "0", "next": "https://evil.example/login"})
    assert response["Location"] == reverse("authoring:index")
    response = dave_client.post(url, {"publish": "1", "next": "/author/decks/ray-basics/"})
    assert response["Location"] == "/author/decks/ray-basics/"


def test_a_bad_option_line_keeps_what_the_author_typed(dave_client, question):
    response = dave_client.post(
        reverse("authoring:question", args=[question.pk]),
        {"slug": "task-or-actor", "kind": "single", "prompt": "A much better prompt, typed",
         "explanation": "A new explanation", "points": "1",
         "options": "[x] An actor\nA task, forgot the box", "cards": ["ray-actor"]},
    )  # fmt: skip
    html = response.content.decode()
    assert response.status_code == 400
    assert "line 2: start it with [x] or [ ]" in html
    assert "A much better prompt, typed</textarea>" in html
    assert "A task, forgot the box</textarea>" in html
    assert "A new explanation</textarea>" in html
    response = dave_client.post(
        reverse("authoring:question", args=[question.pk]),
        {"slug": "task-or-actor", "kind": "single", "prompt": "Typed prompt", "explanation": "E",
         "points": "many", "options": "[x] An actor\n[ ] A task", "cards": ["ray-actor"]},
    )  # fmt: skip
    assert "points must be a whole number" in response.content.decode()
    assert "Typed prompt</textarea>" in response.content.decode()


def test_refused_section_and_deck_edits_keep_what_the_author_typed(dave_client, small_deck):
    section = small_deck.sections.get(slug="ray-core")
    response = dave_client.post(
        reverse("authoring:section", args=[section.pk]),
        {"slug": "Ray Core!", "title": "Ray core, revised", "summary": "A long new summary."},
    )
    html = response.content.decode()
    assert response.status_code == 400 and "must be lowercase words" in html
    assert 'value="Ray Core!"' in html and 'value="Ray core, revised"' in html
    assert "A long new summary.</textarea>" in html
    response = dave_client.post(
        reverse("authoring:deck", args=["ray-basics"]),
        {"title": " ", "description": "A new description.", "objectives": "One\nTwo"},
    )
    html = response.content.decode()
    assert response.status_code == 400 and "title must not be empty" in html
    assert "A new description.</textarea>" in html and "One\nTwo</textarea>" in html


def test_deleting_a_section_with_cards_explains_and_keeps_the_form_filled(dave_client, small_deck):
    section = small_deck.sections.get(slug="ray-core")
    response = dave_client.post(reverse("authoring:section", args=[section.pk]), {"delete": "1"})
    html = response.content.decode()
    assert response.status_code == 400 and "still has 3 cards" in html
    assert 'value="ray-core"' in html and 'value="Ray core"' in html


def test_malformed_ids_in_a_form_are_a_400_not_a_server_error(dave_client, ray_task, client, staff):
    post = {**_card_post(ray_task, front="Changed"), "questions_shown": "1", "questions": ["x"]}
    response = dave_client.post(reverse("authoring:card", args=[ray_task.pk]), post)
    assert response.status_code == 400
    assert "not a quiz question of this deck" in response.content.decode()
    ray_task.refresh_from_db()
    assert ray_task.front == "What is a Ray task?"
    client.force_login(staff)
    url = reverse("authoring:deck-authors", args=["ray-basics"])
    response = client.post(url, {"revoke": "dave"}, follow=True)
    assert "No author to remove" in response.content.decode()


def test_import_commits_only_the_file_whose_preview_was_confirmed(dave_client, small_deck):
    """Two previews in two tabs: confirming the first must not import the second file."""
    url = reverse("authoring:import")
    first = SimpleUploadedFile("a.csv", b"front,back,section,tags\nQ one,A,ray-core,\n")
    html = dave_client.post(url, {"file": first, "deck": "ray-basics"}).content.decode()
    token = html.split('name="preview" value="')[1].split('"')[0]
    second = SimpleUploadedFile("b.csv", b"front,back,section,tags\nQ two,B,ray-core,\n")
    dave_client.post(url, {"file": second, "deck": "ray-basics"})

    response = dave_client.post(url, {"commit": "1", "preview": token})
    assert response.status_code == 400
    assert "another file was previewed since" in response.content.decode()
    assert small_deck.cards.count() == 5


@pytest.fixture
def upload_bytes_kept(monkeypatch):
    """How many bytes of uploaded files Django's own handlers kept (in memory or on disk)."""
    from django.core.files import uploadhandler

    kept = []
    handlers = uploadhandler.MemoryFileUploadHandler, uploadhandler.TemporaryFileUploadHandler
    for handler in handlers:
        original = handler.receive_data_chunk

        def counting(self, raw_data, start, original=original):
            if getattr(self, "activated", True):  # an idle memory handler passes data on
                kept.append(len(raw_data))
            return original(self, raw_data, start)

        monkeypatch.setattr(handler, "receive_data_chunk", counting)
    return kept


@pytest.mark.parametrize("where", ["page", "api"])
def test_a_huge_upload_is_not_kept_past_the_limit(
    dave_client, small_deck, upload_bytes_kept, where
):
    """An import upload is cut at the limit while it streams in: a 20 MiB file must not be
    written to disk whole before the size refusal."""
    data = b"front,back,section,tags\n" + b"Q,A,ray-core,\n" * (1500 * 1024)  # ~20 MiB
    upload = SimpleUploadedFile("huge.csv", data, "text/csv")
    url = reverse("authoring:import") if where == "page" else "/api/author/import/"
    response = dave_client.post(url, {"file": upload, "deck": "ray-basics"})
    assert response.status_code == 400
    assert "huge.csv: the file is larger than 2 MiB" in response.content.decode()
    assert sum(upload_bytes_kept) <= 2 * 1024 * 1024 + 1
    assert small_deck.cards.count() == 5


def test_the_import_page_still_checks_csrf(dave, small_deck):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(dave)
    upload = SimpleUploadedFile("a.csv", b"front,back,section,tags\nQ,A,ray-core,\n")
    response = browser.post(reverse("authoring:import"), {"file": upload, "deck": "ray-basics"})
    assert response.status_code == 403
    page = browser.get(reverse("authoring:import"))
    token = page.content.decode().split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    upload = SimpleUploadedFile("a.csv", b"front,back,section,tags\nQ,A,ray-core,\n")
    response = browser.post(
        reverse("authoring:import"),
        {"file": upload, "deck": "ray-basics", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 200 and "<strong>1</strong> new" in response.content.decode()


def test_a_drill_is_edited_in_the_editor_and_keeps_its_tool_output(dave_client, question):
    """A debugging drill's output and a sizing drill's numbers round-trip through the editor:
    saving the page as it was shown changes nothing, and a bad formula is refused by name."""
    evidence = (
        "tool: ray status\nsource: a real run\noutput: |-\n  Pending Demands:\n   {'GPU': 1.0}"
    )
    url = reverse("authoring:question", args=[question.pk])
    base = {"slug": "task-or-actor", "kind": "single", "prompt": "Which one keeps state?",
            "explanation": "An actor is a process with state.", "points": "1",
            "options": "[x] An actor\n[ ] A task", "cards": ["ray-actor"]}  # fmt: skip
    assert dave_client.post(url, base | {"evidence": evidence}).status_code == 302
    question.refresh_from_db()
    assert question.evidence["tool"] == "ray status" and "GPU" in question.evidence["output"]
    page = dave_client.get(url).content.decode()
    assert "Pending Demands:" in page  # shown again in the evidence box
    sizing = (
        "given:\n- {name: learner, min: 1000, max: 9000, step: 1000}\n"
        "formula: ceil(learner / 100)\ntolerance: 0\nunit: runners\nsolution: '{answer}'"
    )
    drill = base | {"kind": "numeric", "prompt": "Feed {learner} samples/s.", "options": sizing}
    assert dave_client.post(url, drill).status_code == 302
    question.refresh_from_db()
    assert question.kind == "numeric" and question.sizing["formula"] == "ceil(learner / 100)"
    bad = drill | {"options": sizing.replace("ceil(learner / 100)", "learner / (learner - 5000)")}
    response = dave_client.post(url, bad)
    assert response.status_code == 400
    assert "formula: the denominator" in response.content.decode()
    question.refresh_from_db()
    assert question.sizing["formula"] == "ceil(learner / 100)"


def test_the_deck_page_an_import_lands_on_publishes_the_deck(dave_client, small_deck):
    small_deck.is_published = False
    small_deck.save()
    page = dave_client.get(reverse("authoring:deck", args=["ray-basics"])).content.decode()
    assert 'id="publish"' in page and "learners do not see it yet" in page
    response = dave_client.post(
        reverse("authoring:deck-publish", args=["ray-basics"]),
        {"publish": "1", "next": "/author/decks/ray-basics/"},
    )
    assert response.status_code == 302 and response["Location"] == "/author/decks/ray-basics/"
    small_deck.refresh_from_db()
    assert small_deck.is_published
    page = dave_client.get(reverse("authoring:deck", args=["ray-basics"])).content.decode()
    assert "Unpublish</button>" in page
