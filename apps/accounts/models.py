import zoneinfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


def validate_time_zone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(f"{value!r} is not a time zone name such as Europe/Berlin.")


class Profile(models.Model):
    """Per-user study preferences; "today" for the review queue follows time_zone."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    time_zone = models.CharField(max_length=64, default="UTC", validators=[validate_time_zone])
    new_cards_per_day = models.PositiveSmallIntegerField(
        default=settings.RAYDECK_DEFAULT_NEW_CARDS_PER_DAY,
        validators=[MinValueValidator(0), MaxValueValidator(500)],
    )
    reviews_per_day = models.PositiveIntegerField(
        default=settings.RAYDECK_DEFAULT_REVIEWS_PER_DAY,
        validators=[MinValueValidator(1), MaxValueValidator(5000)],
    )

    leech_threshold = models.PositiveSmallIntegerField(
        default=8,
        validators=[MaxValueValidator(99)],
        help_text="Lapses that make a card a leech (Anki's default, 8); 0 turns leeches off.",
    )

    def __str__(self) -> str:
        return f"Profile of {self.user}"

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)


def profile_for(user) -> Profile:
    """The user's profile, created with defaults the first time it is asked for."""
    try:
        return user.profile
    except Profile.DoesNotExist:
        profile, _ = Profile.objects.get_or_create(user=user)
        user.profile = profile
        return profile
