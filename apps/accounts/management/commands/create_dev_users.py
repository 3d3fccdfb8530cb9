from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import profile_for

DEV_USERS = [
    # username, password, is_staff
    ("candidate", "candidate-pass-123", False),
    ("author", "author-pass-123", True),
]


class Command(BaseCommand):
    help = "Create a demo candidate and a staff author with known passwords (DEBUG only)."

    def handle(self, *args, **options):
        if not settings.DEBUG:
            raise CommandError("Refusing to create users with known passwords when DEBUG is off.")
        User = get_user_model()
        for username, password, is_staff in DEV_USERS:
            user, created = User.objects.get_or_create(
                username=username, defaults={"is_staff": is_staff, "is_superuser": is_staff}
            )
            if created:
                user.set_password(password)
                user.save()
            profile_for(user)
            role = "staff author" if is_staff else "candidate"
            self.stdout.write(f"  {role:>14}: {username} / {password}")
