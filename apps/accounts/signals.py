"""Kept in step with each user's row: the username's skeleton (apps.accounts.usernames), and the
API token, which a new password revokes.

A new password revokes the user's API token: a reset after a leak, or a change, ends every way
in, as it ends every other session (Django's session hash). Whatever changes the password (the
reset and change pages, the admin, `manage.py changepassword`) saves the user with a new hash."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token

from apps.accounts.models import UsernameSkeleton
from apps.accounts.usernames import username_skeleton


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="raydeck-revoke-tokens")
def _revoke_tokens_on_new_password(sender, instance, update_fields=None, **kwargs):
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return  # a new user, or a save of other fields (the log-in's last_login)
    stored = (
        get_user_model().objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    )
    if stored is not None and stored != instance.password:
        Token.objects.filter(user_id=instance.pk).delete()


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="raydeck-username-skeleton")
def _keep_username_skeleton(sender, instance, created, update_fields=None, raw=False, **kwargs):
    """Every way a user is made or renamed (sign-up, the admin, createsuperuser) keeps the
    skeleton the sign-up form looks up."""
    if raw or (update_fields is not None and "username" not in update_fields):
        return
    UsernameSkeleton.objects.update_or_create(
        user_id=instance.pk, defaults={"skeleton": username_skeleton(instance.username)}
    )
