"""The knowledge-check figures per member (apps.quizzes.selectors.member_checks) that the team
dashboard composes: the best share on each check, and the average over the deck's checks with
a check not taken counting 0."""

import pytest
from django.utils import timezone

from apps.quizzes import selectors
from apps.quizzes.models import Attempt

pytestmark = pytest.mark.django_db


def test_best_share_per_check_and_the_score_over_every_check(
    alice, bob, small_deck, quizzes, django_assert_num_queries
):
    core, final = quizzes["core-check"], quizzes["final-check"]
    now = timezone.now()
    for score in (1, 3):
        Attempt.objects.create(user=alice, quiz=core, score=score, max_score=4, submitted_at=now)
    Attempt.objects.create(user=alice, quiz=final, score=9, max_score=4)  # open: not counted
    with django_assert_num_queries(2):
        checks, members = selectors.member_checks(small_deck, user_ids=[alice.pk, bob.pk])
    assert [c.slug for c in checks] == [
        q.slug for q in sorted(quizzes.values(), key=lambda q: (q.order, q.pk))
        if q.kind == "knowledge_check"
    ]  # fmt: skip
    assert members[alice.pk].best == {core.pk: 0.75}
    assert members[alice.pk].score == pytest.approx(0.75 / len(checks))
    assert bob.pk not in members  # nothing taken: the caller's default, score 0
    assert selectors.MemberChecks().score == 0
