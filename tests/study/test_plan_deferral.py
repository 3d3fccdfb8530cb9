"""The planner lets SM-2 due cards wait when the interview does not need them: a due card
already predicted at the target on the day is not planned (it stays due in SM-2), and the
budget goes to the cards that need it."""

from apps.study.plan import plan_build
from tests.study.test_memory_plan import MODEL, T0, deck

# well learnt: reviewed Good over two months, due today in SM-2
STRONG = [(4, 60), (4, 60 * 24 * 3), (4, 60 * 24 * 10), (4, 60 * 24 * 30), (4, 60 * 24 * 15)]
WEAK = [(1, 60)]  # one miss two months ago


def test_a_due_card_predicted_above_the_target_on_the_day_waits():
    cards = deck([("tasks", STRONG, 0), ("tasks", WEAK, 0)])
    assert MODEL.recall(cards[0].memory, T0) > 0.8 > MODEL.recall(cards[1].memory, T0)
    result = plan_build(
        cards=cards, model=MODEL, today_start=T0, days_until=3, per_day=5, target=0.7
    )
    assert result.deferred == [1]
    assert 1 not in [cid for day in result.days for cid in day.cards]
    assert 2 in result.days[0].cards  # the weak due card is still SM-2's, today
    assert result.followed.cards[1] == result.now.cards[1]


def test_without_deferral_every_due_card_is_planned():
    cards = deck([("tasks", STRONG, 0), ("tasks", WEAK, 0)])
    result = plan_build(
        cards=cards, model=MODEL, today_start=T0, days_until=3, per_day=5, target=0.7, defer=None
    )
    assert result.deferred == []
    assert result.days[0].cards[:2] == [1, 2] and result.days[0].due == 2


def test_a_due_card_below_the_target_is_not_deferred():
    cards = deck([("tasks", STRONG[:3], 0)])  # predicted about 90% on the day
    result = plan_build(
        cards=cards, model=MODEL, today_start=T0, days_until=3, per_day=5, target=0.95
    )
    assert result.deferred == []
    assert result.days[0].cards[:1] == [1]
