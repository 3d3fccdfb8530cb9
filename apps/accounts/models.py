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

    # "Learn N more new cards today": extra new cards allowed on one local day only.
    extra_new_cards = models.PositiveSmallIntegerField(default=0)
    extra_new_cards_on = models.DateField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Profile of {self.user}"

    def new_cards_limit(self, day) -> int:
        """New cards allowed on the local `day`: the daily setting plus that day's extra."""
        extra = self.extra_new_cards if self.extra_new_cards_on == day else 0
        return self.new_cards_per_day + extra

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
