import zoneinfo
from datetime import date, datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


def validate_time_zone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(f"{value!r} is not a time zone name such as Europe/Berlin.")


MAX_BUDGET_MINUTES = 600
MAX_DAYS_AHEAD = 731  # two years: a plan further out is a typo (a wrong year), not a plan


def interview_date_error(day: date, zone: zoneinfo.ZoneInfo, now: datetime | None = None) -> str:
    """Why `day` cannot be an interview date ("" when it can): it must be from today (the
    learner's local today) to two years ahead."""
    today = (now or datetime.now(tz=zoneinfo.ZoneInfo("UTC"))).astimezone(zone).date()
    if day < today:
        return f"The interview date {day:%Y-%m-%d} is in the past; today is {today:%Y-%m-%d}."
    if (day - today).days > MAX_DAYS_AHEAD:
        return (
            f"The interview date {day:%Y-%m-%d} is more than two years ahead; "
            "pick a day within two years of today."
        )
    return ""


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

    # The interview plan (apps.study.plan): no date, no plan.
    interview_date = models.DateField(
        null=True, blank=True, help_text="The day of your interview, in your time zone."
    )
    daily_budget_minutes = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_BUDGET_MINUTES)],
        help_text=f"Minutes a day you can study for it (1 to {MAX_BUDGET_MINUTES}).",
    )
    interview_mode = models.BooleanField(
        default=True,
        help_text="While you have an interview date, plan each day's reviews for recall on the"
        " day (turn it off to keep SM-2's daily queue).",
    )
    target_recall = models.PositiveSmallIntegerField(
        default=90,
        validators=[MinValueValidator(50), MaxValueValidator(99)],
        help_text="Share of cards to recall on the day, in percent (50 to 99).",
    )
    leech_threshold = models.PositiveSmallIntegerField(
        default=8,
        validators=[MaxValueValidator(99)],
        help_text="Lapses that make a card a leech (Anki's default, 8); 0 turns leeches off.",
    )
    # "Learn N more new cards today": extra new cards allowed on one local day only.
    extra_new_cards = models.PositiveSmallIntegerField(default=0)
    extra_new_cards_on = models.DateField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Profile of {self.user}"

    def clean(self) -> None:
        if self.interview_date is not None and self.time_zone in zoneinfo.available_timezones():
            error = interview_date_error(self.interview_date, self.zone)
            if error:
                raise ValidationError({"interview_date": error})

    def local_today(self, now: datetime | None = None) -> date:
        return (now or datetime.now(tz=zoneinfo.ZoneInfo("UTC"))).astimezone(self.zone).date()

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


class UsernameSkeleton(models.Model):
    """Each user's username as it reads (apps.accounts.usernames): a new name whose skeleton
    is taken looks like someone else's, and is refused at sign-up."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
        related_name="username_skeleton",
    )  # fmt: skip
    skeleton = models.CharField(max_length=600, db_index=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.skeleton}"
