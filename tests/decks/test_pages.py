import pytest
from django.urls import reverse

from apps.decks.models import Section

pytestmark = pytest.mark.django_db


def test_home_lists_published_decks_for_anyone(client, small_deck, django_assert_num_queries):
    with django_assert_num_queries(1):
        response = client.get(reverse("home"))
    assert response.status_code == 200
    assert "Ray basics" in response.content.decode()
    assert "5 cards" in response.content.decode()


def test_drafts_are_hidden_from_learners_but_shown_to_staff(client, small_deck, alice, staff):
    small_deck.is_published = False
    small_deck.save()
    client.force_login(alice)
    assert "Ray basics" not in client.get(reverse("home")).content.decode()
    assert client.get(small_deck.get_absolute_url()).status_code == 404
    client.force_login(staff)
    assert "draft" in client.get(reverse("home")).content.decode()


def test_deck_page_shows_objectives_and_sections(client, small_deck, django_assert_num_queries):
    with django_assert_num_queries(3):
        response = client.get(small_deck.get_absolute_url())
    body = response.content.decode()
    assert "Tell a task from an actor" in body
    assert body.index("Ray core</a>") < body.index("RLlib</a>")


def test_section_page_reads_like_the_lesson(client, small_deck, django_assert_num_queries):
    section = small_deck.sections.get(slug="ray-core")
    section.concepts.create(order=0, question="When an actor?", explanation="When **state**.")
    url = section.get_absolute_url()
    # +1: the section's quizzes (none here; tests/quizzes pins the page with checkpoints)
    # +1: the demos that illustrate the section's cards ("see it live"), one query
    # +1: the section's code exercises (none here), one query
    with django_assert_num_queries(7):
        response = client.get(url)
    body = response.content.decode()
    assert "When an actor?" in body
    assert "<strong>state</strong>" in body
    assert 'id="card-ray-task"' in body
    assert 'rel="next"' in body


@pytest.mark.parametrize(
    "url", ["/decks/nope/", "/decks/ray-basics/nope/", "/decks/nope/ray-core/", "/no/such/page/"]
)
def test_unknown_slugs_give_a_friendly_404(client, small_deck, url):
    response = client.get(url)
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_home_for_a_logged_in_user_costs_a_fixed_number_of_queries(
    client, small_deck, alice, django_assert_num_queries
):
    client.force_login(alice)
    # session + user + profile (time zone), then the page's own query, then the study due
    # counts (today's reviews, states per deck), then the path (sections, cards learned, section
    # progress, checkpoint questions, knowledge checks with best scores)
    with django_assert_num_queries(11):
        assert client.get(reverse("home")).status_code == 200


def test_sign_up_logs_in_and_creates_a_profile(client, django_user_model):
    response = client.post(
        reverse("accounts:signup"),
        {"username": "dora", "email": "dora@example.com", "time_zone": "Asia/Kolkata",
         "password1": "a-long-pass-phrase", "password2": "a-long-pass-phrase"},
    )  # fmt: skip
    assert response.status_code == 302
    user = django_user_model.objects.get(username="dora")
    assert (user.email, user.profile.time_zone) == ("dora@example.com", "Asia/Kolkata")
    assert client.get(reverse("accounts:profile")).status_code == 200


def test_profile_rejects_a_bad_time_zone_and_keeps_the_old_one(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("accounts:profile"),
        {"time_zone": "Mars/Olympus", "new_cards_per_day": 10, "reviews_per_day": 100},
    )
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    alice.profile.refresh_from_db()
    assert alice.profile.time_zone == "UTC"


def test_profile_saves_limits_and_time_zone(client, alice):
    client.force_login(alice)
    client.post(
        reverse("accounts:profile"),
        {"time_zone": "Asia/Tokyo", "new_cards_per_day": 7, "reviews_per_day": 99},
    )
    alice.profile.refresh_from_db()
    assert (alice.profile.time_zone, alice.profile.new_cards_per_day) == ("Asia/Tokyo", 7)


def test_profile_requires_login(client):
    response = client.get(reverse("accounts:profile"))
    assert response.status_code == 302
    assert reverse("accounts:login") in response["Location"]


def test_log_in_and_out(client, alice):
    response = client.post(
        reverse("accounts:login"), {"username": "alice", "password": "pw-alice-123"}
    )
    assert response.status_code == 302
    assert client.post(reverse("accounts:logout")).status_code == 302


def test_deck_page_links_every_knowledge_check_final_first(client, seeded):
    body = client.get("/decks/distributed-rl-on-ray/").content.decode()
    sections = Section.objects.filter(deck__slug="distributed-rl-on-ray").count()
    assert body.count('href="/quizzes/knowledge-check-') == sections
    assert body.index('href="/quizzes/final-knowledge-check/"') < body.index(
        'href="/quizzes/knowledge-check-'
    )
