"""A world where alice owns one of everything, for the access matrix and the API fuzzer.

alice studies the published deck "ray-basics" (a review, so a card state and a review log), has a
finished and an open quiz attempt, a queued demo run, owns the team "Zephyr cohort" (charlie is a
member, with an open invite) and authors the draft deck "alice-draft" (a section, a card with two
revisions, a quiz with a question with a revision). bob is a learner with none of it: a stranger.
staff is staff. alice also has a private deck of her own ("my cards": a card with an image and
a revision) and an open suggested edit of a shipped card; charlie suggested an edit of her
draft's card. Names that must never reach anyone but their owner are in PRIVATE.
"""

import io
import uuid
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from PIL import Image
from rest_framework.authtoken.models import Token

from apps.accounts.models import profile_for
from apps.authoring import services as authoring
from apps.authoring.models import DeckAuthor, ImportJob
from apps.decks.models import Card, Deck, Section
from apps.demos.models import DemoRun
from apps.exercises import services as exercises
from apps.exercises.content import ExerciseDoc
from apps.exercises.models import Submission
from apps.quizzes import services as quizzes
from apps.quizzes.models import Attempt, Choice, Question, Quiz
from apps.study import services as study
from apps.study.models import CardState, ReviewLog
from apps.teams import services as teams
from apps.teams.models import Invite, Membership, Team

# Text only alice (and, for the team, its members) may ever see in a response.
TEAM_NAME = "Zephyr cohort"
DRAFT_TITLE = "Alice's secret draft"
DRAFT_FRONT = "Quasar front only alice sees"
OWN_TITLE = "Alice's own flashcards"
OWN_FRONT = "Nebula front only alice reviews"
PRIVATE = (TEAM_NAME, DRAFT_TITLE, DRAFT_FRONT, OWN_TITLE, OWN_FRONT)
# In the exercises' hidden tests and reference: no learner may ever see it, staff included.
HIDDEN_TEST = "hidden_marker_7f3a"
ALICE_CODE = "alice_code_marker_91c2"


def exercise_doc(slug: str, cards: list[str], section: str) -> ExerciseDoc:
    return ExerciseDoc(
        slug=slug, title=f"Exercise {slug}", prompt="Write `add(a, b)`.", cards=cards,
        source="A source", section=section, starter="def add(a, b):\n    pass\n",
        examples="from solution import add\n\n\ndef test_example():\n    assert add(1, 1) == 2\n",
        tests=(
            f"from solution import add\n\n\ndef test_{HIDDEN_TEST}():\n    assert add(2, 3) == 5\n"
        ),
        reference=f"def add(a, b):\n    return a + b  # {HIDDEN_TEST}\n",
        wrong=[{"mistake": "subtracts", "code": "def add(a, b):\n    return a - b\n"}],
    )  # fmt: skip


@dataclass
class World:
    users: dict
    deck: Deck
    card: Card
    quiz: Quiz
    timed: Quiz
    checkpoint: Quiz
    attempt: Attempt
    open_attempt: Attempt
    run: DemoRun
    state: CardState
    review: ReviewLog
    team: Team
    invite: Invite
    draft: Deck
    draft_section: Section
    draft_empty_section: Section
    draft_card: Card
    draft_quiz: Quiz
    draft_question: Question
    revision: object
    exercise: object = None  # a live exercise of the published deck
    draft_exercise: object = None  # an exercise of alice's draft deck
    submission: object = None  # alice's finished Submit of `exercise`
    tokens: dict = field(default_factory=dict)
    import_job: object = None  # alice's finished import of her draft
    own: object = None  # alice's private deck
    own_card: object = None
    own_media: object = None  # an image of her private deck
    own_revision: object = None
    deck_media: object = None  # an image of the published deck
    draft_media: object = None
    suggestion: object = None  # charlie's open suggested edit of alice's draft card
    alice_suggestion: object = None  # alice's open suggested edit of a published card

    def __getitem__(self, name):
        return getattr(self, name)


def _user(username: str, **extra):
    user = get_user_model().objects.create_user(
        username=username, password=f"pw-{username}-123", **extra
    )
    profile_for(user)
    return user


def _single(quiz: Quiz, slug: str, card: Card) -> Question:
    question = Question.objects.create(
        quiz=quiz, slug=slug, kind="single", prompt="Which one keeps state?",
        explanation="An actor is a process with state.",
    )  # fmt: skip
    Choice.objects.create(question=question, text="An actor", correct=True, order=0)
    Choice.objects.create(question=question, text="A task", correct=False, order=1)
    question.cards.set([card])
    return question


def png_bytes(color=(10, 120, 200)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), color).save(out, format="PNG")
    return out.getvalue()


