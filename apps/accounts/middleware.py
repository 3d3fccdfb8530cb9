import zoneinfo

from django.utils import timezone


class UserTimezoneMiddleware:
    """Render times in the signed-in user's own time zone."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            from apps.accounts.models import profile_for

            try:
                timezone.activate(zoneinfo.ZoneInfo(profile_for(user).time_zone))
            except zoneinfo.ZoneInfoNotFoundError:
                timezone.deactivate()
        else:
            timezone.deactivate()
        return self.get_response(request)
