"""GET /api/study/device-pack/: the cards, states and limits the review page keeps on the
device (apps/review/device.py), and GET /sw.js, the service worker, served from the root so its
scope covers the review pages."""

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse
from django.urls import path
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.review.device import device_pack


class PackStateSerializer(serializers.Serializer):
    repetitions = serializers.IntegerField()
    ease_factor = serializers.CharField(help_text='Two decimals, "2.50".')
    interval_days = serializers.IntegerField()
    due_at = serializers.DateTimeField(allow_null=True)
    needs_redrill = serializers.BooleanField()
    redrill_anchor = serializers.DateTimeField(allow_null=True)
    lapses = serializers.IntegerField()
    last_grade = serializers.IntegerField(allow_null=True)
    last_reviewed_at = serializers.DateTimeField(allow_null=True)


class PackCardSerializer(serializers.Serializer):
    card = serializers.IntegerField()
    note = serializers.CharField(allow_null=True, help_text="Sibling key; null: no siblings.")
    deck = serializers.CharField()
    section = serializers.CharField()
    cloze = serializers.BooleanField()
    front_html = serializers.CharField()
    back_html = serializers.CharField()
    why_html = serializers.CharField()
    type_answer = serializers.BooleanField()
    state = PackStateSerializer(allow_null=True)
    kind = serializers.ChoiceField(choices=["redrill", "due", "new", "plan"])


class DevicePackSerializer(serializers.Serializer):
    user = serializers.IntegerField()
    generated_at = serializers.DateTimeField()
    hold_days = serializers.IntegerField()
    time_zone = serializers.CharField()
    day_end = serializers.DateTimeField()
    scheduler = serializers.CharField()
    limits = serializers.DictField()
    cards = PackCardSerializer(many=True)


class DevicePackView(APIView):
    @extend_schema(
        responses={200: DevicePackSerializer},
        summary="Today's queue and tomorrow's due cards with their states, for the device",
    )
    def get(self, request: Request) -> Response:
        response = Response(device_pack(request.user))
        response["Cache-Control"] = "private, no-store"
        return response


urlpatterns = [
    path("study/device-pack/", DevicePackView.as_view(), name="api-study-device-pack"),
]


@never_cache
def service_worker(request):
    """static/js/sw.js from the site's root: a worker's scope is at most its own path's
    directory, and the review pages live under /study/."""
    found = finders.find("js/sw.js")
    if not found:
        raise Http404("No service worker.")
    with open(found, encoding="utf-8") as handle:
        static = settings.STATIC_URL
        body = handle.read().replace(
            "__STATIC__", static if static.startswith("/") else "/" + static
        )
    response = HttpResponse(body, content_type="application/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    return response
