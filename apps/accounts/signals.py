"""A new password revokes the user's API token: a reset after a leak, or a change, ends every way
in, as it ends every other session (Django's session hash). Whatever changes the password (the
reset and change pages, the admin, `manage.py changepassword`) saves the user with a new hash."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models.signals import pre_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="raydeck-revoke-tokens")
def _revoke_tokens_on_new_password(sender, instance, update_fields=None, **kwargs):
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return  # a new user, or a save of other fields (the log-in's last_login)
    stored = (
        get_user_model().objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    )
    if stored is not None and stored != instance.password:
        Token.objects.filter(user_id=instance.pk).delete()