def world_build() -> World:
    alice, bob, charlie = _user("alice"), _user("bob"), _user("charlie")
    staff = _user("staff", is_staff=True)
    deck = Deck.objects.create(slug="ray-basics", title="Ray basics", is_published=True)
    core = Section.objects.create(deck=deck, slug="ray-core", order=0, title="Ray core")
    cards = [
        Card.objects.create(deck=deck, section=core, slug=slug, order=i, front=front, back=back)
        for i, (slug, front, back) in enumerate(
            [
                ("ray-task", "What is a Ray task?", "A stateless remote function call."),
                ("ray-actor", "What is a Ray actor?", "A stateful worker process."),
            ]
        )
    ]
    quiz = Quiz.objects.create(deck=deck, section=core, slug="core-check", title="Core check",
                               kind="knowledge_check")  # fmt: skip
    question = _single(quiz, "keeps-state", cards[1])
    timed = Quiz.objects.create(deck=deck, slug="final-check", title="Final check",
                                kind="knowledge_check", time_limit_seconds=600)  # fmt: skip
    _single(timed, "final-state", cards[1])
    checkpoint = Quiz.objects.create(deck=deck, section=core, slug="core-checkpoint",
                                     title="Core checkpoint", kind="checkpoint")  # fmt: skip
    _single(checkpoint, "cp-state", cards[1])

    review, _ = study.review_record(user=alice, card=cards[0], grade=5)
    choice = question.choices.get(correct=False)
    attempt, _ = quizzes.attempt_record(user=alice, quiz=quiz, answers={question.key: choice.key})
    open_attempt = quizzes.attempt_start(user=alice, quiz=timed)
    run = DemoRun.objects.create(user=alice, demo="tasks-vs-actors", params={})

    team = teams.team_create(user=alice, name=TEAM_NAME, deck=deck)
    Membership.objects.create(team=team, user=charlie)
    invite = teams.invite_create(team=team, by=alice, max_uses=None)

    draft = Deck.objects.create(slug="alice-draft", title=DRAFT_TITLE, is_published=False)
    DeckAuthor.objects.create(deck=draft, user=alice)
    draft_section = authoring.section_create(deck=draft, slug="drafting", title="Drafting")
    draft_empty = authoring.section_create(deck=draft, slug="empty", title="Empty")
    draft_card = authoring.card_create(
        deck=draft, author=alice, section="drafting", slug="quasar", front=DRAFT_FRONT,
        back="A draft answer.",
    )  # fmt: skip
    authoring.card_create(deck=draft, author=alice, section="drafting", slug="pulsar",
                          front="Second draft card", back="Another.")  # fmt: skip
    authoring.card_update(card=draft_card, author=alice, back="A better draft answer.")
    draft_quiz = Quiz.objects.create(deck=draft, slug="draft-check", title="Draft check",
                                     kind="knowledge_check")  # fmt: skip
    draft_question, _ = authoring.question_save(
        quiz=draft_quiz, author=alice,
        data={"slug": "draft-q", "kind": "single", "prompt": "Draft prompt?",
              "explanation": "Because.", "cards": ["quasar"],
              "choices": [{"text": "Yes", "correct": True}, {"text": "No"}]},
    )  # fmt: skip
    authoring.question_save(
        quiz=draft_quiz, author=alice,
        data={"slug": "draft-q2", "kind": "single", "prompt": "Second draft prompt?",
              "explanation": "Because.", "cards": ["quasar"],
              "choices": [{"text": "Yes", "correct": True}, {"text": "No"}]},
    )  # fmt: skip

    exercise = exercises.exercise_save(
        deck=deck, doc=exercise_doc("core-add", ["ray-task"], "ray-core"), accept=True
    )[0].exercise
    draft_revision, _ = exercises.exercise_save(
        deck=draft, doc=exercise_doc("draft-add", ["quasar"], "drafting"), accept=True,
        author=alice, batch=uuid.uuid4(),
    )  # fmt: skip
    draft_exercise = draft_revision.exercise
    submission = Submission.objects.create(
        user=alice, exercise=exercise, revision=exercise.current, mode="submit",
        code=f"def add(a, b):\n    return 0  # {ALICE_CODE}\n", status=Submission.Status.FAILED,
    )  # fmt: skip

    own = authoring.own_deck_create(user=alice, title=OWN_TITLE)
    own_card = authoring.card_create(
        deck=own,
        author=alice,
        section=own.sections.get(),
        slug="nebula",
        front=OWN_FRONT,
        back="A cloud of gas.",
    )
    own_media = authoring.media_upload(deck=own, user=alice, name="nebula.png", data=png_bytes())
    authoring.card_update(card=own_card, author=alice, back="![](<media:nebula.png>) Gas.")
    deck_media = authoring.media_upload(
        deck=deck, user=staff, name="ray.png", data=png_bytes((1, 2, 3))
    )
    draft_media = authoring.media_upload(
        deck=draft, user=alice, name="quasar.png", data=png_bytes((4, 5, 6))
    )
    suggestion = authoring.suggestion_file(
        user=charlie,
        card=draft_card,
        front=DRAFT_FRONT,
        back="An edited draft answer.",
        note="typo",
    )
    alice_suggestion = authoring.suggestion_file(
        user=alice, card=cards[1], front=cards[1].front, back="A stateful process.", note="shorter"
    )

    return World(
        own=own, own_card=own_card, own_media=own_media, deck_media=deck_media,
        draft_media=draft_media, own_revision=own_card.revisions.get(number=1),
        suggestion=suggestion, alice_suggestion=alice_suggestion,
        users={"alice": alice, "bob": bob, "charlie": charlie, "staff": staff},
        exercise=exercise, draft_exercise=draft_exercise, submission=submission,
        deck=deck, card=cards[0], quiz=quiz, timed=timed, checkpoint=checkpoint,
        attempt=attempt, open_attempt=open_attempt, run=run,
        state=CardState.objects.get(user=alice, card=cards[0]), review=review,
        team=team, invite=invite, draft=draft, draft_section=draft_section,
        draft_empty_section=draft_empty, draft_card=draft_card, draft_quiz=draft_quiz,
        draft_question=draft_question, revision=draft_card.revisions.get(number=1),
        tokens={name: Token.objects.create(user=user).key for name, user in
                {"alice": alice, "bob": bob, "charlie": charlie, "staff": staff}.items()},
        import_job=ImportJob.objects.create(
            user=alice, deck_slug=draft.slug, filename="cards.csv", data=b"",
            status=ImportJob.Status.SUCCEEDED,
        ),
    )  # fmt: skip
