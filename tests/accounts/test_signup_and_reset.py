"""Sign-up takes an e-mail address and the browser's time zone; a forgotten password is reset
through a link sent by e-mail (Django's views, the console backend unless SMTP is configured)."""

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase"


def sign_up(client, **extra):
    data = {"username": "dora", "email": "dora@example.com", "password1": PASSWORD,
            "password2": PASSWORD} | extra  # fmt: skip
    return client.post(reverse("accounts:signup"), data)


@pytest.mark.parametrize("sent", ["Mars/Olympus_Mons", "", "<script>"])
def test_a_time_zone_zoneinfo_does_not_know_falls_back_to_utc(client, django_user_model, sent):
    assert sign_up(client, time_zone=sent).status_code == 302
    assert django_user_model.objects.get(username="dora").profile.time_zone == "UTC"


def test_an_e_mail_address_is_required_and_used_once(client, alice, django_user_model):
    alice.email = "Alice@Example.com"
    alice.save()
    response = sign_up(client, email="alice@example.com")
    assert response.status_code == 200
    assert "An account already uses this e-mail address" in response.content.decode()
    assert sign_up(client, email="").status_code == 200
    assert not django_user_model.objects.filter(username="dora").exists()


def test_a_forgotten_password_is_reset_through_the_mailed_link(client, alice, mailoutbox):
    alice.email = "alice@example.com"
    alice.save()
    response = client.post(reverse("accounts:password_reset"), {"email": "alice@example.com"})
    assert response.status_code == 302 and response.url == reverse("accounts:password_reset_done")
    [mail] = mailoutbox
    assert mail.to == ["alice@example.com"] and "RayDeck" in mail.subject
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.body).group(1)
    form = client.get(link, follow=True)
    assert b"Choose a new password" in form.content
    done = client.post(
        form.redirect_chain[-1][0] if form.redirect_chain else link,
        {"new_password1": "another-long-phrase", "new_password2": "another-long-phrase"},
    )
    assert done.url == reverse("accounts:password_reset_complete")
    alice.refresh_from_db()
    assert alice.check_password("another-long-phrase")
    # the link works once
    assert b"This link no longer works" in client.get(link, follow=True).content


def test_an_unknown_address_sends_nothing_and_says_the_same(client, mailoutbox):
    response = client.post(reverse("accounts:password_reset"), {"email": "nobody@example.com"})
    assert response.status_code == 302 and mailoutbox == []


def test_e_mail_goes_to_the_console_unless_smtp_is_configured():
    from tests.test_settings import manage

    show = (
        "from django.conf import settings as s; print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT)"
    )
    default = manage("shell", "-c", show, DEBUG="true")
    assert (
        default.stdout.splitlines()[-1].split()[0]
        == "django.core.mail.backends.console.EmailBackend"
    )
    smtp = manage(
        "shell", "-c", show, DEBUG="true", EMAIL_HOST="smtp.example.com", EMAIL_PORT="587",
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
    )  # fmt: skip
    assert smtp.stdout.splitlines()[-1].split() == [
        "django.core.mail.backends.smtp.EmailBackend", "smtp.example.com", "587"
    ]  # fmt: skip
